"""Text play: what a seat at a decision is told in words, and its reply read back as a move.

    from gameshelf.wrappers.text import prompt, parse_move
    text = prompt(state, seat)             # short rules, the seat's view, what happened since, legal moves
    parsed = parse_move(state, "2")        # Parsed(action=..., reason="number 2 of the list")

A prompt holds only what the seat may know: its own text view (``state.seat_text``), the moves since its
last decision as ``move_log`` names them for that seat (another seat's move or a chance outcome is named
only when the seat can tell it apart from every differently named one, else it reads ``(hidden)`` or is
left out), and on its turn the legal moves by name and number. ``check_prompt_hides_what_the_seat_cannot_see``
verifies it: a seat's prompt is unchanged when what the seat cannot see is redealt.

A reply is read by ``parse_move`` (a leading ``<think>...</think>`` block and quotes or backticks around it
dropped): an exact move name, a line of the list copied (``3. name``), the number of a move in the list, or an
unambiguous prefix or close match of a legal name (compared case-folded and Unicode-normalized, so ``+`` reads ``＋``; a
close match is the legal name difflib finds at least ``CLOSE_MATCH`` alike, ahead of any other by ``CLOSER_BY``);
anything else is ``Parsed(None, reason)``.

``TextArenaEnv`` plays any id in TextArena's shape (``reset(num_players, seed)``, ``get_observation()``,
``step(action=text)``, ``close()``), so a TextArena agent (a callable ``observation -> action text``) plays
it unchanged.
"""

from __future__ import annotations

import difflib
import itertools
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, NamedTuple

import numpy as np

from gameshelf.envs.core.episode import Episode
from gameshelf.envs.core.game import CHANCE, TERMINAL, Game, IllegalActionError, State, random_playout

CLOSE_MATCH = 0.85
"""How alike (difflib's ratio) a reply must be to a legal move name to be read as that move."""
CLOSER_BY = 0.05
"""How much more alike than any other legal name the closest one must be, when several are alike enough."""
REPLY_SHOWN = 80
"""Characters of a reply quoted in a reason."""
WRAPPING = " \t\r\n`\"'*."
"""Characters stripped from both ends of a reply before it is read."""
THINKING = re.compile(r"^\s*<think>.*?</think>", re.DOTALL)
"""A reasoning block that some models put before their answer, dropped."""
LIST_LINE = re.compile(r"(\d+)\.\s+(.+)")
"""A line of the prompt's list of moves (``3. name``)."""


# ---- the short rules ----------------------------------------------------------------------------------
@cache
def short_rules(name: str) -> str:
    """The short rules of a game (``game.info.name``, e.g. ``"level_x"``), kept in the package; ``ValueError``
    for a game without them."""
    path = resources.files("gameshelf.wrappers").joinpath("rules", f"{name}.md")
    if not path.is_file():
        raise ValueError(f"no short rules for the game {name!r} (expected gameshelf/wrappers/rules/{name}.md)")
    return path.read_text(encoding="utf-8").strip()


def game_title(game: Game) -> str:
    """The game's name as its short rules write it (their first heading)."""
    first = short_rules(game.info.name).splitlines()[0]
    return first.lstrip("#").strip()


# ---- the move log -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LogEntry:
    index: int
    """Position of the action in the state's history."""
    player: int
    """The seat that moved, or ``CHANCE``."""
    name: str
    seen: tuple[bool, ...]
    """Per seat: whether that seat can tell this action apart from every differently named one."""

    def text_for(self, seat: int | None) -> str | None:
        """The entry as ``seat`` (None: a spectator, who sees what every seat sees) may read it; None to leave out."""
        visible = all(self.seen) if seat is None else self.seen[seat]
        who = "chance" if self.player == CHANCE else f"player_{self.player}"
        if visible:
            return f"{who}: {self.name}"
        return None if self.player == CHANCE else f"{who}: (hidden)"


def _alternatives(state: State) -> list[int]:
    if state.current_player() == CHANCE:
        return [outcome for outcome, _ in state.chance_outcomes()]
    return state.legal_actions()


def log_entry(state: State, action: int, samples: int = 4) -> LogEntry:
    """The log entry of ``action`` played at ``state`` (before it is applied), with who may read its name
    (``seen_by`` for every seat)."""
    n = state.game.info.num_players
    player = state.current_player()
    seen = tuple(seen_by(state, action, seat, samples) for seat in range(n))
    return LogEntry(len(state.history), player, state.action_to_string(action), seen)


def seen_by(state: State, action: int, seat: int, samples: int = 4) -> bool:
    """Whether ``seat`` may read the name of ``action`` played at ``state`` (before it is applied).

    A seat reads the name unless, in some position it cannot tell from ``state`` (``state`` itself and up to
    ``samples`` redeals by ``resample_hidden``), a differently named move or outcome leaves the seat's
    observation and text as the same-named one does there. So a card dealt to another seat and a secret
    choice read ``(hidden)``. A chance outcome with no differently named alternative in any of those
    positions is hidden from every seat (during a deal the undealt cards are not redealt by
    ``resample_hidden``, so the last card dealt would otherwise name what the rest of the deck held); one
    that is forced only in ``state`` (the deck left holds one kind of card) is read as in the redeals, since
    what the deck holds is itself hidden.
    """
    player = state.current_player()
    if not state.game.info.has_hidden_info or seat == player:
        return True
    name = state.action_to_string(action)
    rng = np.random.default_rng([len(state.history), seat])
    worlds = itertools.chain([state], (state.resample_hidden(seat, rng) for _ in range(samples)))
    alternative = False
    for world in worlds:  # redealt only while no differently named move looks the same
        moves = _alternatives(world)
        same = action if world is state else next((a for a in moves if world.action_to_string(a) == name), None)
        if same is None:
            continue
        after = world.clone()
        after.apply_action(same)
        obs, text = after.observation(seat), None
        for alt in moves:
            if world.action_to_string(alt) == name:
                continue
            alternative = True
            other = world.clone()
            other.apply_action(alt)
            if np.array_equal(obs, other.observation(seat)):
                text = after.seat_text(seat) if text is None else text
                if text == other.seat_text(seat):
                    return False
    return alternative or player != CHANCE


def _since_last_decision(state: State, seat: int) -> tuple[list[tuple[State, int]], str | None]:
    """The actions after ``seat``'s last decision, each with the state it was played at, and that decision's
    name (None before its first): ``state``'s history replayed from the start of the game (none without a
    history). ``ValueError`` when it does not replay to what the seat sees (a state built from a position and
    played on: its history starts at the position)."""
    replay = state.game.new_initial_state()
    tail: list[tuple[State, int]] = []
    mine: str | None = None
    try:
        for action in state.history:
            if replay.current_player() == seat:
                tail, mine = [], replay.action_to_string(action)
            else:
                tail.append((replay.clone(), action))
            replay.apply_action(action)
    except IllegalActionError:
        replay = state.game.new_initial_state()
    if state.history and (replay.current_player() != state.current_player() or replay.seat_text(seat) != state.seat_text(seat)):
        raise ValueError(
            "the moves since a seat's last decision are read by replaying the state's history from the start of the "
            "game, and this state's history does not start there (a state built from a position?)"
        )
    return tail, mine


def move_log(state: State, seat: int) -> list[str]:
    """What happened since ``seat``'s last decision, one line per move as ``seat`` may read it (``LogEntry``)."""
    return _log_lines(_since_last_decision(state, seat)[0], seat)


def _log_lines(tail: list[tuple[State, int]], seat: int) -> list[str]:
    """The lines ``seat`` reads of ``tail`` (moves, each with the state it was played at). Chance outcomes in a
    row are listed sorted: a seat's view keeps what was dealt to it, not in which order (a redeal may
    reorder them), so the order is not the seat's to know."""
    lines: list[str] = []
    run: list[str] = []
    for before, action in tail:
        text = _entry_text(before, action, seat)
        if before.current_player() == CHANCE:
            run += [text] if text is not None else []
            continue
        lines += sorted(run)
        run = []
        lines += [text] if text is not None else []
    return lines + sorted(run)


def _entry_text(state: State, action: int, seat: int) -> str | None:
    """One move as ``seat`` may read it (``LogEntry.text_for``), its visibility found for that seat only."""
    player = state.current_player()
    seen = tuple(seen_by(state, action, seat) if s == seat else False for s in range(state.game.info.num_players))
    return LogEntry(len(state.history), player, state.action_to_string(action), seen).text_for(seat)


# ---- the prompt ---------------------------------------------------------------------------------------
def legal_names(state: State) -> list[tuple[int, str]]:
    """The legal moves of the player to move, as ``(action, name)`` in the order of the prompt's list."""
    return [(a, state.action_to_string(a)) for a in state.legal_actions()]


def prompt(state: State, seat: int) -> str:
    """Everything ``seat`` is told: the short rules, its view, the moves since its last decision and, on its turn,
    its legal moves by number and name. ``ValueError`` for a bad seat, or a state whose history does not start at
    the start of the game (one built from a position)."""
    seat = state.check_seat(seat)
    return render_prompt(state, seat, *_since_last_decision(state, seat))


def render_prompt(state: State, seat: int, tail: list[tuple[State, int]], mine: str | None) -> str:
    """The prompt of ``seat`` given the moves since its last decision (``tail``: each with the state it was
    played at) and the name of that decision (None before its first)."""
    game = state.game
    n = game.info.num_players
    log = _log_lines(tail, seat)
    parts = [
        f"You are player_{seat} in a game of {game_title(game)} ({n} player{'s' if n != 1 else ''}; "
        f"the others are {', '.join(f'player_{s}' for s in range(n) if s != seat) or 'none'}).",
        "",
        "== Rules (short) ==",
        short_rules(game.info.name).split("\n", 1)[1].strip(),
        "",
        "== What you see ==",
        state.seat_text(seat).rstrip(),
        "",
        "== Since your last move ==" if mine is not None else "== So far ==",
    ]
    if mine is not None:
        parts.append(f"you: {mine}")
    parts += log or ["(nothing you can see)"]
    parts.append("")
    player = state.current_player()
    if player == seat:
        parts.append("== Your legal moves ==")
        parts += [f"{k}. {name}" for k, (_, name) in enumerate(legal_names(state), start=1)]
        parts += ["", "Reply with one move: its name exactly as written above, or its number. Nothing else."]
    elif player == TERMINAL:
        parts.append("The game is over.")
    else:
        parts.append(f"It is not your turn (player_{player} is to move)." if player >= 0 else "Chance is to move.")
    return "\n".join(parts)


def example_prompt(env_id: str, decisions: int = 6, seed: int = 0) -> str:
    """The prompt of the seat to move after ``decisions`` random decisions of a game of ``env_id`` (chance and
    moves drawn from ``seed``): the examples in docs/llm.md."""
    from gameshelf import envs

    return prompt(*played(envs.make_game(env_id), decisions, seed))


def played(game: Game, decisions: int, seed: int = 0) -> tuple[State, int]:
    """A new game of ``game`` after ``decisions`` random decisions (``random_playout``, chance and moves drawn from
    ``seed``), with the chance after them resolved; and the seat to move."""
    state, rng = game.new_initial_state(), np.random.default_rng(seed)
    random_playout(state, rng, max_decisions=decisions)
    while state.is_chance_node():
        state.apply_action(state.sample_chance(rng))
    return state, state.current_player()


def examples_markdown() -> str:
    """The example prompts of docs/llm.md, one per registered id (``python -m gameshelf.wrappers.text`` prints it)."""
    from gameshelf import envs

    parts = []
    for env_id in envs.registered_ids():
        parts += [f"### {env_id}", "", "```text", example_prompt(env_id), "```", ""]
    return "\n".join(parts)


# ---- reading a reply ----------------------------------------------------------------------------------
class Parsed(NamedTuple):
    """A reply read as a move: ``action`` (None when the reply is not one) and ``reason`` (how it was read, or
    why it is invalid)."""

    action: int | None
    reason: str


def _plain(text: str) -> str:
    """Text compared loosely: Unicode compatibility forms folded (``＋`` is ``+``), case-folded, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _quoted(reply: str) -> str:
    reply = " ".join(reply.split())
    return repr(reply if len(reply) <= REPLY_SHOWN else reply[:REPLY_SHOWN] + "...")


def _listed(names: list[str], limit: int = 5) -> str:
    shown = ", ".join(repr(n) for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def parse_move(state: State, reply: Any) -> Parsed:
    """Read ``reply`` as a legal move of the player to move (see the module's docstring for the rules)."""
    moves = legal_names(state) if state.current_player() >= 0 else []
    if not moves:
        return Parsed(None, "no move is expected now")
    if not isinstance(reply, str):
        return Parsed(None, f"a reply must be text, not {type(reply).__name__}")
    reply = THINKING.sub("", reply, count=1)
    text = reply.strip(WRAPPING)  # quotes, backticks, bold and a full stop around a name
    if not text:
        return Parsed(None, "the reply is empty")
    for action, name in moves:
        if name in (text, reply.strip()):
            return Parsed(action, "exact name")
    line = LIST_LINE.fullmatch(text)  # a line of the list, copied
    if line and 1 <= int(line[1]) <= len(moves):
        action, name = moves[int(line[1]) - 1]
        if _plain(name) == _plain(line[2]):
            return Parsed(action, f"line {line[1]} of the list")
        return Parsed(None, f"{_quoted(reply)}: move {line[1]} of the list is {name!r}, not {_quoted(line[2])}")
    number = text.removeprefix("#")
    if number.isdigit() and number.isascii():
        k = int(number)
        if 1 <= k <= len(moves):
            return Parsed(moves[k - 1][0], f"number {k} of the list")
        return Parsed(None, f"{_quoted(reply)} is not a number of the list (1 to {len(moves)})")
    plain = _plain(text)
    loose = [(a, name) for a, name in moves if _plain(name) == plain]
    if len(loose) == 1:
        return Parsed(loose[0][0], "name (case or spacing aside)")
    starts = [(a, name) for a, name in moves if _plain(name).startswith(plain)]
    if len(starts) == 1:
        return Parsed(starts[0][0], "unambiguous prefix")
    if len(starts) > 1:
        return Parsed(None, f"{_quoted(reply)} begins {len(starts)} legal moves: {_listed([n for _, n in starts])}")
    alike = [(difflib.SequenceMatcher(None, plain, _plain(name)).ratio(), a, name) for a, name in moves]
    close = sorted((m for m in alike if m[0] >= CLOSE_MATCH), key=lambda m: -m[0])
    if len(close) == 1 or (close and close[0][0] - close[1][0] >= CLOSER_BY):
        return Parsed(close[0][1], "close match")
    if close:
        return Parsed(None, f"{_quoted(reply)} is close to {len(close)} legal moves: {_listed([n for _, _, n in close])}")
    return Parsed(None, f"{_quoted(reply)} is not a legal move (reply with a name or a number from the list)")


# ---- the hidden-information check ---------------------------------------------------------------------
def check_prompt_hides_what_the_seat_cannot_see(
    game: Game, seed: int = 0, games: int = 1, per_kind: int | None = 3, redeals: int = 2
) -> int:
    """Every seat's prompt is the same after ``redeals`` redeals of what it cannot see (``resample_hidden``), at
    the nodes of the kit's ``random_nodes(game, seed, games, per_kind)`` that are decisions or ends.
    Raises ``ConformanceError`` naming the node, the seat and the first line that differs; returns the number
    of prompts compared. A game without hidden information passes at once (0)."""
    from gameshelf.envs.testing import ConformanceError, random_nodes

    if not game.info.has_hidden_info:
        return 0
    compared = 0
    for i, node in enumerate(random_nodes(game, seed, games, per_kind)):
        if node.kind == "chance":
            continue
        for seat in range(game.info.num_players):
            truth = prompt(node.state, seat)
            rng = np.random.default_rng([seed, i, seat])
            for _ in range(redeals):
                other = prompt(node.state.resample_hidden(seat, rng), seat)
                compared += 1
                if other != truth:
                    a, b = truth.splitlines(), other.splitlines()
                    line = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
                    raise ConformanceError(
                        f"prompt leak: seat {seat}'s prompt changed when only what it cannot see was redealt "
                        f"[{game.info.name} {game.info.num_players}p, seed {seed}, {node.kind} node after "
                        f"{len(node.state.history)} actions]: line {line + 1} reads {_line(a, line)} and after a "
                        f"redeal {_line(b, line)}"
                    )
    return compared


def _line(lines: list[str], k: int) -> str:
    return _quoted(lines[k]) if k < len(lines) else "(no line)"


# ---- TextArena's shape --------------------------------------------------------------------------------
class TextArenaEnv:
    """A gameshelf id in TextArena's environment shape (``textarena.Env``), so a TextArena agent (a callable
    ``observation -> action text``) plays it unchanged:

        env = TextArenaEnv("olenon-v0")
        env.reset(num_players=4, seed=0)
        done = False
        while not done:
            player_id, observation = env.get_observation()
            done, step_info = env.step(action=agents[player_id](observation))
        rewards, game_info = env.close()

    The observation is the seat's ``prompt`` (as TextArena's ``LLMObservationWrapper`` hands agents text),
    followed, after an invalid reply, by the reason. A reply is read by ``parse_move``; an invalid one may be
    resubmitted ``error_allowance`` times in a row (TextArena's default is 1), after that the game ends with
    -1 for that seat and 0 for the others (the environments' ``illegal_action="penalize"``). ``rewards`` are the
    final returns by seat; ``game_info[seat]`` has TextArena's ``role``, ``invalid_move``, ``turn_count`` and
    ``reason``. Chance is drawn from ``seed``; ``options`` are the game's.
    """

    def __init__(self, env_id: str, error_allowance: int = 1, **options: Any) -> None:
        from gameshelf import envs

        envs.spec(env_id)  # an unknown id fails here
        if isinstance(error_allowance, bool) or not isinstance(error_allowance, int) or error_allowance < 0:
            raise ValueError(f"error_allowance must be a whole number of 0 or more, got {error_allowance!r}")
        self.env_id, self.error_allowance, self.options = env_id, error_allowance, options
        self.episode: Episode | None = None

    def reset(self, num_players: int | None = None, seed: int | None = None) -> None:
        """A new game (``num_players``: the game's option; None keeps the default) with chance drawn from ``seed``."""
        from gameshelf import envs

        options = dict(self.options)
        if num_players is not None:
            options["num_players"] = num_players
        game = envs.make_game(self.env_id, **options)
        self.episode = Episode(game, env_id=self.env_id)
        self.episode.reset(np.random.default_rng(seed))
        n = game.info.num_players
        self._shadow = game.new_initial_state()
        self._tails: list[list[tuple[State, int]]] = [[] for _ in range(n)]
        self._mine: list[str | None] = [None] * n
        self._errors, self._notice, self._last_seat = 0, "", 0
        self.offender: int | None = None
        self.game_info: dict[int, dict[str, Any]] = {
            s: {"role": f"Player {s}", "invalid_move": False, "turn_count": 0} for s in range(n)
        }
        self._follow()

    def _require(self) -> Episode:
        if self.episode is None:
            raise RuntimeError("call reset() before playing")
        return self.episode

    def _follow(self) -> None:
        """Note the actions played since the last call in every seat's log (who moved, the state before)."""
        history = self._require().require_state().history
        while len(self._shadow.history) < len(history):
            action, mover = history[len(self._shadow.history)], self._shadow.current_player()
            before = self._shadow.clone()
            for seat, tail in enumerate(self._tails):
                if seat == mover:
                    tail.clear()
                    self._mine[seat] = before.action_to_string(action)
                else:
                    tail.append((before, action))
            self._shadow.apply_action(action)

    @property
    def done(self) -> bool:
        return self.offender is not None or self._require().done

    def get_observation(self) -> tuple[int, str]:
        """``(player_id, observation)``: the seat to move (the last to move once the game is over) and its prompt."""
        state = self._require().require_state()
        player = state.current_player()
        seat = player if player >= 0 and self.offender is None else self._last_seat
        text = render_prompt(state, seat, self._tails[seat], self._mine[seat])
        if self._notice:
            text += f"\n\nYour last reply was invalid: {self._notice}. Please resubmit a valid move."
        return seat, text

    def step(self, action: Any) -> tuple[bool, dict[str, Any]]:
        """Play the reply ``action`` for the seat to move: ``(done, step_info)``."""
        episode = self._require()
        if self.done:
            return True, {}
        state = episode.require_state()
        seat = self._last_seat = state.current_player()
        move, reason = parse_move(state, action)
        if move is None:
            self._errors += 1
            if self._errors > self.error_allowance:
                self.offender = seat
                self.game_info[seat]["invalid_move"] = True
                for info in self.game_info.values():
                    info["reason"] = f"Player {seat} made an invalid move: {reason}"
                return True, {"invalid_move": reason}
            self._notice = reason
            return False, {"invalid_move": reason}
        episode.step(move)
        self._errors, self._notice = 0, ""
        self.game_info[seat]["turn_count"] += 1
        self._follow()
        if episode.done:
            why = f"cut off after {episode.num_moves} moves" if episode.truncated else "the game ended"
            for info in self.game_info.values():
                info["reason"] = why
        return self.done, {}

    def close(self) -> tuple[dict[int, float], dict[int, dict[str, Any]]]:
        """``(rewards, game_info)``: every seat's final return (the penalty after too many invalid replies)."""
        state = self._require().require_state()
        n = state.game.info.num_players
        if self.offender is not None:
            rewards = {s: -1.0 if s == self.offender else 0.0 for s in range(n)}
        else:
            rewards = {s: float(r) for s, r in enumerate(state.returns())}
        return rewards, self.game_info


if __name__ == "__main__":
    print(examples_markdown(), end="")

"""The training configuration: typed settings, checked in full before a run creates anything.

A run's settings come from ``DEFAULTS``, then the game's ``training/configs/<game>.yaml`` (or the file
given with ``--config``, or a dict of overrides), then the command line. ``resolve_config`` merges them
and returns a ``TrainConfig``; every bad value raises one ``UserError`` line that names the setting and
what is allowed (``gameshelf train`` prints it and exits with status 2).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gameshelf.training.cli_util import UserError

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
OPPONENTS = ("random", "heuristic", "reference", "self")
MIX_KINDS = ("snapshots", "heuristic", "reference", "random")
"""Besides these, ``opponent``, the self-play mix and ``eval.opponents`` take MCTS agent names (``mcts:N``,
``mcts:Ts``, ``mcts:N:heuristic``, ``mcts:N:reference``, ``mcts:N:reference:heuristic``, ``mcts:N:model:PATH``;
see ``training.agents.mcts``). ``reference`` (the network shipped for the game, ``training.agents.network_agent``) must
exist for the run's game."""
MCTS_FORMS = (
    "an MCTS agent name (mcts:N, mcts:Ts, mcts:N:heuristic, mcts:N:reference, mcts:N:reference:heuristic or mcts:N:model:PATH)"
)
MAX_SEED = 2**32 - 1

DEFAULTS: dict[str, Any] = {
    "players": None,
    "timesteps": 200_000,
    "n_envs": 8,
    "vec_env": "dummy",
    "reward": "outcome",
    "reward_scale": 1.0,
    "observation": "flat",
    "policy": "default",
    "opponent": "self",
    "torch_threads": 1,
    "selfplay": {
        "snapshot_every": 25_000,
        "pool_size": 5,
        "mix": {"snapshots": 0.5, "heuristic": 0.25, "random": 0.25},
    },
    "ppo": {
        "learning_rate": 3.0e-4,
        "n_steps": 256,
        "batch_size": 512,
        "n_epochs": 4,
        "gamma": 0.99,
        "gae_lambda": 0.95,
        "ent_coef": 0.01,
        "clip_range": 0.2,
        "vf_coef": 0.5,
        "net_arch": [128, 128],
        "features_dim": 256,
    },
    "eval": {"every": 25_000, "games": 100, "opponents": ["random", "heuristic"]},
    "expert": {
        "iterations": 10,
        "games": 16,
        "simulations": 32,
        "leaf_value": 0.0,
        "c_puct": 1.5,
        "noise_alpha": 0.3,
        "noise_fraction": 0.25,
        "temperature_moves": 8,
        "warm_games": 100,
        "warm_random": 0.1,
        "hidden": [128, 128],
        "cell_features": 8,
        "learning_rate": 1.0e-3,
        "epochs": 4,
        "batch_size": 256,
        "window": 4,
        "eval_games": 10,
    },
    "checkpoint_every": 50_000,
    "keep_checkpoints": 3,
    "game_options": {},
}
"""Every setting with its default; a config file may only name these (``game_options`` and
``selfplay.mix`` are free-form mappings, checked against the game and ``MIX_KINDS``)."""

_FREE_FORM = ("game_options", "mix")


# ---- typed settings ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SelfPlayConfig:
    snapshot_every: int
    pool_size: int
    mix: dict[str, float]


@dataclass(frozen=True)
class PPOConfig:
    learning_rate: float
    n_steps: int
    batch_size: int
    n_epochs: int
    gamma: float
    gae_lambda: float
    ent_coef: float
    clip_range: float
    vf_coef: float
    net_arch: list[int]
    features_dim: int

    def algorithm_kwargs(self, n_envs: int) -> dict[str, Any]:
        """Keyword arguments of ``MaskablePPO`` (the policy's shape excluded)."""
        kwargs = dataclasses.asdict(self)
        del kwargs["net_arch"], kwargs["features_dim"]
        kwargs["batch_size"] = min(self.batch_size, self.n_steps * n_envs)
        return kwargs


@dataclass(frozen=True)
class EvalConfig:
    every: int
    games: int
    opponents: list[str]


@dataclass(frozen=True)
class ExpertConfig:
    """The ``expert`` backend's settings (``gameshelf.training.expert``)."""

    iterations: int | None
    games: int
    simulations: int
    leaf_value: float
    c_puct: float
    noise_alpha: float
    noise_fraction: float
    temperature_moves: int
    warm_games: int
    warm_random: float
    hidden: list[int]
    cell_features: int
    learning_rate: float
    epochs: int
    batch_size: int
    window: int
    eval_games: int


@dataclass(frozen=True)
class TrainConfig:
    """A run's resolved settings (``config.yaml`` of a run folder is ``to_dict()``)."""

    env_id: str
    seed: int
    players: int
    timesteps: int
    n_envs: int
    vec_env: str
    reward: str
    reward_scale: float
    observation: str
    policy: str
    opponent: str
    torch_threads: int
    selfplay: SelfPlayConfig
    ppo: PPOConfig
    eval: EvalConfig
    checkpoint_every: int
    keep_checkpoints: int
    game_options: dict[str, Any] = field(default_factory=dict)
    expert: ExpertConfig = field(default_factory=lambda: _expert(DEFAULTS["expert"]))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def with_timesteps(self, timesteps: int) -> TrainConfig:
        _positive_int(timesteps, "timesteps")
        return dataclasses.replace(self, timesteps=timesteps)


# ---- reading and merging -------------------------------------------------------------------------------
def game_name(env_id: str) -> str:
    return env_id.rsplit("-v", 1)[0]


def merge(base: dict[str, Any], override: Any, where: str) -> dict[str, Any]:
    """``override`` laid over ``base``; an unknown key raises a ``UserError`` listing the known ones."""
    if not isinstance(override, dict):
        raise UserError(f"{where} must be a mapping of settings, got {_short(override)}")
    out = copy.deepcopy(base)
    for key, value in override.items():
        name = f"{where}.{key}" if where else str(key)
        if key not in base:
            raise UserError(f"unknown setting {name!r}; allowed: {', '.join(sorted(base))}")
        if isinstance(base[key], dict) and key not in _FREE_FORM:
            if not isinstance(value, dict):
                raise UserError(f"{name} must be a mapping with keys {', '.join(base[key])}, got {_short(value)}")
            out[key] = merge(base[key], value, name)
        else:
            out[key] = copy.deepcopy(value)
    return out


def read_yaml(file: Path) -> dict[str, Any]:
    """A YAML mapping from ``file``; unreadable or invalid files raise a one-line ``UserError``."""
    import yaml

    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except OSError as err:
        raise UserError(f"cannot read config {str(file)!r}: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise UserError(f"config {str(file)!r} is not UTF-8 text") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(err, "problem", None) or type(err).__name__
        raise UserError(f"config {str(file)!r} is not valid YAML: {problem}{where}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise UserError(f"config {str(file)!r} must be a mapping of settings, got {_short(data)}")
    return data


def load_config(env_id: str, path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Defaults, then ``training/configs/<game>.yaml`` (or ``path``), as a plain dict (not yet checked)."""
    config = copy.deepcopy(DEFAULTS)
    file = Path(path) if path is not None else CONFIG_DIR / f"{game_name(env_id)}.yaml"
    if path is None and not file.exists():
        return config
    data = read_yaml(file)
    data.pop("env_id", None)
    data.pop("seed", None)
    return merge(config, data, "")


def resolve_config(
    env_id: str,
    config: str | os.PathLike[str] | dict[str, Any] | None = None,
    *,
    seed: int = 0,
    overrides: dict[str, Any] | None = None,
    backend_settings: dict[str, Any] | None = None,
) -> TrainConfig:
    """The checked settings of a new run: defaults, the game's file (or ``config``), then ``overrides``.

    ``backend_settings`` (a backend's measured settings, e.g. the batched backend's) lie over the game's own
    file and under a dict ``config`` and ``overrides``; a config file given as ``config`` is taken as written.
    """
    from gameshelf.training.cli_util import check_env_id

    check_env_id(env_id)
    if isinstance(config, dict) or config is None:
        merged = merge(merge(load_config(env_id), backend_settings or {}, ""), config or {}, "")
    else:
        merged = load_config(env_id, config)
    merged = merge(merged, {k: v for k, v in (overrides or {}).items() if v is not None}, "")
    return from_dict(env_id, seed, merged)


def from_dict(env_id: str, seed: Any, data: dict[str, Any]) -> TrainConfig:
    """Check every setting of ``data`` (a full settings mapping) and build the ``TrainConfig``."""
    from gameshelf.training.cli_util import check_env_id

    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise UserError(f"seed={_short(seed)} is not allowed; allowed values: an integer from 0 to {MAX_SEED}")
    d = merge(DEFAULTS, data, "")
    if d["players"] is not None:
        _positive_int(d["players"], "players")
    players = check_env_id(env_id, d["players"])
    for key in ("timesteps", "n_envs", "torch_threads", "checkpoint_every", "keep_checkpoints"):
        _positive_int(d[key], key)
    opponent = d["opponent"]
    if _is_mcts(opponent):
        _mcts_name(opponent, "opponent", env_id)
    elif not isinstance(opponent, str) or opponent not in OPPONENTS:
        raise UserError(f"opponent={_short(opponent)} is not allowed; allowed values: {', '.join(OPPONENTS)}, {MCTS_FORMS}")
    elif opponent == "reference":
        _reference(env_id, "opponent")
    choices = {
        "vec_env": ("dummy", "subproc"),
        "reward": ("outcome", "score"),
        "observation": ("flat", "planes"),
        "policy": ("default", "fully_conv"),
    }
    for key, allowed in choices.items():
        _choice(d[key], key, allowed)
    reward_scale = _number(d["reward_scale"], "reward_scale", "a positive number", lambda x: x > 0)
    game_options = _game_options(env_id, players, d["game_options"])

    sp = d["selfplay"]
    selfplay = SelfPlayConfig(
        snapshot_every=_positive_int(sp["snapshot_every"], "selfplay.snapshot_every"),
        pool_size=_positive_int(sp["pool_size"], "selfplay.pool_size"),
        mix=_mix(sp["mix"], env_id),
    )
    p = d["ppo"]
    ppo = PPOConfig(
        learning_rate=_number(p["learning_rate"], "ppo.learning_rate", "a positive number, e.g. 3.0e-4", lambda x: x > 0),
        n_steps=_positive_int(p["n_steps"], "ppo.n_steps"),
        batch_size=_positive_int(p["batch_size"], "ppo.batch_size"),
        n_epochs=_positive_int(p["n_epochs"], "ppo.n_epochs"),
        gamma=_number(p["gamma"], "ppo.gamma", "a number in (0, 1]", lambda x: 0 < x <= 1),
        gae_lambda=_number(p["gae_lambda"], "ppo.gae_lambda", "a number in [0, 1]", lambda x: 0 <= x <= 1),
        ent_coef=_number(p["ent_coef"], "ppo.ent_coef", "a number >= 0", lambda x: x >= 0),
        clip_range=_number(p["clip_range"], "ppo.clip_range", "a positive number", lambda x: x > 0),
        vf_coef=_number(p["vf_coef"], "ppo.vf_coef", "a number >= 0", lambda x: x >= 0),
        net_arch=_net_arch(p["net_arch"]),
        features_dim=_positive_int(p["features_dim"], "ppo.features_dim"),
    )
    e = d["eval"]
    opponents = e["opponents"]
    if not isinstance(opponents, list) or any(
        o not in ("random", "heuristic", "reference") and not _is_mcts(o) for o in opponents
    ):
        raise UserError(
            f"eval.opponents={_short(opponents)} is not allowed; allowed values: a list of random, heuristic, reference, "
            f"{MCTS_FORMS}"
        )
    for name in opponents:
        if _is_mcts(name):
            _mcts_name(name, "eval.opponents", env_id)
        elif name == "reference":
            _reference(env_id, "eval.opponents")
    evaluation = EvalConfig(
        every=_positive_int(e["every"], "eval.every"),
        games=_positive_int(e["games"], "eval.games"),
        opponents=list(opponents),
    )
    return TrainConfig(
        env_id=env_id,
        seed=seed,
        players=players,
        timesteps=d["timesteps"],
        n_envs=d["n_envs"],
        vec_env=d["vec_env"],
        reward=d["reward"],
        reward_scale=reward_scale,
        observation=d["observation"],
        policy=d["policy"],
        opponent=opponent,
        torch_threads=d["torch_threads"],
        selfplay=selfplay,
        ppo=ppo,
        eval=evaluation,
        checkpoint_every=d["checkpoint_every"],
        keep_checkpoints=d["keep_checkpoints"],
        game_options=game_options,
        expert=_expert(d["expert"]),
    )


def _expert(x: dict[str, Any]) -> ExpertConfig:
    def count(key: str) -> int:  # a number of at least 0
        value = x[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise UserError(f"expert.{key}={_short(value)} is not allowed; allowed values: an integer >= 0")
        return value

    def fraction(key: str) -> float:
        return _number(x[key], f"expert.{key}", "a number in [0, 1]", lambda v: 0 <= v <= 1)

    def positive(key: str) -> float:
        return _number(x[key], f"expert.{key}", "a positive number", lambda v: v > 0)

    hidden = x["hidden"]
    if (
        not isinstance(hidden, list)
        or not hidden
        or len(hidden) > 8
        or any(isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 4096 for v in hidden)
    ):
        raise UserError(
            f"expert.hidden={_short(hidden)} is not allowed; allowed values: 1 to 8 layer widths (1..4096), e.g. [128, 128]"
        )
    cell = count("cell_features")
    if cell > 256:
        raise UserError(f"expert.cell_features={cell} is not allowed; allowed values: an integer from 0 to 256 (0: no cell map)")
    return ExpertConfig(
        iterations=None if x["iterations"] is None else count("iterations"),
        games=_positive_int(x["games"], "expert.games"),
        simulations=_positive_int(x["simulations"], "expert.simulations"),
        leaf_value=fraction("leaf_value"),
        c_puct=positive("c_puct"),
        noise_alpha=positive("noise_alpha"),
        noise_fraction=fraction("noise_fraction"),
        temperature_moves=count("temperature_moves"),
        warm_games=count("warm_games"),
        warm_random=fraction("warm_random"),
        hidden=list(hidden),
        cell_features=cell,
        learning_rate=positive("learning_rate"),
        epochs=_positive_int(x["epochs"], "expert.epochs"),
        batch_size=_positive_int(x["batch_size"], "expert.batch_size"),
        window=_positive_int(x["window"], "expert.window"),
        eval_games=count("eval_games"),
    )


# ---- checks ---------------------------------------------------------------------------------------------
def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UserError(f"{name}={_short(value)} is not allowed; allowed values: a positive integer")
    return value


def _number(value: Any, name: str, allowed: str, ok: Any) -> float:
    # PyYAML reads ``3e-4`` (no dot) as a string: accept a string that is plainly a number.
    number: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            number = None
    if number is None or not math.isfinite(number) or not ok(number):
        raise UserError(f"{name}={_short(value)} is not allowed; allowed values: {allowed}")
    return number


def _choice(value: Any, name: str, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise UserError(f"{name}={_short(value)} is not allowed; allowed values: {', '.join(allowed)}")
    return value


def _net_arch(value: Any) -> list[int]:
    if (
        not isinstance(value, list)
        or not value
        or len(value) > 16
        or any(isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 65536 for v in value)
    ):
        raise UserError(
            f"ppo.net_arch={_short(value)} is not allowed; allowed values: "
            "a non-empty list of layer widths (integers 1..65536), e.g. [128, 128]"
        )
    return list(value)


def _mix(value: Any, env_id: str | None = None) -> dict[str, float]:
    allowed = f"a mapping of {', '.join(MIX_KINDS)} to weights >= 0, not all 0"
    if not isinstance(value, dict):
        raise UserError(f"selfplay.mix={_short(value)} is not allowed; allowed values: {allowed}")
    out: dict[str, float] = {}
    for key, weight in value.items():
        if _is_mcts(key):
            _mcts_name(key, "selfplay.mix", env_id)
        elif key not in MIX_KINDS:
            raise UserError(f"selfplay.mix: unknown opponent kind {key!r}; allowed: {', '.join(MIX_KINDS)}, {MCTS_FORMS}")
        out[key] = _number(weight, f"selfplay.mix.{key}", "a number >= 0", lambda x: x >= 0)
        if key == "reference" and out[key] > 0 and env_id is not None:
            _reference(env_id, "selfplay.mix")
    if not any(w > 0 for w in out.values()):
        raise UserError(f"selfplay.mix={_short(value)} is not allowed; allowed values: {allowed}")
    return out


def _is_mcts(value: Any) -> bool:
    return isinstance(value, str) and (value == "mcts" or value.startswith("mcts:"))


def _mcts_name(value: str, name: str, env_id: str | None = None) -> str:
    """Check an MCTS agent name (its budget, that a ``:model:PATH`` file exists and, with ``env_id``, that a
    ``:reference`` network is shipped for the game) without building it."""
    from gameshelf.training.agents.mcts import parse_mcts_name

    try:
        parsed = parse_mcts_name(value)
    except ValueError as err:
        raise UserError(f"{name}: {err}") from None
    if parsed["model"] is not None and not Path(parsed["model"]).is_file():
        raise UserError(f"{name}: {value!r} names a model file that does not exist: {parsed['model']}")
    if parsed["reference"] and env_id is not None:
        _reference(env_id, name)
    return value


def _reference(env_id: str, name: str) -> None:
    """``UserError`` unless a reference network is shipped for ``env_id`` (the file is read when played)."""
    from gameshelf.training.agents.network_agent import reference_file

    try:
        reference_file(env_id)
    except ValueError as err:
        raise UserError(f"{name}: {err}") from None


def _game_options(env_id: str, players: int, options: Any) -> dict[str, Any]:
    from gameshelf import envs

    if not isinstance(options, dict):
        raise UserError(f"game_options={_short(options)} is not allowed; allowed values: a mapping of game options")
    if "num_players" in options:
        raise UserError("game_options.num_players is not allowed; set the player count with players (or --players)")
    try:
        envs.make_game(env_id, num_players=players, **options)
    except (ValueError, TypeError) as err:
        raise UserError(f"game_options: {err}") from None
    return dict(options)

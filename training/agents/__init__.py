"""Baseline agents behind one interface (``Agent``, from ``gameshelf.envs.core.agent``).

``make_agent(name, env_id)`` builds ``"random"``, ``"heuristic"`` (the game's own heuristic, in its
``envs/<game>/heuristic.py``), ``"reference"`` (the small network shipped for the game, see
``training.agents.network_agent``), a saved model (``"model:PATH"``: a network file when PATH ends in ``.npz``, else
a MaskablePPO model), a policy trained with RLlib (``"rllib:PATH"``, needs the rllib extra) or Monte Carlo
tree search (``"mcts:N"``, ``"mcts:N:heuristic"``, ``"mcts:N:reference"``, ``"mcts:N:reference:heuristic"``,
``"mcts:N:model:PATH"``, ``"mcts:Ts"``: see ``training.agents.mcts``), or an agent that plays through text
(``"llm:MODEL@URL"``: a model on an OpenAI-compatible chat server; ``"callable:MODULE:FACTORY"``: a function
of your own from prompt text to reply text; see ``training.agents.llm``).
"""

from __future__ import annotations

from typing import Any

from gameshelf.training.agents.base import Agent, RandomAgent, heuristic_agent

FORMS = (
    "'random', 'heuristic', 'reference', 'model:PATH' (PATH.npz: a network file), 'rllib:PATH', 'mcts:N', "
    "'mcts:N:heuristic', 'mcts:N:reference', 'mcts:N:reference:heuristic', 'mcts:N:model:PATH', 'mcts:Ts', "
    "'llm:MODEL@URL' or 'callable:MODULE:FACTORY'"
)
"""The agent names ``make_agent`` takes, for error messages."""


def make_agent(name: str, env_id: str, **kwargs: Any) -> Agent:
    """Build an agent by name; the agent's ``name`` is ``name``.

    * ``random``; ``heuristic``: the game's own heuristic (``envs/<game>/heuristic.py``);
    * ``reference``: the network shipped in the package for the game (``training/reference/<game>.npz``): a
      small policy-and-value network (architecture in ``training.numpy_net``) trained by ``gameshelf train ID
      --backend expert``, loaded weights-only; a game without one is a ``ValueError`` listing those with one;
    * ``model:PATH``: a network file when PATH ends in ``.npz`` (``NetAgent``, always weights-only:
      ``trust_model`` does not apply), else a saved MaskablePPO model (``LearnedAgent``);
    * ``rllib:PATH``: an RLlib policy (the rllib extra);
    * ``mcts:...``: Monte Carlo tree search (``mcts:N``, ``mcts:Ts``, ``mcts:N:heuristic``,
      ``mcts:N:reference``, ``mcts:N:reference:heuristic``, ``mcts:N:model:PATH``; see ``training.agents.mcts``);
    * ``llm:MODEL@URL``: MODEL on the OpenAI-compatible chat server at URL (its base, e.g.
      ``http://127.0.0.1:8080/v1``; API key from ``GAMESHELF_LLM_API_KEY`` or ``OPENAI_API_KEY``);
      ``callable:MODULE:FACTORY``: ``FACTORY()`` from MODULE returns a function prompt text -> reply text. Both
      read replies as moves, re-ask after an invalid one and then play a random legal move, counted in
      ``agent.stats`` (``training.agents.llm``; kwargs ``reasks``, ``seed``, ``timeout``, ``retries``, ...).

    ``kwargs`` go to the agent (``deterministic`` for learned agents, ``trust_model`` for SB3 models).
    """
    if name == "random":
        return RandomAgent()
    if name == "heuristic":
        return heuristic_agent(env_id, **kwargs)
    if name == "reference":
        from gameshelf.training.agents.network_agent import reference_agent

        kwargs.pop("trust_model", None)
        kwargs.setdefault("name", name)
        return reference_agent(env_id, **kwargs)
    if name.startswith("model:"):
        path = name.removeprefix("model:")
        from gameshelf.training.numpy_net import is_net_file

        if is_net_file(path):
            from gameshelf.training.agents.network_agent import NetAgent

            kwargs.pop("trust_model", None)  # a network file is arrays only, never unpickled
            kwargs.setdefault("name", name)
            return NetAgent(path, env_id, **kwargs)
        from gameshelf.training.agents.learned import LearnedAgent

        return LearnedAgent(path, env_id, **kwargs)
    if name.startswith("rllib:"):
        from gameshelf.training.rllib.agent import RLlibAgent

        return RLlibAgent(name.removeprefix("rllib:"), env_id, **kwargs)
    if name == "mcts" or name.startswith("mcts:"):
        from gameshelf.training.agents.mcts import make_mcts_agent

        return make_mcts_agent(name, env_id, **kwargs)
    if name.startswith(("llm:", "callable:")):
        from gameshelf.training.agents.llm import make_text_agent

        return make_text_agent(name, env_id, **kwargs)
    raise ValueError(f"unknown agent {name!r}; use {FORMS}")


__all__ = ["FORMS", "Agent", "RandomAgent", "make_agent"]

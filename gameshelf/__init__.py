"""gameshelf: reinforcement-learning environments for modern tabletop games.

    import gameshelf
    env = gameshelf.make("level_x-v0", num_players=3)       # a PettingZoo AEC environment
    gameshelf.registered_ids()                               # every environment id

Subpackages: ``gameshelf.envs`` (rules engines, the AEC environment, the registry), ``gameshelf.wrappers``
(views for learners: the single-seat Gymnasium env), ``gameshelf.training`` (agents, training,
evaluation, ratings); the front ends ``gameshelf.cli`` (the ``gameshelf`` command), ``gameshelf.play``
(the terminal), ``gameshelf.replay`` (records and GIFs), ``gameshelf.web`` (the browser app),
``gameshelf.demo`` and ``gameshelf.bench`` (benchmarks). Importing ``gameshelf`` registers every id with
PettingZoo's registry (``pettingzoo.make("aec", "gameshelf/koplus-v0")``) and the single-seat view with Gymnasium's
(``gymnasium.make("gameshelf/koplus-v0", opponents="random")``); it imports no game, no torch and no
rendering library.
"""

from gameshelf.envs import EnvSpec, IllegalActionError, make, make_game, register, registered_ids, spec

__version__ = "0.1.0"

__all__ = ["EnvSpec", "IllegalActionError", "__version__", "make", "make_game", "register", "registered_ids", "spec"]

"""gameshelf environments: PettingZoo AEC environments for modern tabletop games.

    from gameshelf import envs
    env = envs.make("level_x-v0", num_players=3)

Importing this package imports no game, no torch and no rendering library: the table below names each
game's engine as a string, loaded when an environment is made.
"""

from gameshelf.envs.core.game import IllegalActionError
from gameshelf.envs.registration import EnvSpec, make, make_game, register, registered_ids, spec

# One line per environment id: the engine (module:Game class), the heuristic agent (module:Agent class).
# Player counts come from each game's num_players option; the training config is training/configs/<game>.yaml.
_E, _A = "gameshelf.envs", "gameshelf.training.agents"
register(
    "level_x-v0",
    f"{_E}.level_x.rules:LevelXGame",
    heuristic=f"{_A}.level_x:LevelXHeuristic",
    description="Level X: dice grouping race on six tracks",
)
register(
    "amoriax-v0",
    f"{_E}.amoriax.rules:AmoriaxGame",
    heuristic=f"{_A}.amoriax:AmoriaxHeuristic",
    description="Amoriax: abstract race to the crown square",
)
register(
    "koplus-v0",
    f"{_E}.koplus.rules:KoPlusGame",
    heuristic=f"{_A}.koplus:KoPlusHeuristic",
    description="KoPlus: pentomino nets catching aliens",
)
register("paiko-v0", f"{_E}.paiko.rules:PaikoGame", heuristic=f"{_A}.paiko:PaikoHeuristic",
         description="Paikō: deploy and shift tiles, capture by threat, race to 10 points")  # fmt: skip
register("olenon-v0", f"{_E}.olenon.rules:OlenonGame", heuristic=f"{_A}.olenon:OlenonHeuristic",
         description="Olenon: team shedding card game")  # fmt: skip

__all__ = ["EnvSpec", "IllegalActionError", "make", "make_game", "register", "registered_ids", "spec"]

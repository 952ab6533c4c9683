"""gameshelf environments: PettingZoo AEC environments for modern tabletop games.

    from gameshelf import envs
    env = envs.make("level_x-v0", num_players=3)

Importing this package imports no game, no torch and no rendering library: the table below names each
game's engine as a string, loaded when an environment is made.
"""

from gameshelf.envs.core.game import IllegalActionError
from gameshelf.envs.registration import EnvSpec, make, make_game, register, registered_ids, spec

# id                    engine (module:Game class)                    player counts (first = default)
register(
    "level_x-v0", "gameshelf.envs.level_x.rules:LevelXGame", (2, 3, 4), description="Level X: dice grouping race on six tracks"
)
register("amoriax-v0", "gameshelf.envs.amoriax.rules:AmoriaxGame", (2,), description="Amoriax: abstract race to the crown square")
register("koplus-v0", "gameshelf.envs.koplus.rules:KoPlusGame", (2, 3, 4), description="KoPlus: pentomino nets catching aliens")
register("olenon-v0", "gameshelf.envs.olenon.rules:OlenonGame", (4,), description="Olenon: team shedding card game")

__all__ = ["EnvSpec", "IllegalActionError", "make", "make_game", "register", "registered_ids", "spec"]

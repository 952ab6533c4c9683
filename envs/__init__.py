"""gameshelf environments: PettingZoo AEC environments for modern tabletop games.

    from gameshelf import envs
    env = envs.make("level_x-v0", num_players=3)

Importing this package imports no game, no torch and no rendering library: the table below names each
game's engine as a string, loaded when an environment is made.
"""

from gameshelf.envs.core.game import IllegalActionError
from gameshelf.envs.registration import EnvSpec, batched_ids, make, make_game, register, registered_ids, spec, unregister

# One line per environment id: its engine (a Game class under gameshelf.envs) and a description. Player counts
# come from each game's num_players option; the heuristic agent is the game's heuristic.py (found by convention,
# spec(id).load_heuristic()); the training config is training/configs/<game>.yaml. Whether an id can be batched
# is read from its game (spec(id).batched: its rules are compiled kernels), not listed here.
GAMES = (
    ("level_x-v0", "level_x.game:LevelXGame", "Level X: dice grouping race on six tracks"),
    ("amoriax-v0", "amoriax.game:AmoriaxGame", "Amoriax: abstract race to the crown square"),
    ("koplus-v0", "koplus.game:KoPlusGame", "KoPlus: pentomino nets catching aliens"),
    ("olenon-v0", "olenon.game:OlenonGame", "Olenon: team shedding card game"),
    ("cargo_empire-v0", "cargo_empire.game:CargoEmpireGame", "Cargo Empire: cargo deliveries by truck, train and ship"),
    ("matchstick_tycoon-v0", "matchstick_tycoon.game:MatchstickGame", "Matchstick Tycoon: climbing card game with 7-segment cards"),
    ("range_ta_ludotheque-v0", "range_ta_ludotheque.game:RangeTaLudothequeGame", "Range Ta Ludothèque: roll and write, boxes in a Kallax shelf"),
    ("tsukuru_ten_ten-v0", "tsukuru_ten_ten.game:TsukuruTenTenGame", "Tsukuru 10 Ten: make a hand worth exactly 10"),
    ("paiko-v0", "paiko.game:PaikoGame", "Paikō: deploy and shift tiles, capture by threat, race to 10 points"),
    ("paiko-v1", "paiko.game:PaikoGameV1", "Paikō with a compact observation: board planes and a vector of the rest"),
    ("catsle_builders-v0", "catsle_builders.game:CatsleGame", "CATsle Builders: trick taking to fill castle columns up to their limits"),
)  # fmt: skip
for _id, _engine, _description in GAMES:
    register(_id, f"gameshelf.envs.{_engine}", description=_description)

__all__ = [
    "EnvSpec",
    "IllegalActionError",
    "batched_ids",
    "make",
    "make_game",
    "register",
    "registered_ids",
    "spec",
    "unregister",
]

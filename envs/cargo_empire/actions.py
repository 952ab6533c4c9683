"""Action numbering of Cargo Empire, move names and the phases of a turn (shared by the engine, the card and the agents).

| actions | meaning |
|---|---|
| 0-11 | ``start <city>``: begin a delivery from this city |
| 12 | ``pass`` |
| 13-24 | ``to <city>``: the delivery's destination |
| 25-42 | ``pay ...``: one of the legal minimal payments (``routes.ALL_PAYMENTS`` order) |
| 43-45 | ``bonus Truck`` / ``bonus Train`` / ``bonus Ship``: the vehicle of the next bonus move |
"""

from __future__ import annotations

from gameshelf.envs.cargo_empire import data as D
from gameshelf.envs.cargo_empire.data import CITIES, NUM_CITIES, VEHICLES
from gameshelf.envs.cargo_empire.routes import ALL_PAYMENTS, Payment

START_BASE = 0
PASS = NUM_CITIES
DEST_BASE = PASS + 1
PAY_BASE = DEST_BASE + NUM_CITIES
BONUS_BASE = PAY_BASE + len(ALL_PAYMENTS)
NUM_ACTIONS = BONUS_BASE + len(VEHICLES)
PAYMENT_INDEX: dict[Payment, int] = {p: i for i, p in enumerate(ALL_PAYMENTS)}


def payment_text(payment: Payment) -> str:
    parts = [f"{n} {VEHICLES[v]}" for v, n in enumerate(payment) if n]
    return " + ".join(parts)


def action_text(action: int) -> str:
    if action < PASS:
        return f"start {CITIES[action]}"
    if action == PASS:
        return "pass"
    if action < PAY_BASE:
        return f"to {CITIES[action - DEST_BASE]}"
    if action < BONUS_BASE:
        return f"pay {payment_text(ALL_PAYMENTS[action - PAY_BASE])}"
    return f"bonus {VEHICLES[action - BONUS_BASE]}"


# ---- phases: the decision of the player to move, and the chance draws pending ---------------------
# decision phases of the player to move
START, DEST, PAY, BONUS = "start", "dest", "pay", "bonus"
PHASES = (START, DEST, PAY, BONUS)
# chance draws (queue entries [kind, who])
TILE, PUBLIC, STARTPOST = "tile", "public", "start_post"
DRAW_KINDS = (TILE, PUBLIC, STARTPOST, D.DRAW_TRANSPORT, D.DRAW_CITY, D.DRAW_GOAL)

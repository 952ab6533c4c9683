"""Matchstick Tycoon.

{observation_table}
"""

from gameshelf.envs.matchstick_tycoon.observation import LAYOUT

__doc__ = (__doc__ or "").replace("{observation_table}", LAYOUT.table())

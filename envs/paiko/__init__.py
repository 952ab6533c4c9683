"""Paikō (card placeholder)

{observation_table}
"""

from gameshelf.envs.paiko.observation import LAYOUT

__doc__ = (__doc__ or "").replace("{observation_table}", LAYOUT.table())

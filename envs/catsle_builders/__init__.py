"""CATsle Builders.

{observation_table}
"""

from gameshelf.envs.catsle_builders.observation import LAYOUT

__doc__ = (__doc__ or "").replace("{observation_table}", LAYOUT.table())

"""Range Ta Ludothèque: roll and write, store your game collection in a Kallax shelf.

{observation_table}
"""

from gameshelf.envs.range_ta_ludotheque.observation import LAYOUT

__doc__ = (__doc__ or "").replace("{observation_table}", LAYOUT.table())

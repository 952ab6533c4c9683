"""Views of gameshelf environments for learners.

* ``SingleSeatEnv``: one seat as a ``gymnasium.Env``, every other seat played inside ``step()`` by
  opponent agents; the learner's own reward; ``action_masks()`` for ``MaskablePPO``.
* ``FlattenObservation`` / ``ChannelsFirstObservation``: observation layouts for MLP and small-CNN policies.

    from gameshelf.wrappers import SingleSeatEnv, FlattenObservation
    env = FlattenObservation(SingleSeatEnv("level_x-v0", opponents="random"))
"""

from gameshelf.wrappers.observations import ChannelsFirstObservation, FlattenObservation, to_policy_input
from gameshelf.wrappers.single_seat import SingleSeatEnv

__all__ = ["ChannelsFirstObservation", "FlattenObservation", "SingleSeatEnv", "to_policy_input"]

"""Training on Ray RLlib (needs the ``rllib`` extra): the same games, masks and evaluation as SB3 training.

* ``env``: the AEC environments through RLlib's ``PettingZooEnv``, observations under RLlib's key names.
* ``batched_env``: batched env runners, many games of a kernel game stepped in one call (a gymnasium vector env).
* ``module``: PPO's default network with the illegal actions' logits masked; a masked random module.
* ``league``: one shared policy (self-play against frozen snapshots) or one policy per seat.
* ``train``: the ``rllib`` backend of ``gameshelf train <id> --backend rllib`` (local Ray or a cluster with
  ``--address``; Ctrl-C saves a checkpoint, ``--resume`` continues the run).
* ``agent``: trained policies (saved as JSON and weights by ``gameshelf.training.model_io``) loaded as the
  agent ``rllib:PATH``.

Importing this package does not import Ray; its modules do. See docs/scaling.md.
"""

"""Training and evaluation: agents, the trainers behind one ``train`` (SB3, batched, RLlib), their configs and
run folders, evaluation and ratings. The front ends that use them (the command line, terminal play, replays,
the web server, the demo, the benchmarks) live beside this package, in ``gameshelf``."""

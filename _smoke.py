import time

import numpy as np

from gameshelf.wrappers.batched import BatchedSingleSeatVecEnv

for opp in ("random", "heuristic"):
    env = BatchedSingleSeatVecEnv("level_x-v0", num_envs=8, opponents=opp, seed=0)
    obs = env.reset()
    total = np.zeros(8)
    finished = []
    t = time.perf_counter()
    steps = 0
    while len(finished) < 40:
        masks = env.action_masks()
        acts = np.array([np.random.choice(np.flatnonzero(m)) for m in masks])
        obs, r, d, info = env.step(acts)
        total += r
        steps += 8
        for i in np.flatnonzero(d):
            finished.append(total[i])
            total[i] = 0
            assert "terminal_observation" in info[i]
    print(opp, "mean return random learner", np.mean(finished), "steps/s", steps / (time.perf_counter() - t))

import time, numpy as np, numba
from gameshelf import vector
from gameshelf.envs.core.kernel import seed_generators, masked_random
for env_id in ("level_x-v0", "olenon-v0"):
    for N in (1, 64, 1024, 8192):
        env = vector.make(env_id, num_envs=N, seed=0); env.reset()
        rngs = seed_generators(1, N)
        env.step(env.random_actions(rngs))
        reps = max(1, 200000 // N)
        c = time.process_time(); w = time.perf_counter()
        for _ in range(reps):
            env.step(env.random_actions(rngs))
        cpu = time.process_time() - c; wall = time.perf_counter() - w
        print(f"{env_id} N={N}: {reps*N/cpu:,.0f} decisions per CPU-second ({reps*N/wall:,.0f} per wall second)")

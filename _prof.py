import time, numpy as np, numba
from gameshelf import vector
from gameshelf.envs.core.kernel import seed_generators, masked_random
from gameshelf.envs.level_x import kernel as K
N=1024
env = vector.make("level_x-v0", num_envs=N, seed=0); env.reset()
rng = seed_generators(1, N)
out=np.empty(N,np.int64)
masked_random(env._masks, rng, out)
def timeit(f, reps=400):
    f(); t=time.process_time()
    for _ in range(reps): f()
    return (time.process_time()-t)/reps/N*1e9
@numba.njit
def obs_all(S, obs):
    for i in range(S.shape[0]):
        K.observation(S, i, S[i, K.CUR], obs)
@numba.njit
def mask_all(S, m):
    for i in range(S.shape[0]):
        K.legal_mask(S, i, m)
@numba.njit
def floor(obs):
    for i in range(obs.shape[0]):
        for k in range(212):
            obs[i, k] = 0.0
        for k in range(0, 212, 7):
            obs[i, k] = 1.0
S2 = env.states.copy()
@numba.njit
def apply_all(S, acts, rngs):
    for i in range(S.shape[0]):
        if K.is_legal(S, i, acts[i]):
            K.apply(S, i, acts[i])
            K.resolve_chance(S, i, rngs)
def ks():
    masked_random(env._masks, rng, out)
    K.batch_step(env.states, env.rngs, env._initial, out, env._all, 2000, env._players, env._flat_obs, env._masks, env._rewards, env._terminated, env._truncated)
for _ in range(2):
    print("masked_random", timeit(lambda: masked_random(env._masks, rng, out)),
      "obs", timeit(lambda: obs_all(env.states, env._flat_obs)),
      "mask", timeit(lambda: mask_all(env.states, env._masks)),
      "floor", timeit(lambda: floor(env._flat_obs)),
      "apply", timeit(lambda: apply_all(S2, out, rng)),
      "kernel step+random", timeit(ks), "py step+random", timeit(lambda: env.step(env.random_actions(rng))))

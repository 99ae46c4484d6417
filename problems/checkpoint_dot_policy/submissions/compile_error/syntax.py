import jax

def checkpoint_dot_policy(w1, w2, x)
    return x

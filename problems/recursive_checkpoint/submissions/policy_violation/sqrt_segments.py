import math

import jax
import jax.numpy as jnp


def sin_chain(x, depth):
    # Flat segments of about sqrt(depth) links: O(sqrt(D)) memory, not O(log D).
    size = max(1, int(math.isqrt(depth)))

    def segment(v, k):
        for _ in range(k):
            v = jnp.sin(v)
        return v

    done = 0
    while done < depth:
        k = min(size, depth - done)
        x = jax.checkpoint(lambda v, k=k: segment(v, k))(x)
        done += k
    return x

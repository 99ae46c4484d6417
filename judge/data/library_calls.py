"""What a library call in a compiled program came from, in the words a learner wrote it.

A ``custom_call`` names a routine of a library XLA links (``lapack_sgesdd_ffi``); a learner wrote
``jnp.linalg.svd``. The cost walk reports such calls by target (``Cost.opaque_calls``), since their
work is not in the program it reads; the message names them as the learner knows them.
"""

from __future__ import annotations

import re

# LAPACK's routine names after the precision letter (s, d, c, z), and the jnp function behind each.
_LAPACK = {
    "gesdd": "jnp.linalg.svd",
    "gesvd": "jnp.linalg.svd",
    "geqrf": "jnp.linalg.qr",
    "geqp3": "jnp.linalg.qr",
    "orgqr": "jnp.linalg.qr",
    "ungqr": "jnp.linalg.qr",
    "syevd": "jnp.linalg.eigh",
    "heevd": "jnp.linalg.eigh",
    "geev": "jnp.linalg.eig",
    "getrf": "jnp.linalg.inv, solve or det",
    "potrf": "jnp.linalg.cholesky",
    "trsm": "a triangular solve (jax.scipy.linalg.solve_triangular, or inside inv and solve)",
    "gees": "jax.scipy.linalg.schur",
    "gehrd": "jax.scipy.linalg.hessenberg",
    "sytrd": "jnp.linalg.eigh",
    "hetrd": "jnp.linalg.eigh",
}
_CALLBACK = re.compile(r"callback", re.IGNORECASE)


def _source(target: str) -> str | None:
    """What the learner wrote that calls ``target``; None when it is not known."""
    found = re.fullmatch(r"lapack_[sdcz]([a-z]+?)(_ffi)?", target)
    if found and found.group(1) in _LAPACK:
        return _LAPACK[found.group(1)]
    if _CALLBACK.search(target):
        return "a host callback such as jax.pure_callback"
    return None


def listed(targets) -> str:
    """The calls as the learner wrote them, each with the routines it ran: ``jnp.linalg.qr
    (lapack_sgeqrf_ffi, lapack_sorgqr_ffi)``; a routine of no known source by its own name."""
    by_source: dict[str, list[str]] = {}
    unknown: list[str] = []
    for target in dict.fromkeys(targets):
        source = _source(target)
        if source is None:
            unknown.append(f"the library routine {target}")
        else:
            by_source.setdefault(source, []).append(target)
    names = [f"{source} ({', '.join(routines)})" for source, routines in by_source.items()] + unknown
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

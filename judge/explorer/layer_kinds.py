"""Which of the learner's labelled names belong to a block's attention and which to its MLP, read
from the names alone (``checkpoint_name(q, "q")``, ``"attn_out"``, ``"mlp_up"``), so that the
explorer can offer a policy per layer kind: the attention's names saved and the MLP recomputed,
and the reverse. Nothing is run: a name is put in a group by its words, and a name whose words
point to neither group, or to both, is in neither."""

from __future__ import annotations

import re

# The words a name is read by: its lowercase runs of letters (and digits), split at anything else
# ("q_proj" is q and proj, "attn_out" attn and out), trailing digits dropped ("w1" is w).
ATTENTION = frozenset(
    {
        "q",
        "k",
        "v",
        "qk",
        "kv",
        "qkv",
        "query",
        "key",
        "value",
        "queries",
        "keys",
        "values",
        "attn",
        "attention",
        "scores",
        "heads",
        "context",
    }
)
MLP = frozenset({"mlp", "up", "gate", "down", "ffn", "ff", "fc", "hidden", "intermediate", "swiglu", "gelu"})


def _words(name: str) -> set[str]:
    return {w.rstrip("0123456789") or w for w in re.split(r"[^a-z0-9]+", name.lower()) if w}


def layer_kinds(names: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names of the attention group and of the MLP group, each in the source's order."""
    attention, mlp = [], []
    for name in names:
        words = _words(name)
        is_attention, is_mlp = bool(words & ATTENTION), bool(words & MLP)
        if is_attention and not is_mlp:
            attention.append(name)
        elif is_mlp and not is_attention:
            mlp.append(name)
    return tuple(attention), tuple(mlp)

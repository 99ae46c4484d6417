"""The plans the explorer tries: each checkpoint policy JAX ships, and placements of checkpoints
in a stack of blocks; each with the code that applies it, in the learner's terms."""

from __future__ import annotations

from dataclasses import dataclass

from . import explore_loops

AS_WRITTEN = "as written"
POLICY_ARG = "__plan"
BLOCKS = "blocks"  # a plan that places checkpoints in the learner's scan over its blocks
SEGMENT_SIZES = (2, 3, 4)  # "every k blocks": a few k, the sizes a stack of a dozen blocks splits into


@dataclass(frozen=True)
class Plan:
    kind: str  # AS_WRITTEN, BLOCKS or a name in jax.checkpoint_policies
    names: tuple[str, ...] = ()
    placement: str = ""  # BLOCKS only: "every", a segment size such as "3", or "nested"

    @property
    def key(self) -> str:
        if self.kind == BLOCKS:
            return f"{BLOCKS}:{self.placement}"
        return f"{self.kind}:{','.join(self.names)}"

    @property
    def label(self) -> str:
        if self.kind == BLOCKS:
            return {
                "every": "checkpoint every block",
                "nested": "nested: sqrt(N) segments, every block in them",
            }.get(self.placement, f"checkpoint every {self.placement} blocks")
        return self.kind if not self.names else f"{self.kind}({', '.join(repr(n) for n in self.names)})"

    @property
    def offloads(self) -> bool:
        return self.kind.startswith(("offload", "save_and_offload"))

    def code(
        self, function: str, block: str = "block", loop: explore_loops.Loop | None = None, library: str = "function"
    ) -> str:
        """The change that applies the plan to ``function`` (``block``: the function its scan
        runs; ``loop``: its Python loop over blocks, where it has one instead; ``library``: where
        ``function`` is a module, "equinox" or "nnx", whose checkpoint the code uses)."""
        if self.kind == AS_WRITTEN:
            return f"{function}  # as written: no checkpoint added"
        if self.kind == BLOCKS:
            return explore_loops.placement_code(self.placement, loop) if loop else placement_code(self.placement, block)
        cp = "jax.checkpoint_policies"
        names = ", ".join(repr(n) for n in self.names)
        policy = {
            "save_only_these_names": f"{cp}.save_only_these_names({names})",
            "save_any_names_but_these": f"{cp}.save_any_names_but_these({names})",
            "offload_dot_with_no_batch_dims": f'{cp}.offload_dot_with_no_batch_dims("device", "pinned_host")',
            "save_and_offload_only_these_names": (
                f"{cp}.save_and_offload_only_these_names(names_which_can_be_saved=(), names_which_can_be_offloaded="
                f'({names},), offload_src="device", offload_dst="pinned_host")'
            ),
        }.get(self.kind, f"{cp}.{self.kind}")
        if library == "equinox":  # the module's arrays traced as arguments, the rest kept static
            return f"eqx.filter_checkpoint({function}, policy={policy})(...)  # in place of {function}(...)"
        if library == "nnx":
            return (
                f"nnx.remat(lambda module, *inputs: module(*inputs), policy={policy})({function}, ...)"
                f"  # in place of {function}(...)"
            )
        return f"jax.checkpoint({function}, policy={policy})"


def placement_code(placement: str, block: str) -> str:
    """The scan over the blocks rewritten for a placement, in the learner's terms (``h`` the
    carry, ``layers`` the stacked weights: the learner's own names are theirs to put back)."""
    if placement == "every":
        return f"h, ys = jax.lax.scan(jax.checkpoint({block}), h, layers)"
    nested = placement == "nested"
    inner = f"jax.checkpoint({block})" if nested else block
    lines = ["k = round(math.sqrt(n_blocks))  # blocks per segment" if nested else f"k = {placement}"]
    lines += [
        "",
        "@jax.checkpoint",
        "def segment(h, part):  # k blocks, rebuilt together on the way back",
        f"    return jax.lax.scan({inner}, h, part)",
        "",
        "# (with a number of blocks k does not divide, run the rest as one more segment)",
        "parts = jax.tree.map(lambda a: a.reshape(-1, k, *a.shape[1:]), layers)",
        "h, ys = jax.lax.scan(segment, h, parts)",
    ]
    return "\n".join(lines)


def plans(names: list[str], offload: bool = True, blocks: bool = False) -> list[Plan]:
    """Every plan tried: the function as written, each policy JAX ships that takes no arguments,
    and, per labelled name, saving only it and saving all but it (and all of them, offloaded);
    for a function that scans over its blocks (or loops over them in Python, ``explore_loops``),
    checkpoints placed in that scan or loop: every block, segments of a few blocks, and segments
    of sqrt(N) with every block inside checkpointed too.
    (No placement is the function as written, for a scan whose blocks have no checkpoint.)
    ``save_anything_except_these_names`` is left out: in JAX 0.10.2 it drops its names and saves
    everything, the same row as everything_saveable."""
    found = [Plan(AS_WRITTEN)] + [
        Plan(k)
        for k in ("everything_saveable", "nothing_saveable", "dots_saveable", "dots_with_no_batch_dims_saveable")
    ]
    for name in names:
        found += [Plan("save_only_these_names", (name,)), Plan("save_any_names_but_these", (name,))]
    if len(names) > 1:
        found.append(Plan("save_only_these_names", tuple(names)))
    if offload:
        found.append(Plan("offload_dot_with_no_batch_dims"))
        if names:
            found.append(Plan("save_and_offload_only_these_names", tuple(names)))
    if blocks:
        found += [Plan(BLOCKS, placement=p) for p in ("every", *map(str, SEGMENT_SIZES), "nested")]
    return found

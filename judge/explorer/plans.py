"""The plans the explorer tries: each checkpoint policy JAX ships, placements of checkpoints in a
stack of blocks, placements with a policy inside each checkpoint, and a policy per layer kind
(the attention's names saved, the MLP recomputed, or the reverse); each with the code that
applies it, in the learner's terms."""

from __future__ import annotations

from dataclasses import dataclass

from . import loops as explore_loops
from .layer_kinds import layer_kinds

AS_WRITTEN = "as written"
POLICY_ARG = "__plan"
BLOCKS = "blocks"  # a plan that places checkpoints in the learner's scan over its blocks
SEGMENT_SIZES = (2, 3, 4)  # "every k blocks": a few k, the sizes a stack of a dozen blocks splits into
PLACED = "blocks+policy"  # a placement whose checkpoints each carry a policy
# A placement with a policy is tried at two placements: a checkpoint per block (the lowest peak
# short of nesting) and segments of sqrt(N) blocks (the segment size that balances the block inputs
# kept against the blocks rebuilt at once), with the policies most used inside them: the products
# saved (with and without those that have a batch axis) and, where the source labels values, those
# names saved. Each plan costs a trace in the child and a walk and a compilation in the verifier, so
# this is at most 2 x 3 = 6 plans, and a policy per layer kind at most 2 x 2 = 4 more: a stack with
# six names gets 35 plans in all, not the hundreds every placement by every policy would make.
PLACED_AT = ("every", "sqrt")
PLACED_POLICIES = ("dots_saveable", "dots_with_no_batch_dims_saveable")
ATTENTION_KEPT, MLP_KEPT = "attention kept, MLP recomputed", "MLP kept, attention recomputed"


@dataclass(frozen=True)
class Plan:
    kind: str  # AS_WRITTEN, BLOCKS, PLACED or a name in jax.checkpoint_policies
    names: tuple[str, ...] = ()  # the policy's names
    # BLOCKS and PLACED: "every", a segment size such as "3", "nested" (BLOCKS) or "sqrt" (PLACED)
    placement: str = ""
    policy: str = ""  # PLACED only: the policy inside each checkpoint, a name in jax.checkpoint_policies
    group: str = ""  # what a policy per layer kind keeps and recomputes, in words (ATTENTION_KEPT)

    @property
    def key(self) -> str:
        if self.kind == BLOCKS:
            return f"{BLOCKS}:{self.placement}"
        if self.kind == PLACED:
            return f"{PLACED}:{self.placement}:{self.policy}:{','.join(self.names)}"
        return f"{self.kind}:{','.join(self.names)}"

    @property
    def label(self) -> str:
        if self.kind == BLOCKS:
            return {
                "every": "checkpoint every block",
                "nested": "nested: sqrt(N) segments, every block in them",
            }.get(self.placement, f"checkpoint every {self.placement} blocks")
        policy = _policy_label(self.policy if self.kind == PLACED else self.kind, self.names)
        if self.kind == PLACED:
            where = "checkpoint every block" if self.placement == "every" else "checkpoint sqrt(N) segments"
            policy = f"{where} with {policy}"
        return f"{policy}: {self.group}" if self.group else policy

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
        if self.kind == PLACED:
            policy = policy_code(self.policy, self.names)
            return (
                placed_loop_code(self.placement, loop, policy)
                if loop
                else placement_code(self.placement, block, policy)
            )
        policy = policy_code(self.kind, self.names)
        if library == "equinox":  # the module's arrays traced as arguments, the rest kept static
            return f"eqx.filter_checkpoint({function}, policy={policy})(...)  # in place of {function}(...)"
        if library == "nnx":
            return (
                f"nnx.remat(lambda module, *inputs: module(*inputs), policy={policy})({function}, ...)"
                f"  # in place of {function}(...)"
            )
        return f"jax.checkpoint({function}, policy={policy})"


def _policy_label(kind: str, names: tuple[str, ...]) -> str:
    return kind if not names else f"{kind}({', '.join(repr(n) for n in names)})"


def policy_code(kind: str, names: tuple[str, ...]) -> str:
    """The policy object, as the learner writes it."""
    cp = "jax.checkpoint_policies"
    listed = ", ".join(repr(n) for n in names)
    return {
        "save_only_these_names": f"{cp}.save_only_these_names({listed})",
        "save_any_names_but_these": f"{cp}.save_any_names_but_these({listed})",
        "offload_dot_with_no_batch_dims": f'{cp}.offload_dot_with_no_batch_dims("device", "pinned_host")',
        "save_and_offload_only_these_names": (
            f"{cp}.save_and_offload_only_these_names(names_which_can_be_saved=(), names_which_can_be_offloaded="
            f'({listed},), offload_src="device", offload_dst="pinned_host")'
        ),
    }.get(kind, f"{cp}.{kind}")


def placement_code(placement: str, block: str, policy: str = "") -> str:
    """The scan over the blocks rewritten for a placement, in the learner's terms (``h`` the
    carry, ``layers`` the stacked weights: the learner's own names are theirs to put back);
    ``policy``: the policy inside each checkpoint placed, as code ("" for none)."""
    if placement == "every":
        checkpointed = f"jax.checkpoint({block}, policy={policy})" if policy else f"jax.checkpoint({block})"
        return f"h, ys = jax.lax.scan({checkpointed}, h, layers)"
    nested = placement == "nested"
    inner = f"jax.checkpoint({block})" if nested else block
    by_sqrt = nested or placement == "sqrt"
    lines = ["k = round(math.sqrt(n_blocks))  # blocks per segment" if by_sqrt else f"k = {placement}"]
    lines += [
        "",
        f"@partial(jax.checkpoint, policy={policy})" if policy else "@jax.checkpoint",
        "def segment(h, part):  # k blocks, rebuilt together on the way back",
        f"    return jax.lax.scan({inner}, h, part)",
        "",
        "# (with a number of blocks k does not divide, run the rest as one more segment)",
        "parts = jax.tree.map(lambda a: a.reshape(-1, k, *a.shape[1:]), layers)",
        "h, ys = jax.lax.scan(segment, h, parts)",
    ]
    return "\n".join(lines)


def _replace_last(code: str, old: str, new: str) -> str:
    # the line the placement's code ends with, not the learner's body quoted above it
    before, found, after = code.rpartition(old)
    if not found:
        raise ValueError(f"no {old!r} in the placement's code")
    return before + new + after


def placed_loop_code(placement: str, loop: explore_loops.Loop, policy: str) -> str:
    """The learner's loop with a checkpoint per turn (``every``) or per sqrt(N) turns (``sqrt``),
    ``policy`` inside each: the placement's code (``explore_loops.placement_code``) with the policy
    given to its checkpoints."""
    target = ", ".join(loop.targets)
    if placement == "every":
        code = explore_loops.placement_code("every", loop)
        return _replace_last(code, f"(partial(turn, {target}))", f"(partial(turn, {target}), policy={policy})")
    code = explore_loops.placement_code("2", loop)  # segments, of a size set here
    code = _replace_last(code, "\nk = 2\n", "\nk = round(math.sqrt(len(items)))  # turns per segment\n")
    part = "partial(segment, items[start:start + k])"
    return _replace_last(code, f"({part})", f"({part}, policy={policy})")


def _by_layer_kind(names: list[str], blocks: bool) -> list[Plan]:
    """A policy per layer kind, where the names fall in both groups: the attention's names saved
    and the MLP's recomputed, and the reverse; on the whole function and, in a stack of blocks,
    inside a checkpoint per block."""
    attention, mlp = layer_kinds(names)
    if not attention or not mlp:
        return []
    found = []
    for kept, group in ((attention, ATTENTION_KEPT), (mlp, MLP_KEPT)):
        found.append(Plan("save_only_these_names", kept, group=group))
        if blocks:
            found.append(Plan(PLACED, kept, placement="every", policy="save_only_these_names", group=group))
    return found


def plans(names: list[str], offload: bool = True, blocks: bool = False) -> list[Plan]:
    """Every plan tried: the function as written, each policy JAX ships that takes no arguments,
    and, per labelled name, saving only it and saving all but it (and all of them, offloaded);
    for a function that scans over its blocks (or loops over them in Python, ``explore_loops``),
    checkpoints placed in that scan or loop: every block, segments of a few blocks, and segments
    of sqrt(N) with every block inside checkpointed too; and those placements with a policy
    inside each checkpoint (``PLACED_AT`` by ``PLACED_POLICIES`` and the names). Where the names
    fall into attention and MLP groups (``explore_layer_kinds``), a policy per layer kind: one
    group's names saved, the other's recomputed (a plan that saves the same names as one tried
    already takes its place, with the group in its label).
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
        inside = [(p, ()) for p in PLACED_POLICIES] + ([("save_only_these_names", tuple(names))] if names else [])
        found += [Plan(PLACED, n, placement=at, policy=p) for at in PLACED_AT for p, n in inside]
    keys = [p.key for p in found]
    for plan in _by_layer_kind(names, blocks):
        if plan.key in keys:  # saving these names is a plan already: it gets the group's words
            found[keys.index(plan.key)] = plan
        else:
            found.append(plan)
    return found

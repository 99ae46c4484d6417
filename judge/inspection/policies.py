"""A checkpoint's policy, known by identity: JAX's own policy objects, as they were when the judge
started, and the combinations JAX's own factories make of them.

Everything here is bound at import, in the zygote, before any submission exists (``REGISTRY``).
A policy is recognised by what it is, never by what it says about itself: the very object, or an
instance of JAX's own class whose fields have exactly their declared types, or a closure whose
code is the code of one of JAX's factories. Nothing of the object is called (no ``__eq__``, no
``__repr__``): a look-alike cannot answer for itself. A recognised policy is rebuilt from the
registry (``Policy.rebuilt``) and that object is the one the program runs with, so what is
recognised is exactly what runs. Anything else is the submission's own policy, named by its
code's name and line, which ``functools.wraps`` does not change.
"""

from __future__ import annotations

import types
from dataclasses import dataclass

from ..data import policy_names
from .jax_internals import _ac, checkpoint_policies

_FUNCTION = types.FunctionType


@dataclass(frozen=True)
class Policy:
    canonical: tuple  # policy_names' canonical form; ("custom", name) for the submission's own
    rebuilt: object = None  # JAX's object for it, when it is one of JAX's (else None: keep the submission's)
    origin: str = "jax"  # "jax", "yours" (a function or class of the submission), "forged" (JAX's class, wrong fields)
    line: int | None = None  # where the submission's own policy is defined

    @property
    def text(self) -> str:
        return policy_names.render(self.canonical)


class _Registry:
    """JAX's policy objects and the code of the pieces they are made of, as the judge found them."""

    def __init__(self, cp):
        self.cp = cp
        self.plain = {name: getattr(cp, name) for name in policy_names.PLAIN}
        self.classes = {
            cls: cls.__dict__["__call__"]
            for cls in (_ac.DotsSaveable, _ac.SaveOnlyTheseNames, _ac.SaveAnyNamesButThese)
        }
        self.factories = {name: getattr(cp, name) for name in policy_names.WITH_NAMES + policy_names.WITH_POLICIES}
        self.codes = {
            fn: fn.__code__
            for fn in [
                *self.classes.values(),
                *self.factories.values(),
                cp.everything_saveable,
                cp.nothing_saveable,
                cp.offload_dot_with_no_batch_dims,
                cp.save_and_offload_only_these_names,
            ]
        }
        self.both = cp.save_from_both_policies(cp.nothing_saveable, cp.nothing_saveable).__code__
        self.except_names = cp.save_anything_except_these_names().__code__
        # JAX's offloading policies are closures of their factories: known by their code.
        self.offload_dots = cp.offload_dot_with_no_batch_dims("device", "pinned_host").__code__
        self.offload_names = cp.save_and_offload_only_these_names(
            names_which_can_be_saved=(),
            names_which_can_be_offloaded=(),
            offload_src="device",
            offload_dst="pinned_host",
        ).__code__
        # a factory passed where its policy belongs (``factory_name``)
        self.factory_names = {
            id(fn): (fn, name)
            for name, fn in [*self.factories.items(), *((name, getattr(cp, name)) for name in policy_names.OFFLOADING)]
        }

    def intact(self) -> bool:
        """Nothing of it was changed in place (by string-keyed reflection, say) since the judge started."""
        return all(cls.__dict__.get("__call__") is call for cls, call in self.classes.items()) and all(
            fn.__code__ is code for fn, code in self.codes.items()
        )


REGISTRY = _Registry(checkpoint_policies)
_CHANGED = Policy(("custom", "JAX's policies, changed by your code"), origin="forged")


def describe(policy, filename: str) -> Policy:
    if not REGISTRY.intact():
        return _CHANGED
    return _describe(policy, filename)


def _names(value) -> tuple | None:
    if type(value) is not frozenset or not all(type(n) is str for n in value):
        return None
    return tuple(sorted(value))


def factory_name(policy) -> str | None:
    """The name of the JAX factory ``policy`` is (a factory passed where its policy belongs), or None."""
    known = REGISTRY.factory_names.get(id(policy))
    return known[1] if known is not None and known[0] is policy else None


def _cells(policy, code) -> dict:
    return dict(zip(code.co_freevars, (cell.cell_contents for cell in policy.__closure__ or ())))


def _offloading(policy, code) -> Policy:
    """JAX's offloading policy, read from what its factory closed over (memories as strings, names
    as sets of strings, exclusive), and made again by the factory from those."""
    cp, cells = REGISTRY.cp, _cells(policy, code)
    src, dst = cells.get("offload_src"), cells.get("offload_dst")
    if type(src) is not str or type(dst) is not str:
        return Policy(("custom", f"{code.co_name} with memories that are not strings"), origin="forged")
    if code is REGISTRY.offload_dots:
        return Policy(policy_names.offload_dots(src, dst), cp.offload_dot_with_no_batch_dims(src, dst))
    saved, offloaded = (cells.get(k) for k in ("names_which_can_be_saved", "names_which_can_be_offloaded"))
    if not all(type(v) is set and all(type(n) is str for n in v) for v in (saved, offloaded)) or saved & offloaded:
        return Policy(("custom", f"{code.co_name} with names that are not two sets of strings"), origin="forged")
    saved, offloaded = tuple(sorted(saved)), tuple(sorted(offloaded))
    rebuilt = cp.save_and_offload_only_these_names(
        names_which_can_be_saved=saved, names_which_can_be_offloaded=offloaded, offload_src=src, offload_dst=dst
    )
    return Policy(policy_names.offload_names(saved, offloaded, src, dst), rebuilt)


def _describe(policy, filename: str) -> Policy:
    cp = REGISTRY.cp
    if policy is None:
        return Policy(policy_names.plain("nothing_saveable"), None)
    for name, known in REGISTRY.plain.items():
        if policy is known:
            return Policy(policy_names.plain(name), known)
    kind = type(policy)
    if kind is _ac.DotsSaveable:
        field = policy.__dict__.get("only_if_no_batch_dims")
        if type(field) is bool:
            name = "dots_with_no_batch_dims_saveable" if field else "dots_saveable"
            return Policy(policy_names.plain(name), REGISTRY.plain[name])
        return Policy(("custom", f"DotsSaveable({type(field).__name__})"), origin="forged")
    if kind in (_ac.SaveOnlyTheseNames, _ac.SaveAnyNamesButThese):
        factory = "save_only_these_names" if kind is _ac.SaveOnlyTheseNames else "save_any_names_but_these"
        names = _names(next(iter(policy.__dict__.values()), None))
        if names is None:
            return Policy(("custom", f"{kind.__name__} with names that are not all strings"), origin="forged")
        return Policy(policy_names.with_names(factory, names), getattr(cp, factory)(*names))
    if kind is _FUNCTION:
        code = policy.__code__
        if code is REGISTRY.both:
            cells = _cells(policy, code)
            first, second = _describe(cells["policy_1"], filename), _describe(cells["policy_2"], filename)
            rebuilt = None
            if first.rebuilt is not None and second.rebuilt is not None:
                rebuilt = cp.save_from_both_policies(first.rebuilt, second.rebuilt)
            return Policy(
                policy_names.both(first.canonical, second.canonical), rebuilt, "jax" if rebuilt is not None else "yours"
            )
        if code is REGISTRY.except_names:
            # JAX 0.10.2 drops the names here (the policy saves everything), so none can be read.
            return Policy(
                policy_names.with_names("save_anything_except_these_names", ()), cp.save_anything_except_these_names()
            )
        if code is REGISTRY.offload_dots or code is REGISTRY.offload_names:
            return _offloading(policy, code)
        line = code.co_firstlineno if code.co_filename == filename else None
        return Policy(("custom", code.co_name), origin="yours", line=line)
    return Policy(("custom", kind.__name__), origin="yours")

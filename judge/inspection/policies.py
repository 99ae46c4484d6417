"""A checkpoint's policy object, as the traced program holds it, named in ``policy_names``' canonical form."""
from __future__ import annotations

import inspect

from .. import policy_names
from .jax_internals import _KNOWN_POLICIES, _ac


def describe_policy(policy) -> tuple:
    """A live policy object -> the canonical form used by ``policy_names``.

    Identity is checked by exact type and JAX's own equality, never by calling the submitted
    object's ``__eq__``, so a policy look-alike cannot claim to be a standard one.
    """
    if policy is None:
        return policy_names.plain("nothing_saveable")
    for name, known in _KNOWN_POLICIES.items():
        if policy is known or (type(policy) is type(known) and type(known) is _ac.DotsSaveable
                               and known.__eq__(policy) is True):
            return policy_names.plain(name)
    if type(policy) is _ac.SaveOnlyTheseNames:
        return policy_names.with_names("save_only_these_names", policy.saveable_names)
    if type(policy) is _ac.SaveAnyNamesButThese:
        return policy_names.with_names("save_any_names_but_these", policy.names)
    qualname = getattr(policy, "__qualname__", "") if inspect.isfunction(policy) else ""
    module = getattr(policy, "__module__", "")
    if module == _ac.__name__ and qualname.startswith("save_from_both_policies."):
        cells = inspect.getclosurevars(policy).nonlocals
        return policy_names.both(describe_policy(cells["policy_1"]), describe_policy(cells["policy_2"]))
    if module == _ac.__name__ and qualname.startswith("save_anything_except_these_names."):
        # JAX 0.10.2 drops the names here (the policy saves everything), so none can be read.
        return policy_names.with_names("save_anything_except_these_names", ())
    return ("custom", qualname or type(policy).__name__)

"""The run-time guard: the builtins a submission runs with, and the modules it sees.

The static gate (``judge.in_child.gate``) refuses what a submission may not name; this module enforces the
same rules while it runs, for what the static check cannot see:

* an ``import`` statement gets a *view* of an allowed module: a module object holding the names
  of ``judge.in_child.allowed`` and nothing else (no ``typing.sys``, no ``functools.update_wrapper``),
  whose submodules are views too;
* any other call of ``__import__`` gets nothing back. C code calls it while a submission's frame
  is current (numpy imports lazily), and reads the module from ``sys.modules`` itself; a
  submission that reached the function by some other path learns nothing from it;
* the builtins the gate refuses (``getattr``, ``eval``, ``open``...) refuse whoever calls them;
* ``type`` answers ``type(x)`` but does not build classes: ``type(name, bases, namespace)``
  would give a class double-underscore methods from string keys, which a class statement in a
  submission cannot have. For a class, ``type(cls)`` is this ``type`` again, so that no
  metaclass reaches the submission to build one either.

It is the second wall, not the last: an escape through object internals ignores it, the
operating system layers of ``judge.sandbox`` contain what gets through, and the numbers are
recomputed where no submitted code ran (``judge.in_child.verify``).
"""

from __future__ import annotations

import builtins
import dis
import functools
import importlib
import sys
import types

from . import allowed
from .gate import DENIED_BUILTINS, THREE_ARGUMENT_TYPE

_IMPORT_NAME = dis.opmap["IMPORT_NAME"]
# Builtins that only the interactive interpreter or the import system need.
_DROPPED = ("__loader__", "__spec__", "copyright", "credits", "license")


def restricted_builtins() -> dict:
    """A fresh builtins dictionary for one module of submitted code (its views are its own)."""
    restricted = {k: v for k, v in vars(builtins).items() if k not in _DROPPED}
    for name in DENIED_BUILTINS:
        if name in restricted:
            restricted[name] = _refusing(name)
    restricted["type"] = SubmissionType
    restricted["__import__"] = _Importer().__call__
    return restricted


def _refusing(name: str):
    def refused(*args, **kwargs):
        raise NameError(f"name {name!r} is not allowed in submissions: {DENIED_BUILTINS[name]}")

    return refused


class _Importer:
    """``__import__`` for one submission: views for import statements, nothing for anyone else."""

    def __init__(self):
        self.views: dict[str, types.ModuleType] = {}

    def __call__(self, name, globals=None, locals=None, fromlist=(), level=0):
        caller = sys._getframe(1)
        if caller.f_code.co_code[caller.f_lasti] != _IMPORT_NAME:
            # C code importing for itself while submitted code runs (numpy's lazy imports): it
            # takes the module from sys.modules. Whoever else called gets no module.
            builtins.__import__(name, globals, locals, fromlist, level)
            return None
        if level:
            raise ImportError("relative imports are not allowed in submissions: a submission is a single file")
        if not allowed.module_allowed(name):
            raise ImportError(
                f"import of {name!r} is not allowed in submissions: submissions may import only {allowed.SUMMARY}"
            )
        for item in fromlist or ():
            if item != "*" and not allowed.module_allowed(f"{name}.{item}") and allowed.name_refusal(name, item):
                raise ImportError(
                    f"`from {name} import {item}` is not allowed in submissions: {allowed.reason(name, item)}"
                )
        return self.view(name if fromlist else name.partition(".")[0])

    def view(self, name: str) -> types.ModuleType:
        if name not in self.views:
            self.views[name] = _make_view(name, self.view)
        return self.views[name]


def _make_view(name: str, view_of) -> types.ModuleType:
    real = importlib.import_module(name)
    names = allowed.MODULES[name]
    view = types.ModuleType(name, real.__doc__)
    for attribute in names:
        if not allowed.module_allowed(f"{name}.{attribute}"):
            view.__dict__[attribute] = _OWN.get((name, attribute)) or getattr(real, attribute)

    def missing(attribute: str):
        submodule = f"{name}.{attribute}"
        if attribute in names and allowed.module_allowed(submodule):
            view.__dict__[attribute] = view_of(submodule)
            return view.__dict__[attribute]
        if not hasattr(real, attribute):
            raise AttributeError(f"module {name!r} has no attribute {attribute!r}")
        raise AttributeError(allowed.name_refusal(name, attribute))

    view.__dict__["__getattr__"] = missing  # PEP 562: called for names the view does not hold
    return view


def wraps(wrapped):
    """``functools.wraps`` as submissions have it: the wrapper takes the wrapped function's name and
    docstring (and ``__wrapped__``, which signatures follow). Which attributes are copied is not
    the caller's to choose: copying attributes named by strings reaches anything."""

    def decorate(wrapper):
        if not isinstance(wrapper, types.FunctionType):
            raise TypeError("functools.wraps decorates a function defined with def or lambda")
        return functools.update_wrapper(wrapper, wrapped, assigned=("__name__", "__doc__"), updated=())

    return decorate


_OWN = {("functools", "wraps"): wraps}


class _TypeOfTypes(type):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, type)

    def __subclasscheck__(cls, subclass) -> bool:
        return issubclass(subclass, type)

    def __call__(cls, *args, **kwargs):
        if len(args) != 1 or kwargs:
            raise TypeError(THREE_ARGUMENT_TYPE)
        found = type(args[0])
        return cls if issubclass(found, type) else found


class SubmissionType(metaclass=_TypeOfTypes):
    """What the name ``type`` means in a submission (see the module's docstring)."""

    def __class_getitem__(cls, item):  # ``type[int]`` in an annotation
        return types.GenericAlias(type, item)

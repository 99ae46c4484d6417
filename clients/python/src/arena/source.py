"""What a submission sends is a Python module. From a notebook it is handier to hand over the
function itself; ``module_source`` then writes the module it needs: the imports of the modules
it uses (``jax``, ``jnp``), the literal constants it reads, the helper functions of the same
notebook or script it calls (their own needs too), the function, and when its name is not the
problem's entry point, an alias (``policy_mlp = my_try``).

What cannot be written back as source (a closure's variables, an array built in another cell, an
object of the notebook's) is refused with the name that needs it: pass the code as text then."""

from __future__ import annotations

import ast
import inspect
import os
import sys
import textwrap
import types
from pathlib import Path

LITERALS = (bool, int, float, complex, str, bytes, type(None))


class SourceError(ValueError):
    pass


def source_text(fn_or_source, *, entry: str | None = None) -> str:
    """The module to submit: text as given, a file's text (``pathlib.Path`` or ``os.PathLike``),
    or the module written around a function (``entry``: the problem's entry point)."""
    if isinstance(fn_or_source, str):
        return fn_or_source
    if isinstance(fn_or_source, os.PathLike):
        return Path(fn_or_source).read_text()
    if callable(fn_or_source):
        return module_source(fn_or_source, entry=entry)
    raise SourceError(f"expected the code as a string, a path or a function, not {type(fn_or_source).__name__}")


def _functions_code(code: types.CodeType):
    yield code
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _functions_code(constant)


def _decorator_names(source: str) -> list[str]:
    """Names the decorators use: they run where the function is defined, not in its code."""
    definition = ast.parse(source).body[0]
    return [
        node.id
        for decorator in getattr(definition, "decorator_list", [])
        for node in ast.walk(decorator)
        if isinstance(node, ast.Name)
    ]


def _global_names(function: types.FunctionType, source: str) -> list[str]:
    names = []
    for code in _functions_code(function.__code__):
        names += code.co_names
    return [name for name in dict.fromkeys(_decorator_names(source) + names) if name in function.__globals__]


def _is_literal(value) -> bool:
    if isinstance(value, LITERALS):
        try:
            return ast.literal_eval(repr(value)) == value
        except (ValueError, SyntaxError):
            return False
    if isinstance(value, (tuple, list, frozenset, set)):
        return all(_is_literal(item) for item in value)
    if isinstance(value, dict):
        return all(_is_literal(k) and _is_literal(v) for k, v in value.items())
    return False


def _public(module: str) -> bool:
    return bool(module) and not any(part.startswith("_") for part in module.split("."))


def _import_line(name: str, value) -> str | None:
    """``import jax.numpy as jnp`` for a module; ``from jax import checkpoint`` for an object that
    its public package (or module) exposes; None when neither holds it."""
    if isinstance(value, types.ModuleType):
        module = value.__name__
        return f"import {module}" if module == name else f"import {module} as {name}"
    module = getattr(value, "__module__", None) or ""
    original = getattr(value, "__name__", None)
    for candidate in filter(_public, dict.fromkeys([module.split(".")[0], module])):
        owner = sys.modules.get(candidate)
        if owner is not None and getattr(owner, name, None) is value:
            return f"from {candidate} import {name}"
        if owner is not None and original and getattr(owner, original, None) is value:
            return f"from {candidate} import {original} as {name}"
    return None


def _own_source(function: types.FunctionType) -> str:
    try:
        return textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        raise SourceError(
            f"cannot read the source of {function.__name__!r} (defined where Python keeps no "
            f"source, such as a plain interactive prompt): pass the code as a string"
        ) from None


def module_source(fn, *, entry: str | None = None) -> str:
    top = inspect.unwrap(fn)
    if not isinstance(top, types.FunctionType):
        raise SourceError(f"expected a function defined with def, not {type(fn).__name__}")
    if top.__name__ == "<lambda>":
        raise SourceError("a lambda has no name to submit: define the function with def, or pass its code as text")
    imports: dict[str, str] = {}
    constants: dict[str, str] = {}
    functions: dict[str, str] = {}

    def visit(function: types.FunctionType) -> None:
        if function.__code__.co_freevars:
            names = ", ".join(function.__code__.co_freevars)
            raise SourceError(
                f"{function.__name__!r} reads variables of an enclosing function ({names}); "
                f"define it at the top level, or pass the code as text"
            )
        functions[function.__name__] = _own_source(function)
        for name in _global_names(function, functions[function.__name__]):
            value = function.__globals__[name]
            if name in functions or name in imports or name in constants:
                continue
            local = inspect.unwrap(value) if callable(value) else value
            if isinstance(local, types.FunctionType) and local.__module__ == top.__module__:
                if local.__name__ != name:
                    raise SourceError(
                        f"{function.__name__!r} calls {name!r}, which is {local.__name__!r} under "
                        f"another name: call it by its own name, or pass the code as text"
                    )
                visit(local)
            elif (line := _import_line(name, value)) is not None:
                imports[name] = line
            elif _is_literal(value):
                constants[name] = f"{name} = {value!r}"
            else:
                raise SourceError(
                    f"{function.__name__!r} uses {name!r} ({type(value).__name__}), which cannot be "
                    f"written as source: compute it inside the function, or pass the code as text"
                )

    visit(top)
    entry_source = functions.pop(top.__name__)
    pieces = ["\n".join(sorted(imports.values())), "\n".join(constants.values()), *functions.values(), entry_source]
    if entry and entry != top.__name__:
        pieces.append(f"{entry} = {top.__name__}\n")
    return "\n\n".join(piece.strip("\n") for piece in pieces if piece.strip()) + "\n"

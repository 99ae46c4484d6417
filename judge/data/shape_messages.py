"""Requests that carry the types of the arrays instead of the arrays: the explorer's.

A grading sends generated inputs to the submission's child and to the verifier. The explorer
compares plans by what they hold and compute, which the programs' types decide, so its requests
carry each array argument as a dtype and a shape (``ArrayType``), however large: a GPT-2-sized
stack travels as a few numbers. The receiving side stands a placeholder in for each array, a
NumPy view of one zero broadcast to the shape (no memory of its own), which JAX traces and lowers
like the array it stands for and never reads (``placeholder``). Nothing is evaluated on them.

Each request wraps the grading's own (``ChildRequest``, ``VerifyRequest``) with its arrays left
out, so that the same code traces, exports and checks the programs (``judge.in_child.shapes``).

A module from a neural-network library (Equinox, Flax NNX) takes its parameters from itself: what
they are is known only by running the learner's code, so the parent first asks the submission's
child to describe the object (``DescribeModule``, answered by ``ModuleDescribed`` or ``Failed``):
its library, the types of its parameters (its floating-point array leaves, in the order of its
tree's leaves) by their paths, and the names of its call's inputs. The parent checks those types as
it checks the learner's own (``ArrayType``) before anything is traced with them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .messages import FILENAME, ChildRequest, Failed, VerifyRequest
from .records import Record
from .specs import numpy_dtype

FLOATING = ("float16", "bfloat16", "float32", "float64")


@dataclass
class ArrayType(Record):
    dtype: str
    shape: list[int]

    def _check(self) -> str | None:
        if self.dtype not in FLOATING:
            return f"dtype: {self.dtype!r} is not a floating dtype"
        if any(d < 0 for d in self.shape):
            return "shape: a negative size"
        return None


def placeholder(typed: ArrayType) -> np.ndarray:
    """An array of ``typed``'s dtype and shape that holds one element: a zero, broadcast."""
    return np.broadcast_to(np.zeros((), numpy_dtype(typed.dtype)), tuple(typed.shape))


@dataclass
class TraceShapes(Record):
    """The child's request: ``trace`` (its cases' array arguments ``None``) and, per case, the
    types of those arguments in order."""

    KIND: ClassVar[str] = "trace_shapes"

    trace: ChildRequest
    types: list[list[ArrayType]]

    @property
    def cases(self):
        return self.trace.cases

    def _check(self) -> str | None:
        if len(self.types) != len(self.trace.cases):
            return "types: one list per case"
        for case, types in zip(self.trace.cases, self.types):
            if sum(not s for s in case.static_mask) != len(types):
                return "types: one per array argument"
        return None

    def filled(self) -> ChildRequest:
        """``trace`` with a placeholder in each array argument's place."""
        for case, types in zip(self.trace.cases, self.types):
            arrays = iter(types)
            case.args = [v if s else placeholder(next(arrays)) for v, s in zip(case.args, case.static_mask)]
        return self.trace


@dataclass
class VerifyShapes(Record):
    """The verifier's request: ``verify`` (figures only: its cases' inputs and cotangents empty)
    and, per case, their types; ``compile_s``: how long compiling each plan's step alone for XLA's
    own memory and cost analysis may take in all (the plans past it keep the walk's figures only)."""

    KIND: ClassVar[str] = "verify_shapes"

    verify: VerifyRequest
    inputs: list[list[ArrayType]]
    cotangents: list[list[ArrayType]]
    compile_s: float = 0.0

    def _check(self) -> str | None:
        if self.verify.numbers:
            return "verify: figures only"
        if not len(self.inputs) == len(self.cotangents) == len(self.verify.cases):
            return "inputs: one list per case"
        return None

    def filled(self) -> VerifyRequest:
        for case, inputs, cotangents in zip(self.verify.cases, self.inputs, self.cotangents):
            case.inputs = [placeholder(t) for t in inputs]
            case.cotangent = [placeholder(t) for t in cotangents]
        return self.verify


FUNCTION, EQUINOX, NNX = "function", "equinox", "nnx"  # what a name the explorer is given stands for
MAX_PARAMETERS = 512  # leaves of a module taken as parameters


@dataclass
class DescribeModule(Record):
    """The child's request: what ``entry`` in ``source`` is (run in the sandbox, as a trace runs it)."""

    KIND: ClassVar[str] = "describe_module"

    source: str
    entry: str
    filename: str = FILENAME


MAX_PATH = 300  # characters of a parameter's path


@dataclass
class Parameter(Record):
    path: str  # where the leaf is in the module, as ``jax.tree_util.keystr`` writes it: ".layers[0].weight"
    array: ArrayType

    def _check(self) -> str | None:
        return f"path: at most {MAX_PATH} characters" if len(self.path) > MAX_PATH else None


@dataclass
class ModuleDescribed(Record):
    """What ``entry`` is: a plain callable (``FUNCTION``: no parameters of its own) or a module of
    ``EQUINOX`` or ``NNX`` whose call is explored, its parameters the arguments differentiated."""

    KIND: ClassVar[str] = "module_described"

    library: str
    parameters: list[Parameter]
    inputs: list[str]  # the call's positional parameters, by name

    def _check(self) -> str | None:
        if self.library not in (FUNCTION, EQUINOX, NNX):
            return f"library: {self.library!r}"
        if self.library == FUNCTION and self.parameters:
            return "parameters: a function has none of its own"
        if len(self.parameters) > MAX_PARAMETERS:
            return f"parameters: at most {MAX_PARAMETERS}"
        if len(self.inputs) > 64 or not all(n.isidentifier() and len(n) <= 100 for n in self.inputs):
            return "inputs: at most 64 names of parameters"
        return None


DESCRIBE_ANSWERS = {ModuleDescribed.KIND: ModuleDescribed, Failed.KIND: Failed}
SHAPE_REQUESTS = {TraceShapes.KIND: TraceShapes, VerifyShapes.KIND: VerifyShapes, DescribeModule.KIND: DescribeModule}

"""Argument specs such as ``f32[N,d]`` and the seeded inputs generated from them.

Inputs are always generated here, in the trusted process, from the case's seed: the child that
runs submitted code receives arrays, never the recipe or anything else about the problem.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

DTYPES = {
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "f64": "float64",
    "i32": "int32",
    "i64": "int64",
    "bool": "bool",
}
SHORT_NAMES = {v: k for k, v in DTYPES.items()}
DISTRIBUTIONS = ("normal", "uniform", "ones", "zeros", "arange")

_SPEC = re.compile(r"^\s*([a-z0-9]+)\[([^\]]*)\]\s*$")
_DIM = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+)$")


class SpecError(ValueError):
    """A spec string that does not parse; the message says what was expected."""


@dataclass(frozen=True)
class ArraySpec:
    dtype: str  # numpy dtype name, e.g. "float32"
    dims: tuple[str | int, ...]  # symbols or literal sizes

    @classmethod
    def parse(cls, text: str) -> "ArraySpec":
        match = _SPEC.match(text or "")
        if not match:
            raise SpecError(f"{text!r} is not a spec like 'f32[N,d]' or 'f32[]'")
        short, inner = match.groups()
        if short not in DTYPES:
            raise SpecError(f"unknown dtype {short!r} in {text!r}; expected one of {', '.join(DTYPES)}")
        dims: list[str | int] = []
        for part in (p.strip() for p in inner.split(",")) if inner.strip() else ():
            if not _DIM.match(part):
                raise SpecError(f"dimension {part!r} in {text!r} is neither a number nor a name")
            dims.append(int(part) if part.isdigit() else part)
        return cls(DTYPES[short], tuple(dims))

    def symbols(self) -> set[str]:
        return {d for d in self.dims if isinstance(d, str)}

    def shape(self, dims: dict[str, int]) -> tuple[int, ...]:
        return tuple(d if isinstance(d, int) else int(dims[d]) for d in self.dims)

    def __str__(self) -> str:
        return f"{SHORT_NAMES[self.dtype]}[{','.join(str(d) for d in self.dims)}]"


def numpy_dtype(name: str) -> np.dtype:
    """A dtype by its name; numpy itself does not know ``bfloat16`` (``ml_dtypes`` does)."""
    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def short_type(dtype: str, shape) -> str:
    """``float32`` and ``(8, 16)`` -> ``f32[8,16]``: the notation JAX and our pages use."""
    return f"{SHORT_NAMES.get(dtype, dtype)}[{','.join(str(int(d)) for d in shape)}]"


def generate(
    spec: ArraySpec, shape: tuple[int, ...], distribution: str, scale: float, rng: np.random.Generator
) -> np.ndarray:
    if distribution == "normal":
        data = rng.standard_normal(shape) * scale
    elif distribution == "uniform":
        data = rng.uniform(-scale, scale, shape)
    elif distribution == "ones":
        data = np.ones(shape) * scale
    elif distribution == "zeros":
        data = np.zeros(shape)
    elif distribution == "arange":
        data = np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape) * scale
    else:  # the package loader refuses unknown names; this guards direct callers
        raise SpecError(f"unknown distribution {distribution!r}")
    return data.astype(numpy_dtype(spec.dtype))

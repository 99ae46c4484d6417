"""The FLOPs of a traced program: every primitive that runs counts, by its rule.

Matrix products and convolutions count two operations per multiply-add, elementwise primitives
(transcendental ones included) one per element they make, reductions one per element they
combine, loops their body per iteration (``loop_trips``), conditionals their most expensive
branch, calls, checkpoints and custom derivatives the programs they hold (a checkpoint's
recomputation where the backward pass runs it); data movement costs nothing.
``tests/judge/test_cost.py`` holds the count to XLA's own analysis of the same programs.
"""

from __future__ import annotations

import numpy as np

from .jax_internals import _closed, jex_core
from .loop_trips import trip_count

# Data movement and bookkeeping: no arithmetic. Every other primitive without a rule below is
# elementwise, and costs one operation per element it makes (a transcendental counts one too).
FREE = {
    "reshape",
    "squeeze",
    "broadcast_in_dim",
    "transpose",
    "convert_element_type",
    "bitcast_convert_type",
    "copy",
    "slice",
    "dynamic_slice",
    "dynamic_update_slice",
    "concatenate",
    "pad",
    "gather",
    "scatter",
    "iota",
    "reduce_precision",
    "name",
    "optimization_barrier",
    "rev",
    "stop_gradient",
    "device_put",
    "split",
    "sharding_constraint",
    "dce_sink",
    "random_wrap",
    "random_unwrap",
    "random_seed",
}


def _size(aval) -> int:
    return int(np.prod(getattr(aval, "shape", ()), dtype=np.int64))


def _made(eqn) -> int:
    return sum(_size(v.aval) for v in eqn.outvars)


def _dot_general(eqn) -> float:
    (lhs_contract, _), _ = eqn.params["dimension_numbers"]
    lhs = eqn.invars[0].aval
    contracted = int(np.prod([lhs.shape[i] for i in lhs_contract], dtype=np.int64))
    return 2.0 * _size(eqn.outvars[0].aval) * contracted


def _window_taps(out: int, kernel: int, size: int, stride: int, low: int, lhs_dilation: int, rhs_dilation: int) -> int:
    """How many (output position, kernel tap) pairs of one spatial axis land on a real input element,
    not on padding or on the holes of a dilated input: the products a convolution really makes."""
    position = np.arange(out)[:, None] * stride + np.arange(kernel)[None, :] * rhs_dilation - low
    return int(
        np.count_nonzero((position >= 0) & (position <= (size - 1) * lhs_dilation) & (position % lhs_dilation == 0))
    )


def _conv_general_dilated(eqn) -> float:
    """Two operations (a multiply and an add) per product of an input element with a kernel
    weight: per output element, the kernel's input features of its group times the taps that
    land on the input. A 1x1 convolution is a matrix product and costs as much as one."""
    p = eqn.params
    numbers = p["dimension_numbers"]
    lhs, rhs, out = (v.aval.shape for v in (eqn.invars[0], eqn.invars[1], eqn.outvars[0]))
    taps = 1
    for axis in range(len(numbers.out_spec) - 2):
        low = p["padding"][axis][0]
        taps *= _window_taps(
            out[numbers.out_spec[2 + axis]],
            rhs[numbers.rhs_spec[2 + axis]],
            lhs[numbers.lhs_spec[2 + axis]],
            p["window_strides"][axis],
            low,
            p["lhs_dilation"][axis],
            p["rhs_dilation"][axis],
        )
    per_position = out[numbers.out_spec[0]] * out[numbers.out_spec[1]] * rhs[numbers.rhs_spec[1]]
    return 2.0 * per_position * taps


def _reduction(eqn) -> float:
    """Combining n elements into one takes n - 1 operations."""
    return float(_size(eqn.invars[0].aval) - _made(eqn))


def _cumulative(eqn) -> float:
    operand = eqn.invars[0].aval
    return float(_size(operand) - _size(operand) // max(operand.shape[eqn.params["axis"]], 1))


def _windowed(eqn) -> float:
    """Pooling: combining the k elements of each window takes k - 1 operations."""
    return float(_made(eqn) * (int(np.prod(eqn.params["window_dimensions"], dtype=np.int64)) - 1))


def _select_and_scatter_add(eqn) -> float:
    # each source element selects within its window of the operand, then adds once
    window = int(np.prod(eqn.params["window_dimensions"], dtype=np.int64))
    return float(_size(eqn.invars[0].aval) * (window + 1))


def _scatter_combine(eqn) -> float:
    return float(_size(eqn.invars[2].aval))  # one operation per update


def _integer_pow(eqn) -> float:
    """x ** y by repeated squaring: as many multiplies per element as XLA emits."""
    y = abs(int(eqn.params["y"]))
    multiplies = max(y.bit_length() - 1 + bin(y).count("1") - 1, 0) + (eqn.params["y"] < 0)
    return float(_made(eqn) * max(multiplies, 1))


def _sort(eqn) -> float:
    """A comparison sort: n log2 n comparisons along the sorted axis."""
    operand = eqn.invars[0].aval
    n = max(operand.shape[eqn.params["dimension"]], 1)
    return float(_size(operand) * max(np.ceil(np.log2(n)), 1))


def _fft(eqn) -> float:
    lengths = int(np.prod(eqn.params["fft_lengths"], dtype=np.int64))
    return 5.0 * _size(eqn.invars[0].aval) * max(np.log2(max(lengths, 2)), 1)


def _matrices(eqn, index: int = 0) -> tuple[int, int, int]:
    """(batch, rows, columns) of a batched matrix operand."""
    shape = eqn.invars[index].aval.shape
    return int(np.prod(shape[:-2], dtype=np.int64)), shape[-2], shape[-1]


def _cholesky(eqn) -> float:
    batch, n, _ = _matrices(eqn)
    return batch * n**3 / 3.0


def _lu(eqn) -> float:
    batch, m, n = _matrices(eqn)
    k = min(m, n)
    return batch * (m * n * k - (m + n) * k * k / 2.0 + k**3 / 3.0) * 2.0


def _triangular_solve(eqn) -> float:
    batch, n, _ = _matrices(eqn)
    rhs = _size(eqn.invars[1].aval) // max(batch * n, 1)
    return float(batch * n * n * rhs)


def _logistic(eqn) -> float:
    """1 / (1 + exp(-x)): a negation, an exponential, an addition and a division per element (the
    operations XLA expands it into)."""
    return 4.0 * _made(eqn)


def _scan(eqn) -> float:
    return eqn.params["length"] * count_flops(_closed(eqn.params["jaxpr"]))


def _cond(eqn) -> float:
    """The branch taken is not known from the program: the most expensive one."""
    return max(count_flops(_closed(branch)) for branch in eqn.params["branches"])


def _while(eqn) -> float:
    """Each iteration runs the condition and the body, and the last condition ends the loop.

    The number of iterations is read from the program when the loop counts: an integer it
    carries starts from a constant, is stepped by a constant in the body and compared, in the
    condition, with a constant or with a value the body passes on unchanged that starts as one
    (a ``while_loop`` over a counter; ``fori_loop`` with bounds fixed at trace time is a ``scan``).
    Any other loop (its bounds traced values, or its end decided by data) is counted as one
    iteration, a lower bound: such a loop cannot be differentiated in reverse mode, so in a
    gradient step it only computes values that carry no gradient.
    """
    cond, body = _closed(eqn.params["cond_jaxpr"]), _closed(eqn.params["body_jaxpr"])
    trips = trip_count(eqn, cond, body)
    return (1 if trips is None else trips) * (count_flops(body) + count_flops(cond)) + count_flops(cond)


def _linear_solve(eqn) -> float:
    return count_flops(_closed(eqn.params["jaxprs"].solve))  # the others are for derivatives


RULES = {
    "dot_general": _dot_general,
    "conv_general_dilated": _conv_general_dilated,
    **{
        name: _reduction
        for name in (
            "reduce_sum",
            "reduce_max",
            "reduce_min",
            "reduce_prod",
            "reduce_and",
            "reduce_or",
            "reduce_xor",
            "argmax",
            "argmin",
            "reduce",
        )
    },
    **{name: _cumulative for name in ("cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp")},
    **{
        name: _windowed
        for name in (
            "reduce_window_sum",
            "reduce_window_max",
            "reduce_window_min",
            "reduce_window",
            "select_and_gather_add",
        )
    },
    "select_and_scatter_add": _select_and_scatter_add,
    "select_and_scatter": _select_and_scatter_add,
    **{name: _scatter_combine for name in ("scatter-add", "scatter-sub", "scatter-mul", "scatter-min", "scatter-max")},
    "integer_pow": _integer_pow,
    "logistic": _logistic,
    "sort": _sort,
    "fft": _fft,
    "cholesky": _cholesky,
    "lu": _lu,
    "triangular_solve": _triangular_solve,
    "scan": _scan,
    "cond": _cond,
    "while": _while,
    "custom_linear_solve": _linear_solve,
}


def _live(jaxpr) -> list:
    """The equations whose results are used (or that have effects): what XLA runs. Differentiation
    leaves dead equations behind (parts of a derivative the transpose never reads), which XLA
    removes before anything runs."""
    needed = {v for v in jaxpr.outvars if isinstance(v, jex_core.Var)}
    live = []
    for eqn in reversed(jaxpr.eqns):
        if eqn.effects or any(v in needed for v in eqn.outvars):
            live.append(eqn)
            needed.update(v for v in eqn.invars if isinstance(v, jex_core.Var))
    return live[::-1]


def count_flops(jaxpr) -> float:
    """The arithmetic of a program: every equation that runs by its rule (``RULES``); calls,
    checkpoints (their recomputation included, where the backward pass runs it) and custom
    derivatives by the programs they hold; data movement (``FREE``) costs nothing, any other
    primitive one operation per element it makes."""
    total = 0.0
    for eqn in _live(jaxpr):
        name = eqn.primitive.name
        if name in RULES:
            total += RULES[name](eqn)
        elif name in FREE:
            continue
        else:
            inner = [_closed(sub) for sub in jex_core.jaxprs_in_params(eqn.params)]
            total += sum(count_flops(sub) for sub in inner) if inner else _made(eqn)
    return total

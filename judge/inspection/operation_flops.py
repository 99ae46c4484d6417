"""What one operation of the lowered program costs in FLOPs (``program_cost`` walks the program and
adds them up): by its rule, as XLA counts it; data movement nothing; any other operation one per
element it makes."""

from __future__ import annotations

import math

import numpy as np

from .jax_internals import mlir_hlo as hlo
from .jax_internals import mlir_ir as ir

# Operations that move or relabel data: no arithmetic.
FREE = {
    "stablehlo.constant",
    "stablehlo.broadcast_in_dim",
    "stablehlo.broadcast",
    "stablehlo.reshape",
    "stablehlo.transpose",
    "stablehlo.convert",
    "stablehlo.bitcast_convert",
    "stablehlo.slice",
    "stablehlo.dynamic_slice",
    "stablehlo.dynamic_update_slice",
    "stablehlo.concatenate",
    "stablehlo.pad",
    "stablehlo.gather",
    "stablehlo.iota",
    "stablehlo.reverse",
    "stablehlo.optimization_barrier",
    "stablehlo.get_tuple_element",
    "stablehlo.tuple",
    "stablehlo.reduce_precision",
    "stablehlo.real_dynamic_slice",
    "stablehlo.get_dimension_size",
    "stablehlo.dynamic_broadcast_in_dim",
    "stablehlo.dynamic_reshape",
    "stablehlo.dynamic_iota",
}
# Library calls that only move or label data (where a value lives, how it is split over devices): no
# arithmetic. Any other ``custom_call`` (a LAPACK routine behind ``jnp.linalg.svd``, ``qr``, ``eigh``,
# ``inv``, a host callback, a vendor kernel) runs work the program does not show: it is reported by its
# target (``Cost.opaque_calls``) and a FLOP limit refuses it, as it refuses a loop of unknown trips.
# Counted as one operation per element made, a singular value decomposition of an n-by-n matrix
# (some n**3 multiply-adds) cost n*n: a costly step passed a FLOP limit.
DATA_MOVEMENT_CALLS = {
    "annotate_device_placement",
    "MoveToHost",
    "MoveToDevice",
    "Sharding",
    "SPMDFullToShardShape",
    "SPMDShardToFullShape",
    "LayoutConstraint",
}
TERMINATORS = {"func.return", "stablehlo.return"}


def shape(value) -> tuple[int, ...]:
    try:
        return tuple(ir.RankedTensorType(value.type).shape)
    except ValueError:  # a token or a tuple: no array
        return ()


def size(value) -> int:
    return math.prod(shape(value))


def int_list(attribute) -> list[int]:
    try:
        return list(ir.DenseI64ArrayAttr(attribute))
    except (ValueError, TypeError):
        return [int(x) for x in ir.DenseIntElementsAttr(attribute)]


def target(op) -> str:
    """A ``custom_call``'s target: the library routine it calls."""
    return str(op.attributes["call_target_name"]).strip('"')


def flops(op) -> float:
    name = op.operation.name
    if name == "stablehlo.custom_call" and target(op) in DATA_MOVEMENT_CALLS:
        return 0.0
    if name in FREE or name in TERMINATORS or not op.results:
        return 0.0
    out = sum(size(r) for r in op.results)
    if name == "stablehlo.dot_general":
        numbers = hlo.DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
        lhs = shape(op.operands[0])
        return 2.0 * out * int(np.prod([lhs[i] for i in numbers.lhs_contracting_dimensions], dtype=np.int64))
    if name == "stablehlo.dot":
        return 2.0 * out * shape(op.operands[0])[-1]
    if name == "stablehlo.convolution":
        return _convolution(op)
    if name == "stablehlo.reduce":
        n = len(op.operands) // 2
        return float(sum(size(v) for v in op.operands[:n]) - out)
    if name == "stablehlo.reduce_window":
        return float(out * (int(np.prod(int_list(op.attributes["window_dimensions"]), dtype=np.int64)) - 1))
    if name == "stablehlo.select_and_scatter":
        window = int(np.prod(int_list(op.attributes["window_dimensions"]), dtype=np.int64))
        return float(size(op.operands[1]) * (window + 1))
    if name == "stablehlo.scatter":
        return float(sum(size(v) for v in op.operands[len(op.operands) // 2 + 1 :]) or size(op.operands[-1]))
    if name == "stablehlo.sort":
        dims = shape(op.operands[0])
        axis = int(str(op.attributes["dimension"]).split(":")[0]) if "dimension" in op.attributes else -1
        n = max(dims[axis] if dims else 1, 1)
        return float(size(op.operands[0]) * max(np.ceil(np.log2(n)), 1))
    if name == "stablehlo.fft":
        return 5.0 * size(op.operands[0]) * max(np.log2(max(size(op.operands[0]), 2)), 1)
    if name == "stablehlo.cholesky":
        dims = shape(op.operands[0])
        return int(np.prod(dims[:-2], dtype=np.int64)) * dims[-1] ** 3 / 3.0
    if name == "stablehlo.triangular_solve":
        a, b = shape(op.operands[0]), shape(op.operands[1])
        return float(int(np.prod(a[:-2], dtype=np.int64)) * a[-1] * a[-1] * (b[-1] if len(b) else 1))
    return float(out)  # elementwise: one operation per element made


def _convolution(op) -> float:
    """Two operations (a multiply and an add) per product of an input element with a kernel weight:
    per output element, the kernel's input features (of its group) times the taps that land on the
    input, as XLA counts them. A tap on the padding or on a hole of a dilated input multiplies
    nothing: counted, a strided, dilated, grouped convolution cost 2.6 times what XLA runs."""
    lhs, rhs, out = shape(op.operands[0]), shape(op.operands[1]), shape(op.results[0])
    numbers = hlo.ConvDimensionNumbers(op.attributes["dimension_numbers"])
    axes = len(numbers.output_spatial_dimensions)
    ones = [1] * axes
    strides, lhs_dilation, rhs_dilation = (
        int_list(op.attributes[key]) if key in op.attributes else ones
        for key in ("window_strides", "lhs_dilation", "rhs_dilation")
    )
    padding = int_list(op.attributes["padding"])[::2] if "padding" in op.attributes else [0] * axes
    taps = 1
    for axis in range(axes):
        taps *= _window_taps(
            out[numbers.output_spatial_dimensions[axis]],
            rhs[numbers.kernel_spatial_dimensions[axis]],
            lhs[numbers.input_spatial_dimensions[axis]],
            strides[axis],
            padding[axis],
            lhs_dilation[axis],
            rhs_dilation[axis],
        )
    per_position = out[numbers.output_batch_dimension] * out[numbers.output_feature_dimension]
    return 2.0 * per_position * rhs[numbers.kernel_input_feature_dimension] * taps


def _window_taps(
    out: int, kernel: int, length: int, stride: int, low: int, lhs_dilation: int, rhs_dilation: int
) -> int:
    """How many (output position, kernel tap) pairs of one spatial axis land on a real input element,
    not on padding or on the holes of a dilated input: the products a convolution really makes."""
    position = np.arange(out)[:, None] * stride + np.arange(kernel)[None, :] * rhs_dilation - low
    return int(
        np.count_nonzero((position >= 0) & (position <= (length - 1) * lhs_dilation) & (position % lhs_dilation == 0))
    )

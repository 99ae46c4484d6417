"""The names a submission may use, per module it may import: the reviewed lists themselves.

Why lists and not whole modules, and how they were written, is said in ``judge.in_child.allowed``,
which holds the refusals' reasons and the functions the gate and the guard ask."""

from __future__ import annotations


def _names(text: str) -> frozenset:
    return frozenset(text.split())


_MATH = _names("""
    acos acosh asin asinh atan atan2 atanh cbrt ceil comb copysign cos cosh degrees dist e erf erfc
    exp exp2 expm1 fabs factorial floor fmod frexp fsum gamma gcd hypot inf isclose isfinite isinf
    isnan isqrt lcm ldexp lgamma log log10 log1p log2 modf nan nextafter perm pi pow prod radians
    remainder sin sinh sqrt tan tanh tau trunc ulp
""")

_ITERTOOLS = _names("""
    accumulate chain combinations combinations_with_replacement compress count cycle dropwhile
    filterfalse groupby islice pairwise permutations product repeat starmap takewhile tee zip_longest
""")

# ``wraps`` is the judge's own (``guard.wraps``): the name and docstring only, no chosen attributes.
_FUNCTOOLS = _names("cache cached_property cmp_to_key lru_cache partial partialmethod reduce total_ordering wraps")

_COLLECTIONS = _names("ChainMap Counter OrderedDict UserDict UserList UserString defaultdict deque namedtuple")

_TYPING = _names("""
    Annotated Any Callable ClassVar Concatenate Dict Final FrozenSet Generic Hashable Iterable
    Iterator List Literal Mapping MutableMapping MutableSequence NamedTuple Never NewType NoReturn
    Optional ParamSpec Protocol Self Sequence Set Sized TYPE_CHECKING Tuple Type TypeAlias TypeVar
    Union abstractmethod cast final get_args get_origin overload runtime_checkable
""")

_JAX = _names("""
    Array ShapeDtypeStruct block_until_ready checkpoint checkpoint_policies closure_convert
    custom_gradient custom_jvp custom_vjp default_backend device_get device_put
    ensure_compile_time_eval eval_shape float0 fwd_and_bwd grad hessian jacfwd jacobian jacrev jit
    jvp linear_transpose linearize make_jaxpr named_call named_scope remat typeof value_and_grad vjp
    vmap
    ad_checkpoint lax nn numpy random scipy tree tree_util typing
""")

_JAX_NUMPY = _names("""
    ComplexWarning abs absolute acos acosh add all allclose amax amin angle any append
    apply_along_axis apply_over_axes arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh
    argmax argmin argpartition argsort argwhere around array array_equal array_equiv array_repr
    array_split array_str asarray asin asinh astype atan atan2 atanh atleast_1d atleast_2d
    atleast_3d average bartlett bfloat16 bincount bitwise_and bitwise_count bitwise_invert
    bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor blackman block bool
    bool_ broadcast_arrays broadcast_shapes broadcast_to c_ can_cast cbrt cdouble ceil character
    choose clip column_stack complex128 complex64 complex_ complexfloating compress concat
    concatenate conj conjugate convolve copy copysign corrcoef correlate cos cosh count_nonzero cov
    cross csingle cumprod cumsum cumulative_prod cumulative_sum deg2rad degrees delete diag
    diag_indices diag_indices_from diagflat diagonal diff digitize divide divmod dot double dsplit
    dstack dtype e ediff1d einsum einsum_path empty empty_like equal euler_gamma exp exp2
    expand_dims expm1 extract eye fabs fill_diagonal finfo flatnonzero flexible flip fliplr flipud
    float16 float32 float4_e2m1fn float64 float6_e2m3fn float6_e3m2fn float8_e3m4 float8_e4m3
    float8_e4m3b11fnuz float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float8_e8m0fnu
    float_ float_power floating floor floor_divide fmax fmin fmod frexp frombuffer fromfunction
    fromiter frompyfunc fromstring full full_like gcd generic geomspace gradient greater
    greater_equal hamming hanning heaviside histogram histogram2d histogram_bin_edges histogramdd
    hsplit hstack hypot i0 identity iinfo imag index_exp indices inexact inf inner insert int1 int16
    int2 int32 int4 int64 int8 int_ integer interp intersect1d invert isclose iscomplex
    iscomplexobj isdtype isfinite isin isinf isnan isneginf isposinf isreal isrealobj isscalar
    issubdtype iterable ix_ kaiser kron lcm ldexp left_shift less less_equal lexsort linspace log
    log10 log1p log2 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor logspace
    mask_indices matmul matrix_transpose matvec max maximum mean median meshgrid mgrid min minimum
    mod modf moveaxis multiply nan nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax
    nanmean nanmedian nanmin nanpercentile nanprod nanquantile nanstd nansum nanvar ndarray ndim
    negative newaxis nextafter nonzero not_equal number object_ ogrid ones ones_like outer packbits
    pad partition percentile permute_dims pi piecewise place poly polyadd polyder polydiv polyfit
    polyint polymul polysub polyval positive pow power prod promote_types ptp put put_along_axis
    quantile r_ rad2deg radians ravel ravel_multi_index real reciprocal remainder repeat reshape
    resize result_type right_shift rint roll rollaxis roots rot90 round s_ searchsorted select
    setdiff1d setxor1d shape sign signbit signedinteger sin sinc single sinh size sort sort_complex
    spacing split sqrt square squeeze stack std subtract sum swapaxes take take_along_axis tan tanh
    tensordot tile trace transpose trapezoid tri tril tril_indices tril_indices_from trim_zeros triu
    triu_indices triu_indices_from true_divide trunc ufunc uint uint1 uint16 uint2 uint32 uint4
    uint64 uint8 union1d unique unique_all unique_counts unique_inverse unique_values unpackbits
    unravel_index unsignedinteger unstack unwrap vander var vdot vecdot vecmat vectorize vsplit
    vstack where zeros zeros_like
    fft linalg
""")

_JAX_NUMPY_LINALG = _names("""
    cholesky cond cross det diagonal eig eigh eigvals eigvalsh inv lstsq matmul matrix_norm
    matrix_power matrix_rank matrix_transpose multi_dot norm outer pinv qr slogdet solve svd svdvals
    tensordot tensorinv tensorsolve trace vecdot vector_norm
""")

_JAX_NUMPY_FFT = _names("""
    fft fft2 fftfreq fftn fftshift hfft ifft ifft2 ifftn ifftshift ihfft irfft irfft2 irfftn rfft
    rfft2 rfftfreq rfftn
""")

# Primitives (``*_p``) are here so that a policy can compare ``prim is lax.dot_general_p``; the
# methods that redefine a primitive are refused by name (``gate.DENIED_ATTRIBUTES``).
_JAX_LAX = _names("""
    AccuracyMode ConvDimensionNumbers ConvGeneralDilatedDimensionNumbers DotAlgorithm
    DotAlgorithmPreset DotDimensionNumbers FftType GatherDimensionNumbers GatherScatterMode
    Precision PrecisionLike RaggedDotDimensionNumbers RandomAlgorithm RoundingMethod
    ScatterDimensionNumbers Tolerance abs abs_p acos acos_p acosh acosh_p add add_p after_all
    after_all_p all_gather all_gather_p all_to_all all_to_all_p and_p approx_max_k approx_min_k
    approx_top_k_p argmax argmax_p argmin argmin_p asin asin_p asinh asinh_p associative_scan atan
    atan2 atan2_p atan_p atanh atanh_p axis_index axis_index_p axis_size batch_matmul bessel_i0e
    bessel_i0e_p bessel_i1e bessel_i1e_p betainc bitcast_convert_type bitcast_convert_type_p
    bitwise_and bitwise_not bitwise_or bitwise_xor broadcast broadcast_in_dim broadcast_in_dim_p
    broadcast_like broadcast_shapes broadcast_to_rank broadcasted_iota cbrt cbrt_p ceil ceil_p clamp
    clamp_p clz clz_p collapse complex complex_p composite concatenate concatenate_p cond cond_p conj
    conj_p conv conv_dimension_numbers conv_general_dilated conv_general_dilated_local
    conv_general_dilated_p conv_general_dilated_patches conv_general_permutations
    conv_general_shape_tuple conv_shape_tuple conv_transpose conv_transpose_shape_tuple
    conv_with_general_padding convert_element_type convert_element_type_p copy_p cos cos_p cosh
    cosh_p create_token create_token_p cumlogsumexp cumlogsumexp_p cummax cummax_p cummin cummin_p
    cumprod cumprod_p cumsum cumsum_p custom_linear_solve custom_root dce_sink dce_sink_p
    device_put_p digamma digamma_p div div_p dot dot_general dot_general_p dtype
    dynamic_index_in_dim dynamic_slice dynamic_slice_in_dim dynamic_slice_p
    dynamic_update_index_in_dim dynamic_update_slice dynamic_update_slice_in_dim
    dynamic_update_slice_p empty eq eq_p eq_to_p erf erf_inv erf_inv_p erf_p erfc erfc_p exp exp2
    exp2_p exp_p expand_dims expm1 expm1_p fft fft_p floor floor_p fori_loop full full_like gather
    gather_p ge ge_p gt gt_p igamma igamma_grad_a igamma_grad_a_p igamma_p igammac igammac_p imag
    imag_p index_in_dim index_take integer_pow integer_pow_p iota iota_p is_finite is_finite_p le
    le_p le_to_p lgamma lgamma_p linear_solve_p log log1p log1p_p log_p logistic logistic_p lt lt_p
    lt_to_p map max max_p min min_p mul mul_p mulhi mulhi_p ne ne_p neg neg_p nextafter nextafter_p
    not_p optimization_barrier optimization_barrier_p or_p pad pad_p padtype_to_pads pbroadcast
    pcast platform_dependent pmax pmax_p pmean pmin pmin_p polygamma polygamma_p population_count
    population_count_p pow pow_p ppermute ppermute_p precv psend pshuffle psum psum_p psum_scatter
    pswapaxes ragged_all_to_all ragged_all_to_all_p ragged_dot ragged_dot_general
    random_gamma_grad real real_p reciprocal reduce reduce_and reduce_and_p reduce_max reduce_max_p
    reduce_min reduce_min_p reduce_or reduce_or_p reduce_p reduce_precision reduce_precision_p
    reduce_prod reduce_prod_p reduce_sum reduce_sum_p reduce_window reduce_window_max_p
    reduce_window_min_p reduce_window_p reduce_window_shape_tuple reduce_window_sum_p reduce_xor
    reduce_xor_p regularized_incomplete_beta_p rem rem_p reshape reshape_p rev rev_p
    rng_bit_generator rng_bit_generator_p rng_uniform rng_uniform_p round round_p rsqrt rsqrt_p
    scaled_dot scan scan_p scatter scatter_add scatter_add_p scatter_apply scatter_max scatter_max_p
    scatter_min scatter_min_p scatter_mul scatter_mul_p scatter_p scatter_sub scatter_sub_p select
    select_and_gather_add_p select_and_scatter_add_p select_and_scatter_p select_n select_n_p
    shape_as_value sharding_constraint_p shift_left shift_left_p shift_right_arithmetic
    shift_right_arithmetic_p shift_right_logical shift_right_logical_p sign sign_p sin sin_p sinh
    sinh_p slice slice_in_dim slice_p sort sort_key_val sort_p split split_p sqrt sqrt_p square
    square_p squeeze squeeze_p stack stack_p stage stage_p stop_gradient stop_gradient_p sub sub_p
    switch tan tan_p tanh tanh_p tile tile_p top_k top_k_p transpose transpose_p unstack unstack_p
    while_loop while_p with_sharding_constraint xor_p zeta zeta_p
""")

_JAX_NN = _names("""
    celu dot_product_attention elu gelu get_scaled_dot_general_config glu hard_sigmoid hard_silu
    hard_swish hard_tanh identity leaky_relu log1mexp log_sigmoid log_softmax logmeanexp logsumexp
    mish one_hot relu relu6 scaled_dot_general scaled_matmul selu sigmoid silu soft_sign softmax
    softplus sparse_plus sparse_sigmoid squareplus standardize swish tanh
    initializers
""")

_JAX_NN_INITIALIZERS = _names("""
    Initializer constant delta_orthogonal glorot_normal glorot_uniform he_normal he_uniform
    kaiming_normal kaiming_uniform lecun_normal lecun_uniform normal ones orthogonal
    truncated_normal uniform variance_scaling xavier_normal xavier_uniform zeros
""")

_JAX_RANDOM = _names("""
    PRNGKey ball bernoulli beta binomial bits categorical cauchy chisquare choice clone dirichlet
    double_sided_maxwell exponential f fold_in gamma generalized_normal geometric gumbel key
    key_data key_dtype key_impl laplace loggamma logistic lognormal maxwell multinomial
    multivariate_normal normal orthogonal pareto permutation poisson rademacher randint
    random_gamma_p rayleigh split t triangular truncated_normal uniform wald weibull_min
    wrap_key_data
""")

_JAX_SCIPY_SPECIAL = _names("""
    bernoulli bessel_jn beta betainc betaln boxcox boxcox1p comb dawsn digamma entr erf erfc erfcx
    erfinv exp1 expi expit expn factorial fresnel gamma gammainc gammaincc gammaln gammasgn hyp1f1
    hyp2f1 i0 i0e i1 i1e kl_div log_ndtr log_softmax loggamma logit logsumexp multigammaln ndtr
    ndtri owens_t poch polygamma rel_entr sici softmax spence sph_harm_y wofz xlog1py xlogy zeta
""")

_JAX_SCIPY_LINALG = _names("""
    block_diag cho_factor cho_solve cholesky circulant companion convolution_matrix det dft eigh
    eigh_tridiagonal expm expm_frechet fiedler fiedler_companion funm hadamard hankel helmert
    hessenberg hilbert inv invhilbert invpascal leslie lu lu_factor lu_solve pascal polar qr
    qr_multiply rsf2csf schur solve solve_sylvester solve_triangular sqrtm svd toeplitz
""")

_JAX_TREE_UTIL = _names("""
    DictKey FlattenedIndexKey GetAttrKey KeyEntry KeyPath Partial PyTreeDef SequenceKey all_leaves
    flatten_one_level flatten_one_level_with_keys is_tree_node keystr register_pytree_node
    register_pytree_node_class register_pytree_with_keys register_pytree_with_keys_class
    register_static tree_all tree_broadcast tree_flatten tree_flatten_with_path tree_leaves
    tree_leaves_with_path tree_map tree_map_with_path tree_reduce tree_reduce_associative
    tree_structure tree_transpose tree_unflatten treedef_children treedef_is_leaf treedef_tuple
""")

_JAX_TREE = _names("""
    all broadcast flatten flatten_with_path leaves leaves_with_path map map_with_path reduce
    reduce_associative static structure transpose unflatten
""")

_NUMPY = _names("""
    False_ ScalarType True_ abs absolute acos acosh add all allclose amax amin angle any append
    apply_along_axis apply_over_axes arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh
    argmax argmin argpartition argsort argwhere around array array2string array_equal array_equiv
    array_repr array_split array_str asanyarray asarray asarray_chkfinite ascontiguousarray
    asfortranarray asin asinh astype atan atan2 atanh atleast_1d atleast_2d atleast_3d average
    bartlett base_repr binary_repr bincount bitwise_and bitwise_count bitwise_invert
    bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor blackman block bool
    bool_ broadcast broadcast_arrays broadcast_shapes broadcast_to byte bytes_ c_ can_cast cbrt
    cdouble ceil character choose clip clongdouble column_stack complex128 complex256 complex64
    complexfloating compress concat concatenate conj conjugate convolve copy copysign copyto
    corrcoef correlate cos cosh count_nonzero cov cross csingle cumprod cumsum cumulative_prod
    cumulative_sum datetime64 deg2rad degrees delete diag diag_indices diag_indices_from diagflat diagonal
    diff digitize divide divmod dot double dsplit dstack dtype e ediff1d einsum einsum_path empty
    empty_like equal errstate euler_gamma exp exp2 expand_dims expm1 extract eye fabs fill_diagonal
    finfo fix flatiter flatnonzero flexible flip fliplr flipud float128 float16 float32 float64
    float_power floating floor floor_divide fmax fmin fmod format_float_positional
    format_float_scientific frexp frombuffer fromfunction fromiter frompyfunc fromstring full full_like gcd
    generic geomspace gradient greater greater_equal half hamming hanning heaviside histogram
    histogram2d histogram_bin_edges histogramdd hsplit hstack hypot i0 identity iinfo imag
    index_exp indices inexact inf inner insert int16 int32 int64 int8 int_ intc integer interp
    intersect1d intp invert isclose iscomplex iscomplexobj isdtype isfinite isfortran isin isinf
    isnan isneginf isposinf isreal isrealobj isscalar issubdtype iterable ix_ kaiser kron lcm
    ldexp left_shift less less_equal lexsort linspace little_endian log log10 log1p log2 logaddexp
    logaddexp2 logical_and logical_not logical_or logical_xor logspace long longdouble longlong
    mask_indices matmul matrix_transpose matvec max maximum mean median meshgrid mgrid min
    min_scalar_type minimum mintypecode mod modf moveaxis multiply nan nan_to_num nanargmax
    nanargmin nancumprod nancumsum nanmax nanmean nanmedian nanmin nanpercentile nanprod
    nanquantile nanstd nansum nanvar ndarray ndenumerate ndim ndindex nditer negative newaxis nextafter
    nonzero not_equal number object_ ogrid ones ones_like outer packbits pad partition percentile
    permute_dims pi piecewise place poly poly1d polyadd polyder polydiv polyfit polyint polymul
    polysub polyval positive pow power prod promote_types ptp put put_along_axis putmask quantile
    r_ rad2deg radians ravel ravel_multi_index real real_if_close reciprocal remainder repeat
    require reshape resize result_type right_shift rint roll rollaxis roots rot90 round row_stack
    s_ searchsorted select setdiff1d setxor1d shape shares_memory may_share_memory short sign
    signbit signedinteger sin sinc single sinh size sort sort_complex spacing split sqrt square
    squeeze stack std str_ subtract sum swapaxes take take_along_axis tan tanh tensordot tile timedelta64 trace
    transpose trapezoid tri tril tril_indices tril_indices_from trim_zeros triu triu_indices
    triu_indices_from true_divide trunc typename ubyte ufunc uint uint16 uint32 uint64 uint8 uintc
    uintp ulong ulonglong union1d unique unique_all unique_counts unique_inverse unique_values
    unpackbits unravel_index unsignedinteger unstack unwrap ushort vander var vdot vecdot vecmat
    vectorize void vsplit vstack where zeros zeros_like
    linalg random
""")

_NUMPY_LINALG = _names("""
    LinAlgError cholesky cond cross det diagonal eig eigh eigvals eigvalsh inv lstsq matmul
    matrix_norm matrix_power matrix_rank matrix_transpose multi_dot norm outer pinv qr slogdet solve
    svd svdvals tensordot tensorinv tensorsolve trace vecdot vector_norm
""")

_NUMPY_RANDOM = _names("""
    BitGenerator Generator MT19937 PCG64 PCG64DXSM Philox RandomState SFC64 SeedSequence beta
    binomial bytes chisquare choice default_rng dirichlet exponential f gamma geometric gumbel
    hypergeometric laplace logistic lognormal logseries multinomial multivariate_normal
    negative_binomial noncentral_chisquare noncentral_f normal pareto permutation poisson power rand
    randint randn random random_integers random_sample ranf rayleigh sample seed shuffle
    standard_cauchy standard_exponential standard_gamma standard_normal standard_t triangular
    uniform vonmises wald weibull zipf
""")

# Equinox, the neural network library of the bank's framework problems: modules, filters and
# their transformations, pytree surgery. Not its importlib and internal modules, host callbacks
# (callbacks, error_if, the debug module), serialisation to files, or anything that writes or
# reads attributes chosen by name (module_update_wrapper, WeightNorm's and SpectralNorm's
# weight_name).
_EQUINOX = _names("""
    AbstractClassVar AbstractVar EquinoxRuntimeError EquinoxTracetimeError Module Partial apply_updates
    combine field filter filter_checkpoint filter_closure_convert filter_custom_jvp filter_custom_vjp
    filter_eval_shape filter_grad filter_hessian filter_jacfwd filter_jacrev filter_jit filter_jvp
    filter_make_jaxpr filter_value_and_grad filter_vjp filter_vmap if_array is_array is_array_like
    is_inexact_array is_inexact_array_like partition tree_at tree_check tree_equal
    tree_flatten_one_level tree_inference tree_pformat tree_pprint
    nn
""")

_EQUINOX_NN = _names("""
    AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool1d AdaptiveMaxPool2d
    AdaptiveMaxPool3d AdaptivePool AvgPool1d AvgPool2d AvgPool3d BatchNorm Conv Conv1d Conv2d Conv3d
    ConvTranspose ConvTranspose1d ConvTranspose2d ConvTranspose3d Dropout Embedding GRUCell
    GroupNorm Identity LSTMCell Lambda LayerNorm Linear MLP MaxPool1d MaxPool2d MaxPool3d
    MultiheadAttention PReLU Pool RMSNorm RotaryPositionalEmbedding Sequential Shared State
    StateIndex StatefulLayer delete_init_state inference_mode make_with_state
""")

# Flax NNX (``from flax import nnx``), for the explorer's modules: the layers a model is built of,
# its parameters and random streams, a module of one's own from its fields (dataclass: Python's
# dataclasses, which write __init__ from the class statement's field names, as Equinox's modules
# do), building it from shapes (eval_shape), taking it apart and
# back (split and merge, which the explorer's harness uses) and its checkpoint (remat); the
# activations it re-exports from jax.nn. Not its optimizers and training state (optax), its
# display and summaries (treescope, rich), its bridge to Linen, its graph surgery by path or name
# (update, pop, state filters, set_metadata, with_attributes, Module.set_attributes), its
# sharding and checkify, nor its own transformations beyond those (jit, vmap, scan, cond and
# friends have their JAX forms).
_FLAX_NNX = _names("""
    Conv Dropout Embed LayerNorm Linear List Module MultiHeadAttention Param RMSNorm Rngs Sequential dataclass
    eval_shape merge remat split
    celu elu gelu glu hard_tanh leaky_relu log_sigmoid log_softmax one_hot relu relu6 selu sigmoid
    silu soft_sign softmax softplus standardize swish tanh
""")

# Every module a submission may import, with the names it may use; a submodule is allowed when it
# is listed here itself, and it is reached as a name of its parent only when the parent lists it.
MODULES: dict[str, frozenset] = {
    "jax": _JAX,
    "jax.numpy": _JAX_NUMPY,
    "jax.numpy.linalg": _JAX_NUMPY_LINALG,
    "jax.numpy.fft": _JAX_NUMPY_FFT,
    "jax.lax": _JAX_LAX,
    "jax.nn": _JAX_NN,
    "jax.nn.initializers": _JAX_NN_INITIALIZERS,
    "jax.ad_checkpoint": _names(
        "Offloadable Recompute Saveable checkpoint_name checkpoint_policies print_saved_residuals"
    ),
    "jax.tree_util": _JAX_TREE_UTIL,
    "jax.tree": _JAX_TREE,
    "jax.random": _JAX_RANDOM,
    "jax.scipy": _names("linalg special"),
    "jax.scipy.special": _JAX_SCIPY_SPECIAL,
    "jax.scipy.linalg": _JAX_SCIPY_LINALG,
    "jax.typing": _names("ArrayLike DTypeLike"),
    "functools": _FUNCTOOLS,
    "math": _MATH,
    "typing": _TYPING,
    "itertools": _ITERTOOLS,
    "collections": _COLLECTIONS,
    "numpy": _NUMPY,
    "numpy.linalg": _NUMPY_LINALG,
    "numpy.random": _NUMPY_RANDOM,
    "equinox": _EQUINOX,
    "equinox.nn": _EQUINOX_NN,
    "flax": _names("nnx"),
    "flax.nnx": _FLAX_NNX,
}
SUMMARY = (
    "jax (with jax.numpy, jax.lax, jax.nn, jax.ad_checkpoint, jax.tree_util, jax.random, jax.scipy), "
    "equinox (with equinox.nn), flax.nnx, functools, math, typing, itertools, collections and numpy"
)

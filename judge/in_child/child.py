"""The code that runs inside the child process, next to the submitted code.

It receives a request (the source, the entry point's name and generated inputs: a ``trace``
message, or a ``verify`` one for the verifier, each handled by one function of ``HANDLERS``),
traces the submission on each case, and writes back, as typed messages (``judge.data.messages``), what
the traced programs show: the saved residuals, the checkpoint structure and the output types, plus
the forward and backward programs exported with ``jax.export``. It computes no numbers: values and gradients are computed by the verifier
(``judge.in_child.verify``), a second child in which no submitted code runs, from those programs. It never
sees the reference, hidden metadata or the problem folder; the parent decides every verdict.

Entry points: ``entry`` (a fresh interpreter, the naive runner used as the benchmarks' baseline)
and ``serve`` (called in a process forked by the zygote, see ``judge.processes.zygote_server``).
"""

from __future__ import annotations

import io
import os
import sys
import traceback
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a request arrives: the fresh interpreter sets its rlimits first
    from ..data.messages import CaseError, CaseInput, ChildRequest, Failed, Traced, TracedCase

REQUEST_CAP = 64 << 20
HARNESS_FILENAME = "harness.py"


def _error(kind: str, message: str, line: int | None = None) -> CaseError:
    from ..data.messages import CaseError

    return CaseError(kind, message, line)


def _submission_line(exc: BaseException, filename: str) -> int | None:
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename:
            line = frame.lineno
    if line is None and isinstance(exc, SyntaxError) and exc.filename == filename:
        line = exc.lineno
    return line


def _describe_exception(exc: BaseException, filename: str) -> CaseError:
    from ..data import verdicts

    line = _submission_line(exc, filename)
    text = f"{type(exc).__name__}: {exc}"
    if verdicts.error_kind(exc) == verdicts.MEMORY_LIMIT:
        return _error(verdicts.MEMORY_LIMIT, "the submission ran out of memory", line)
    if isinstance(exc, RecursionError):
        return _error("runtime_error", "RecursionError: maximum recursion depth exceeded", line)
    first = text.splitlines()[0] if text else type(exc).__name__
    return _error("runtime_error", first[:500], line)


def _load(source: str, filename: str, entry: str, callable_only: bool = True):
    """Compile and run the module; return (function, None) or (None, error) (``callable_only``:
    ``entry`` must be callable; else any value is returned)."""
    try:
        # dont_inherit: this module's `from __future__ import annotations` must not turn the
        # submission's annotations into strings (dataclasses, and so Equinox modules, then fail).
        code = compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return None, _error("compile_error", f"SyntaxError: {exc.msg}", exc.lineno)
    from .guard import restricted_builtins

    namespace = {"__name__": "submission", "__file__": filename, "__builtins__": restricted_builtins()}
    try:
        exec(code, namespace)  # noqa: S102 - this process exists to run it
    except BaseException as exc:  # noqa: BLE001 - SystemExit too: it is the submission's doing
        return None, _describe_exception(exc, filename)
    function = namespace.get(entry)
    if function is None:
        return None, _error("compile_error", f"the entry point {entry}() is not defined")
    if callable_only and not callable(function):
        return None, _error("compile_error", f"{entry} is defined but is not a function")
    return function, None


def _bind_static(function, values, static_mask):
    """A function of the array arguments only, with the static ones fixed in place."""

    def bound(*arrays):
        it = iter(arrays)
        return function(*(v if static else next(it) for v, static in zip(values, static_mask)))

    return bound


def _check_output(out) -> str | None:
    import jax

    leaves, _ = jax.tree_util.tree_flatten(out)
    if not leaves:
        return "returned nothing (None or an empty container)"
    for leaf in leaves:
        if not isinstance(leaf, jax.Array):
            return f"returned a {type(leaf).__name__}, expected a JAX array"
        if not jax.numpy.issubdtype(leaf.dtype, jax.numpy.inexact):
            return f"returned an array of dtype {leaf.dtype}, which cannot be differentiated"
    return None


class _BadOutput(Exception):
    """The function returned something that is not a differentiable array (found while tracing)."""


def _checked(function, seen: dict):
    """``function``, refusing outputs that are not floating-point JAX arrays, and noting the
    output's structure and types (from whichever trace runs first)."""
    import jax

    def run(*arrays):
        out = function(*arrays)
        problem = _check_output(out)
        if problem:
            raise _BadOutput(problem)
        leaves, treedef = jax.tree_util.tree_flatten(out)
        seen.setdefault("treedef", str(treedef))
        seen.setdefault("outputs", [{"dtype": jax.numpy.dtype(x.dtype).name, "shape": list(x.shape)} for x in leaves])
        return out

    return run


def run_case(function, case: CaseInput, request: ChildRequest, cache: dict, exports: list) -> TracedCase:
    """Trace one case once, and read from that trace its output types, what it saves, its
    checkpoints and, when asked, its cost (``judge.inspection.reading``).

    Nothing is evaluated here. Cases of the same shapes and static values share one trace
    (``CaseInput.program_key``), and so one program: each trace that succeeds adds its programs to
    ``exports``, those that go to the verifier, once (``messages.program_indices`` says which case
    runs which).
    """
    import numpy as np

    from ..data import records
    from ..data.messages import TracedCase
    from ..inspection.reading import NotAPolicy, read_case

    filename = request.filename
    values, static_mask = case.args, case.static_mask
    arrays = [np.asarray(v) for v, s in zip(values, static_mask) if not s]
    seen: dict = {}
    bound = _checked(_bind_static(function, values, static_mask), seen)
    array_names = [n for n, s in zip(request.arg_names, static_mask) if not s]
    try:
        key = case.program_key()
        if key not in cache:
            # the memory picture is drawn for the first sample case only (the page shows that one)
            picture = request.cost and case.sample and not cache
            reading = read_case(
                bound,
                arrays,
                request.wrt,
                array_names,
                filename,
                measure=picture,
                baseline=request.baseline,
                printed=request.fwd_bwd,
            )
            found = {"structure": reading.structure, "residuals": reading.residuals, **seen}
            if reading.cost is not None:
                found["cost"] = reading.cost
            if reading.programs is not None:
                found["programs"] = reading.programs
            cache[key] = found
            exports.append(reading.derivative)  # one program per distinct shape: cases share it
        found = cache[key]
    except _BadOutput as exc:
        return TracedCase(case.name, error=_error("bad_output", str(exc)))
    except NotAPolicy as exc:
        return TracedCase(case.name, error=_error("runtime_error", f"TypeError: {exc}", exc.line))
    except BaseException as exc:  # noqa: BLE001
        return TracedCase(case.name, error=_describe_exception(exc, filename))
    return records.build(TracedCase, {"name": case.name, **found})


def _export(exports: list, request: ChildRequest) -> tuple[dict | None, CaseError | None]:
    """The programs of every case that traced, for the verifier; or the reason they cannot be."""
    from dataclasses import replace

    from ..inspection import programs

    try:
        return programs.export_programs(exports), None
    except BaseException as exc:  # noqa: BLE001
        error = _describe_exception(exc, request.filename)
        if "custom calls" in error.message:
            error = replace(
                error,
                message="your program uses a host callback or custom call (such as jax.debug.print or "
                "jax.pure_callback), which the judge cannot check; remove it",
            )
        return None, error


class _PrintedOutput(io.TextIOBase):
    """``sys.stdout`` and ``sys.stderr`` while submitted code runs.

    What it prints while its module loads and on the sample cases goes to the parent (and to the
    learner's page); what it prints on a hidden case, or while the programs are exported (which
    traces every case again), is counted against the output limit and dropped, so that no size or
    value of a hidden case reaches the learner through printed output. Once a hidden case has
    run, nothing more is shown: a value kept from it cannot be printed by a later case either.
    """

    def __init__(self, stream, limit_kb: int | None):
        self.stream, self.limit_kb, self.size, self.shown = stream, limit_kb, 0, True

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.size += len(text.encode("utf-8", "replace"))
        if self.shown:
            self.stream.write(text)
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def over_limit(self) -> CaseError | None:
        if self.limit_kb is not None and self.size > self.limit_kb * 1024:
            return _error(
                "output_limit",
                f"your submission printed more than {self.limit_kb} KiB (output printed on "
                f"hidden cases counts too, though only the sample cases' is shown)",
            )
        return None


def serve(message: dict) -> dict:
    """Answer one request, by its kind (``HANDLERS``); always an answer (errors are data, not
    exceptions), written for the wire. The parent's request is read strictly too: a request this
    side does not understand is the judge's own bug, and fails here rather than half-run."""
    from ..data import records
    from ..data.messages import REQUESTS
    from ..data.shape_messages import SHAPE_REQUESTS

    request = records.read_message(message, REQUESTS | SHAPE_REQUESTS)
    return records.to_wire(HANDLERS[request.KIND](request))


def _trace(request: ChildRequest):
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = printed = _PrintedOutput(sys.stdout, request.output_kb)
    try:
        return _serve(request, printed)
    finally:
        sys.stdout, sys.stderr = saved


def _verify(request):
    from . import verify

    return verify.serve(request)


def _trace_shapes(request):
    # a trace whose arrays are placeholders: the same tracing, reading and export as a grading's
    return _trace(request.filled())


def _verify_shapes(request):
    from . import shapes

    return shapes.verify(request)


def _describe_module(request):
    # what the explorer's name stands for: the learner's module loaded here, as a trace loads it,
    # and described by the judge's code (``shapes.describe``); what it prints is not shown
    from ..data.messages import Failed
    from . import shapes

    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = printed = _PrintedOutput(sys.stdout, None)
    printed.shown = False
    try:
        found, error = _load(request.source, request.filename, request.entry, callable_only=False)
        if error:
            return Failed(error)
        try:
            described = shapes.describe(found, request.entry)
        except Exception as exc:  # noqa: BLE001 - the learner's object misbehaved while read
            return Failed(_describe_exception(exc, request.filename))
        return Failed(_error("compile_error", described)) if isinstance(described, str) else described
    finally:
        sys.stdout, sys.stderr = saved


# One function per kind of request (``judge.data.messages.REQUESTS``; the explorer's requests by
# types, ``judge.data.shape_messages.SHAPE_REQUESTS``).
HANDLERS = {
    "trace": _trace,
    "verify": _verify,
    "trace_shapes": _trace_shapes,
    "verify_shapes": _verify_shapes,
    "describe_module": _describe_module,
}


def _serve(request: ChildRequest, printed: _PrintedOutput) -> Traced | Failed:
    from dataclasses import replace

    from ..data.messages import Failed, Programs, Traced

    function, error = _load(request.source, request.filename, request.entry)
    if error:
        return Failed(error)
    if request.harness:
        # The problem's harness calls the learner's function (a policy, say) on its programs.
        run, harness_error = _load(request.harness, HARNESS_FILENAME, "run")
        if harness_error:
            return Failed(replace(harness_error, kind="runtime_error"))
        learner = function
        function = lambda *args: run(learner, *args)  # noqa: E731
    cache: dict = {}
    cases, exports = [], []
    for case in request.cases:
        printed.shown = printed.shown and case.sample
        cases.append(run_case(function, case, request, cache, exports))
        if printed.over_limit():
            return Failed(printed.over_limit())
        if cases[-1].error is not None:  # the cases after it would tell the parent nothing it can use
            break
    printed.shown = False
    if not exports:
        return Traced(cases)
    programs, error = _export(exports, request)
    if error or printed.over_limit():
        return Failed(error or printed.over_limit())
    return Traced(cases, Programs(programs["fwd"], programs["bwd"]))


def main(argv: list[str]) -> int:
    if "--limits" in argv:  # first of all: the parent may not run code between fork and exec
        import json

        from ..packages.limits import Limits
        from ..sandbox.rlimits import apply_rlimits

        apply_rlimits(Limits(**json.loads(argv[argv.index("--limits") + 1])))
    from ..data import protocol

    result_fd = int(argv[argv.index("--result-fd") + 1])
    request = protocol.read_message(0, REQUEST_CAP)
    os.close(0)
    response = serve(request)
    sys.stdout.flush()
    protocol.write_message(result_fd, response)
    os.close(result_fd)
    return 0


def entry() -> None:
    """``python -c 'from judge.in_child.child import entry; entry()' ROOT --result-fd N --limits JSON``."""
    code = main(sys.argv[2:])
    sys.stdout.flush()
    os._exit(code)  # skips interpreter teardown that a submission may have booby-trapped (atexit)

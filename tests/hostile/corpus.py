"""The hostile corpus: submissions a stranger might send, each with the verdict it must get.

Every entry is graded twice: as sent (``gated``: the static gate sees it first) and "past the
gate" (``deep``: as if the gate had missed it), so that each deeper layer is shown to hold by
itself. A deep source that needs ``os`` or ``sys`` reaches them through the classic escape from
restricted builtins (``tests.escape``). ``{placeholders}`` are replaced by the driver with the
paths, port and pids of the run (see ``run_corpus.py``); the checks that nothing escaped are in
``tests/hostile/test_hostile.py``. The submissions that reach the judge's process through
string-keyed reflection, and forge a verdict from there, are built in ``reflection.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.escape import escaping
from tests.hostile import reflection

ENTRY = "def checkpoint_dot_policy(w1, w2, x):\n"


@dataclass(frozen=True)
class Hostile:
    name: str
    gated_source: str
    gated: str  # verdict when the gate sees the source first
    deep: str  # verdict when graded past the gate
    deep_source: str = ""  # the past-the-gate variant, when it differs
    message: str = ""  # a phrase the deep verdict's message must contain
    policies: tuple | None = None  # the checkpoint policies the deep report must show, when given
    # (deep verdict, message) where the judge runs without root: each child is then alone in a
    # user and PID namespace of its own instead of having a uid of its own, so an attack on
    # another process fails differently (the process has no number there; uid 0 does not exist).
    without_root: tuple[str, str] | None = None

    def expected(self, root: bool) -> tuple[str, str]:
        """The deep verdict and the phrase of its message, for a judge running as root or not."""
        return (self.deep, self.message) if root or self.without_root is None else self.without_root

    @property
    def source_past_gate(self) -> str:
        return self.deep_source or self.gated_source


CORPUS = [
    Hostile("infinite_loop", ENTRY + "    while True:\n        pass\n", "time_limit", "time_limit"),
    Hostile("memory_bomb", ENTRY + "    hog = bytearray(8 << 30)\n    return hog\n", "memory_limit", "memory_limit"),
    Hostile(
        "fork_bomb",
        "import os\nwhile True:\n    os.fork()\n",
        "forbidden",
        "runtime_error",
        escaping("while True:\n    os.fork()"),
        message="PermissionError",
    ),
    Hostile(
        "huge_stdout", ENTRY + "    print('x' * 10_000_000)\n    return w1.sum()\n", "output_limit", "output_limit"
    ),
    Hostile(
        "read_outside",
        "print(open('{reference}').read())\n",
        "forbidden",
        "runtime_error",
        escaping("""
found = []
open = _module("io").open  # the real one: the child's builtins refuse open
for path in ["{reference}", "{canary}", "/etc/passwd", "/etc/hostname", "{cache}"]:
    try:
        with open(path) as f:
            found.append(path + ": " + f.read())
    except OSError as exc:
        found.append(path + ": " + type(exc).__name__)
raise RuntimeError(" | ".join(found))
"""),
        message="FileNotFoundError",
    ),
    Hostile(
        "write_outside",
        "open('{marker}', 'w').write('x')\n",
        "forbidden",
        "runtime_error",
        escaping("""
done = []
open = _module("io").open  # the real one: the child's builtins refuse open
for path, mode in [("{marker}", "w"), ("{project_marker}", "w"), ("{reference}", "a"), ("/sandbox/../{marker_name}", "w")]:
    try:
        with open(path, mode) as f:
            f.write("# written by a submission")
        done.append(path + ": WRITTEN")
    except OSError as exc:
        done.append(path + ": " + type(exc).__name__)
raise RuntimeError(" | ".join(done))
"""),
        message="FileNotFoundError",
    ),
    Hostile(
        "socket_to_local_port",
        "import socket\nsocket.create_connection(('127.0.0.1', {port}))\n",
        "forbidden",
        "runtime_error",
        escaping("""
socket = _module("socket")
sock = socket.create_connection(("127.0.0.1", {port}), timeout=2)
sock.sendall(b"escaped")
"""),
        message="PermissionError",
    ),
    Hostile(
        "sys_exit",
        "import sys\nsys.exit(0)\n",
        "forbidden",
        "runtime_error",
        escaping("sys.exit(0)"),
        message="SystemExit",
    ),
    Hostile(
        "os_exit",
        "import os\nos._exit(0)\n",
        "forbidden",
        "runtime_error",
        escaping("os._exit(0)"),
        message="before reporting a result",
    ),
    Hostile(
        "signal_to_the_grader",
        "import os, signal\nos.kill({driver_pid}, signal.SIGKILL)\n",
        "forbidden",
        "runtime_error",
        escaping("os.kill({driver_pid}, 9)"),
        message="PermissionError",
        without_root=("runtime_error", "ProcessLookupError"),
    ),
    # Without root its parent has no number in its PID namespace (getppid() is 0): kill(0) reaches
    # only its own group, itself, and the module ends without defining the entry point.
    Hostile(
        "kill_the_zygote",
        "import os\nos.kill(os.getppid(), 9)\n",
        "forbidden",
        "runtime_error",
        escaping("os.kill(os.getppid(), 9)"),
        message="PermissionError",
        without_root=("compile_error", "is not defined"),
    ),
    Hostile(
        "recursion_bomb",
        "def down(n):\n    return down(n + 1)\n\n\n" + ENTRY + "    return down(0)\n",
        "runtime_error",
        "runtime_error",
        message="RecursionError",
    ),
    Hostile(
        "subclasses_escape",
        "print(().__class__.__base__.__subclasses__())\n",
        "forbidden",
        "runtime_error",
        escaping("""
ctypes = _module("ctypes")
tried = []
for what, attempt in [("exec", lambda: os.execv("/bin/sh", ["sh", "-c", "touch {marker}"])),
                      ("setuid root", lambda: os.setuid(0)),
                      ("unshare", lambda: ctypes.CDLL(None, use_errno=True).unshare(0x10000000) == 0 or ctypes.get_errno()),
                      ("chroot", lambda: os.chroot("/"))]:
    try:
        tried.append(f"{what}: {attempt()}")
    except OSError as exc:
        tried.append(f"{what}: {type(exc).__name__}")
raise RuntimeError(" | ".join(tried))
"""),
        message="exec: PermissionError | setuid root: PermissionError | unshare: 1 | chroot: PermissionError",
        without_root=(
            "runtime_error",
            "exec: PermissionError | setuid root: OSError | unshare: 1 | chroot: PermissionError",
        ),
    ),
    Hostile(
        "patch_the_policy",
        """
import jax
import jax.numpy as jnp

jax.checkpoint_policies.dots_with_no_batch_dims_saveable = jax.checkpoint_policies.everything_saveable


def checkpoint_dot_policy(w1, w2, x):
    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    return jax.checkpoint(lambda w1, w2, x: jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2), policy=policy)(w1, w2, x)
""",
        "forbidden",
        "policy_violation",
        policies=("everything_saveable",),
    ),
    Hostile(
        "patch_jax_checkpoint",
        """
import jax
import jax.numpy as jnp

policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
jax.checkpoint = lambda fun, **options: fun


def checkpoint_dot_policy(w1, w2, x):
    return jax.checkpoint(lambda w1, w2, x: jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2), policy=policy)(w1, w2, x)
""",
        "forbidden",
        "policy_violation",
        policies=(),
    ),
    # Past the gate it patches its own process's report: the report no longer matches the program
    # the verifier ran, so the trusted facts alone decide (no checkpoint: a policy_violation).
    Hostile(
        "patch_the_inspection",
        "import judge.inspection\n",
        "forbidden",
        "policy_violation",
        escaping("""
import jax
import jax.numpy as jnp

provenance = sys.modules["judge.inspection.provenance"]
structure_module = sys.modules["judge.inspection.structure"]


def arg(name, n, d):
    return dict(kind="argument", what=name, line=None, dtype="float32", shape=[n, d], type=f"f32[{n},{d}]", bytes=4 * n * d)


def dot(n, d):
    return dict(kind="primitive", what="dot_general", line=None, dtype="float32", shape=[n, d],
                type=f"f32[{n},{d}]", bytes=4 * n * d, policy_saved=True, kept_by=0)


def claimed(derivative, marked, names, filename):
    (d, _), _, (n, _) = (a.shape for a in derivative.fwd.in_avals)
    return [arg("w1", d, d), arg("w2", d, d), arg("x", n, d), dot(n, d), dot(n, d)]


real_structure = structure_module.checkpoint_structure


def structure(closed, policies, active, filename):
    found = real_structure(closed, policies, active, filename)
    found["checkpoints"] = [dict(policy=["dots_with_no_batch_dims_saveable"], policy_text="dots_with_no_batch_dims_saveable",
                                 policy_origin="jax", policy_line=None, prevent_cse=True, line=None, parent=None,
                                 depth=0, in_loop=False, on_path=True, encloses={"dot_general": 2})]
    found["on_path"] = [["dot_general", None, [0], 2]]
    return found


provenance.saved_residuals = claimed
structure_module.checkpoint_structure = structure


def checkpoint_dot_policy(w1, w2, x):
    return jnp.sum((jax.nn.relu(x @ w1) @ w2) ** 2)
"""),
        message="Your program has no jax.checkpoint",
    ),
    Hostile("lazy_generator", ENTRY + "    return (w1 for _ in range(3))\n", "wrong_answer", "wrong_answer"),
    Hostile(
        "lazy_jax_array",
        "class Lazy:\n    def __jax_array__(self):\n        return 1.0\n\n\n" + ENTRY + "    return Lazy()\n",
        "forbidden",
        "wrong_answer",
        message="returned a Lazy",
    ),
    Hostile(
        "oversized_output",
        "import jax.numpy as jnp\n\n\n" + ENTRY + "    return jnp.zeros((1 << 16, 1 << 16)) + w1.sum()\n",
        "wrong_answer",
        "wrong_answer",
    ),
    Hostile(
        "results_over_the_cap",
        "import os\nos.write(3, b'x' * (40 << 20))\n",
        "forbidden",
        "output_limit",
        escaping("os.write(3, (40 << 20).to_bytes(8, 'big') + b'x' * (40 << 20))"),
    ),
    Hostile(
        "fake_a_sandbox_failure",
        "import os\nos.write(3, b'{}')\n",
        "forbidden",
        "runtime_error",
        escaping("""
os.write(3, sys.modules["judge.data.protocol"].encode({"kind": "sandbox_error", "detail": "blame the judge"}))
os._exit(0)
"""),
        message="sent back a sandbox failure from inside its sandbox",
    ),
    # Answers the child never gives, written straight to the result pipe: every case "not run"
    # (a mark only the parent sets, so not a field of the child's message), or no case at all;
    # either would leave no case to fail.
    Hostile(
        "claim_every_case_skipped",
        "import os\nos.write(3, b'{}')\n",
        "forbidden",
        "runtime_error",
        escaping("""
empty = {"checkpoints": [], "custom_derivatives": [], "primitives": {}, "on_path": []}
os.write(3, sys.modules["judge.data.protocol"].encode({"kind": "traced", "programs": None, "cases": [
    {"name": name, "error": {"kind": "runtime_error", "message": "not run", "line": None, "skipped": True},
     "treedef": "", "outputs": [], "residuals": [], "structure": empty, "programs": None, "cost": None}
    for name in ("sample-1", "sample-2", "tall", "wide")]}))
os._exit(0)
"""),
        message="sent back a malformed result",
    ),
    Hostile(
        "claim_no_case",
        "import os\nos.write(3, b'{}')\n",
        "forbidden",
        "runtime_error",
        escaping("""
os.write(3, sys.modules["judge.data.protocol"].encode({"kind": "traced", "cases": [], "programs": None}))
os._exit(0)
"""),
        message="sent back a malformed result",
    ),
    Hostile(
        "environment_secrets",
        "import os\nprint(os.environ)\n",
        "forbidden",
        "runtime_error",
        escaping("raise RuntimeError(repr(dict(os.environ)))"),
        message="PYTHONHASHSEED",
    ),
]
CORPUS += [
    Hostile(name, reflection.forging(reach), gated, deep, message=phrase)
    for name, (reach, gated, deep, phrase) in reflection.REACHES.items()
]
CORPUS.append(
    Hostile(
        "ctypes_memory",
        reflection.forging(reflection.CTYPES_MEMORY),
        "forbidden",
        "runtime_error",
        reflection.FORGERY + reflection.CTYPES_MEMORY + reflection.EXEC_A_SHELL,
        message="exec: PermissionError",
    )
)

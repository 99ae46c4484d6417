"""The client package: its settings file, its errors, and what it shows, without a site (a fake
transport answers as the API does; the end-to-end tests use the real one)."""

import json
import stat
import subprocess
import sys

import httpx
import pytest

import arena
from arena import cli, config
from arena.client import ArenaError, Client
from arena.result import Result


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv(config.URL_VARIABLE, raising=False)
    monkeypatch.delenv(config.TOKEN_VARIABLE, raising=False)
    return tmp_path


def test_importing_the_client_does_not_import_jax():
    done = subprocess.run(
        [sys.executable, "-c", "import sys, arena, arena.cli; print('jax' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "False"


def test_the_token_file_is_the_owners_alone_and_the_environment_wins(home, monkeypatch):
    path = config.save(url="http://site.example/api/v1/", token="arena_abc")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert json.loads(path.read_text()) == {"url": "http://site.example", "token": "arena_abc"}
    assert config.load() == config.Settings("http://site.example", "arena_abc", str(path))
    monkeypatch.setenv(config.TOKEN_VARIABLE, "arena_from_env")
    assert config.load().token == "arena_from_env" and config.load().url == "http://site.example"
    monkeypatch.setenv(config.URL_VARIABLE, "https://other.example")
    assert config.load() == config.Settings("https://other.example", "arena_from_env", "environment")
    assert config.forget() and not path.exists() and not config.forget()


def test_a_site_address_must_be_a_web_address(home):
    with pytest.raises(ValueError, match="not a web address"):
        config.site_root("arena.example.org")


def fake_site(handler) -> Client:
    return Client("http://site.example", "arena_t", transport=httpx.MockTransport(handler))


def test_the_sites_refusals_become_arena_errors_with_their_code_and_retry_after():
    def handler(request):
        assert request.headers["Authorization"] == "Bearer arena_t"
        return httpx.Response(
            429,
            headers={"Retry-After": "17"},
            json={"code": "rate_limited", "message": "Try again in 17 s.", "retry_after_s": 17},
        )

    with pytest.raises(ArenaError) as refused:
        fake_site(handler).create("p", "x = 1", kind="submit")
    assert (refused.value.code, refused.value.status, refused.value.retry_after_s) == ("rate_limited", 429, 17)
    assert str(refused.value) == "Try again in 17 s."
    with pytest.raises(ArenaError, match="without JSON: is it a Remat Arena site"):
        fake_site(lambda request: httpx.Response(200, text="<html>")).me()


SUBMISSION = {
    "id": 7,
    "problem": "checkpoint_dot_policy",
    "problem_title": "t",
    "version": 1,
    "kind": "submit",
    "status": "done",
    "done": True,
    "verdict": "policy_violation",
    "message": "relu <saved>",
    "created_at": "",
    "finished_at": "",
    "url": "/submissions/7/",
    "source": "",
    "result": {
        "verdict": "policy_violation",
        "description": "numbers right",
        "message": "relu <saved>",
        "cases": [
            {
                "name": "sample-1",
                "sample": True,
                "verdict": "policy_violation",
                "max_error": 0.0,
                "message": "relu saved",
            }
        ],
        "residuals": [
            {
                "type": "f32[8,16]",
                "bytes": 512,
                "saved_value": "output of relu",
                "line": 6,
                "offending": True,
                "missing": False,
                "reason": "the policy recomputes this",
            }
        ],
        "reference_residuals": [{"type": "f32[8,16]", "bytes": 512, "saved_value": "output of dot_general"}],
        "memory": {
            "residual_bytes": 1536,
            "reference_residual_bytes": 1024,
            "bytes_over": 512,
            "flops": None,
            "peak_bytes": None,
            "xla_flops": None,
            "xla_peak_bytes": None,
        },
        "checkpoints": [],
        "programs": None,
        "stdout": "",
        "time_s": 1.0,
        "notes": [],
    },
}


def test_a_result_reads_for_a_terminal_and_a_notebook():
    result = Result(SUBMISSION, site="http://site.example")
    assert not result and result.verdict == "policy_violation" and result.url == "http://site.example/submissions/7/"
    text = result.render(width=100)
    assert text.startswith("checkpoint_dot_policy #7 (all cases): policy_violation")
    assert "relu <saved>" in text and "512 bytes more than needed" in text
    assert any(line.startswith("!!") and "output of relu" in line for line in text.splitlines())
    tables = [line for line in text.splitlines() if "  " in line and not line.startswith("  ")]
    assert tables and max(len(line) for line in tables) <= 100  # prose is left to the terminal to wrap
    html = result._repr_html_()
    assert ">policy_violation</span>" in html and "relu &lt;saved&gt;" in html and "<saved>" not in html
    assert "output of dot_general" in html.split("What the required policy keeps")[1]


def test_the_command_exits_2_with_the_reason_when_nothing_is_configured(home, capsys):
    assert cli.main(["problems"]) == cli.FAILED
    assert "arena login URL" in capsys.readouterr().err


def test_the_submit_exit_status_is_0_only_on_accepted(home, monkeypatch, tmp_path, capsys):
    graded = {"verdict": "accepted"}

    def handler(request):
        if request.method == "POST":
            return httpx.Response(201, json={**SUBMISSION, "status": "queued", "done": False, "verdict": None})
        return httpx.Response(
            200,
            json={
                **SUBMISSION,
                "verdict": graded["verdict"],
                "result": {**SUBMISSION["result"], "verdict": graded["verdict"]},
            },
        )

    monkeypatch.setattr(cli, "_client", lambda: fake_site(handler))
    (tmp_path / "f.py").write_text("x = 1\n")
    assert cli.main(["submit", "checkpoint_dot_policy", str(tmp_path / "f.py"), "--wait"]) == cli.ACCEPTED
    graded["verdict"] = "policy_violation"
    assert cli.main(["submit", "checkpoint_dot_policy", str(tmp_path / "f.py"), "--wait"]) == cli.REJECTED
    assert cli.main(["submit", "checkpoint_dot_policy", str(tmp_path / "f.py")]) == cli.PENDING
    assert cli.main(["submit", "checkpoint_dot_policy", str(tmp_path / "missing.py")]) == cli.FAILED
    assert "missing.py" in capsys.readouterr().err


def test_the_module_api_waits_for_the_verdict(home, monkeypatch):
    answers = iter(
        [
            {**SUBMISSION, "status": "queued", "done": False, "verdict": None, "result": None},
            {**SUBMISSION, "status": "running", "done": False, "verdict": None, "result": None},
            SUBMISSION,
        ]
    )

    def handler(request):
        if request.method == "POST":
            assert json.loads(request.content) == {"source": "x = 1\n"}
            return httpx.Response(201, json={**SUBMISSION, "status": "queued", "done": False})
        return httpx.Response(200, json=next(answers))

    monkeypatch.setattr(arena, "_client", fake_site(handler))
    monkeypatch.setattr(sys.modules["arena.client"], "POLL_START_S", 0.0)
    result = arena.submit("checkpoint_dot_policy", "x = 1\n")
    assert result.verdict == "policy_violation" and result.residuals[0].offending


INSPECTION = {
    **SUBMISSION,
    "id": 8,
    "kind": "inspect",
    "verdict": None,
    "message": "on the sample case sample-1: ...",
    "url": "/submissions/8/",
    "result": {
        **SUBMISSION["result"],
        "verdict": None,
        "description": "",
        "cases": [],
        "reference_residuals": [],
        "residuals": [
            {
                "type": "f32[8,16]",
                "bytes": 512,
                "saved_value": "output of relu",
                "line": 6,
                "offending": False,
                "missing": False,
                "reason": "",
            }
        ],
        "checkpoints": [{"line": 5, "policy_text": "dots_with_no_batch_dims_saveable", "depth": 0}],
        "memory": {
            "residual_bytes": 512,
            "reference_residual_bytes": 0,
            "bytes_over": 512,
            "flops": 25599,
            "peak_bytes": 7812,
            "xla_flops": None,
            "xla_peak_bytes": None,
            "recomputed_operations": 3,
            "description": "Live bytes ...",
            "picture_svg": '<svg class="memory-picture"></svg>',
        },
    },
}


def test_an_inspection_prints_what_the_code_saves_its_checkpoints_and_peak_memory():
    result = Result(INSPECTION, site="http://site.example")
    assert result.inspected and not result.accepted
    text = result.render(width=100)
    assert text.startswith("checkpoint_dot_policy #8 (inspection, first sample case): inspected (no verdict)")
    assert "Saved for the backward pass: 512 bytes." in text and "more than needed" not in text
    assert any("output of relu" in line and line.split()[0] == "f32[8,16]" for line in text.splitlines())  # unmarked
    assert "checkpoint at line 5: policy dots_with_no_batch_dims_saveable" in text
    assert "peak 7812 bytes live; the backward pass recomputes 3 operations." in text
    assert "XLA" not in text and "What the required policy keeps" not in text
    html = result._repr_html_()
    assert "inspected</span> (no verdict)" in html and '<svg class="memory-picture">' in html  # the site's picture
    assert "What the required policy keeps" not in html


def test_the_judges_peak_is_the_one_that_counts_and_xlas_is_for_reference():
    graded = {**INSPECTION, "result": {**INSPECTION["result"], "memory": {**INSPECTION["result"]["memory"]}}}
    graded["result"]["memory"].update(xla_flops=25000, xla_peak_bytes=5160)
    line = Result(graded).cost_line()
    assert line.startswith("One gradient step: 25599 FLOPs, peak 7812 bytes live")
    assert "the judge's own figures, the ones budgets and the leaderboard read" in line
    assert line.index("7812") < line.index("5160") and "XLA's estimates" in line and "for reference only" in line


def test_an_offloading_policys_tables_say_which_values_wait_on_the_host():
    def row(saved, memory, **more):
        return {"type": "f32[4,8]", "bytes": 128, "saved_value": saved, "memory": memory, **more}

    mine = dict(line=7, offending=False, missing=False, reason="")
    graded = {
        **SUBMISSION,
        "result": {
            **SUBMISSION["result"],
            "residuals": [
                row("the value named 'h1'", "pinned_host", **mine),
                row("the value named 'h2'", "device", **mine),
            ],
            "reference_residuals": [row("the value named 'h1'", "pinned_host"), row("the value named 'h2'", "device")],
            "memory": {
                **SUBMISSION["result"]["memory"],
                "host_residual_bytes": 128,
                "reference_host_residual_bytes": 128,
            },
        },
    }
    text = Result(graded).render(width=160)
    lines = text.splitlines()
    assert sum("kept in" in line for line in lines) == 2  # both tables
    assert all(line.rstrip().endswith("host (offloaded)") for line in lines if "'h1'" in line)
    assert all(line.rstrip().endswith("device") for line in lines if "'h2'" in line)
    assert "On the host (offloaded, not counted above): yours 128 bytes, the required policy's 128." in text
    assert "host (offloaded)" in Result(graded)._repr_html_()
    assert "kept in" not in Result(SUBMISSION).render(width=160)  # nothing offloaded: no such column


def test_a_message_about_a_function_quotes_the_lines_it_cites_from_the_written_module():
    module = "import jax\n\n\ndef checkpoint_dot_policy(w1, w2, x):\n    return jax.nn.relu(x @ w1)\n"
    said = "Part of the computation lies outside (line 5): move it in."
    result = Result({**SUBMISSION, "result": {**SUBMISSION["result"], "message": said}})
    assert result.lines_note() == ""  # sent as text: the learner has its lines
    result.module_source = module
    note = result.lines_note()
    assert note.endswith("line 5: return jax.nn.relu(x @ w1)") and "result.module_source" in note
    assert note in result.render(width=120) and "line 5: return" in result._repr_html_()


def test_arena_inspect_sends_to_the_inspections_and_exits_0_when_it_ran(home, monkeypatch, tmp_path, capsys):
    answer = {"graded": INSPECTION}
    sent = []

    def handler(request):
        if request.method == "POST":
            sent.append(request.url.path)
            return httpx.Response(201, json={**INSPECTION, "status": "queued", "done": False, "result": None})
        return httpx.Response(200, json=answer["graded"])

    monkeypatch.setattr(cli, "_client", lambda: fake_site(handler))
    (tmp_path / "f.py").write_text("x = 1\n")
    assert cli.main(["inspect", "checkpoint_dot_policy", str(tmp_path / "f.py")]) == cli.ACCEPTED
    out = capsys.readouterr()
    assert sent == ["/api/v1/problems/checkpoint_dot_policy/inspections"] and "Inspecting as #8" in out.err
    assert "inspected (no verdict)" in out.out and "output of relu" in out.out
    # code that could not be inspected: the failure's verdict, exit 1
    answer["graded"] = {
        **INSPECTION,
        "verdict": "runtime_error",
        "message": "NameError: name 'y' is not defined",
        "result": {
            **INSPECTION["result"],
            "verdict": "runtime_error",
            "residuals": [],
            "message": "NameError: name 'y' is not defined",
        },
    }
    assert cli.main(["inspect", "checkpoint_dot_policy", str(tmp_path / "f.py")]) == cli.REJECTED
    assert "NameError" in capsys.readouterr().out


def test_the_module_api_inspects(home, monkeypatch):
    def handler(request):
        if request.method == "POST":
            assert request.url.path.endswith("/inspections")
            return httpx.Response(201, json={**INSPECTION, "status": "queued", "done": False, "result": None})
        return httpx.Response(200, json=INSPECTION)

    monkeypatch.setattr(arena, "_client", fake_site(handler))
    monkeypatch.setattr(sys.modules["arena.client"], "POLL_START_S", 0.0)
    result = arena.inspect("checkpoint_dot_policy", "x = 1\n")
    assert result.inspected and result.memory.peak_bytes == 7812

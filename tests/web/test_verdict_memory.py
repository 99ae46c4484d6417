"""The verdict page of an offloading problem says where each residual is kept (issue 15): on the
device or on the host, and the host bytes apart from the device bytes the ranking counts."""

import pytest
from django.urls import reverse

from judge.data.evidence import Residual, ResidualRow
from judge.data.report import Report
from webplatform.submissions import services

from ..e2e.browser import SCREENSHOTS
from .api import api_for
from .helpers import correct_source, signed_in
from .test_every_page import measure

pytestmark = pytest.mark.django_db


def product(memory: str, line: int | None) -> dict:
    return dict(
        kind="primitive",
        what="dot_general",
        line=line,
        dtype="float32",
        shape=[8, 16],
        type="f32[8,16]",
        bytes=512,
        memory=memory,
    )


def kept_on_the_device() -> dict:
    """The report of the plain dots policy on offload_dots_to_host: the product on the device."""
    argument = Residual(kind="argument", what="x", line=None, dtype="float32", shape=[8, 4], type="f32[8,4]", bytes=128)
    reason = "saved on the device; the offload_dot_with_no_batch_dims policy offloads it to pinned_host"
    return Report(
        problem="offload_dots_to_host",
        verdict="policy_violation",
        message=f"case sample-1: {reason}",
        residuals=[ResidualRow(**vars(argument)), ResidualRow(**product("device", 8), offending=True, reason=reason)],
        reference_residuals=[argument, Residual(**product("pinned_host", 6))],
        residual_bytes=640,
        reference_residual_bytes=128,
        host_residual_bytes=0,
        reference_host_residual_bytes=512,
    ).to_dict()


def graded(user, problem, report: dict):
    submission = services.create_submission(user=user, problem=problem, source=correct_source(), kind="submit")
    claimed = services.claim_submission(submission_id=submission.pk, task_id=f"t{submission.pk}")
    services.complete_submission(submission_id=submission.pk, attempt=claimed.attempts, report=Report.from_dict(report))
    return submission


def test_each_residual_row_says_its_memory_and_host_bytes_are_told_apart(client, bank, learner):
    submission = graded(learner, bank["offload_dots_to_host"], kept_on_the_device())
    client.force_login(learner)
    html = client.get(reverse("submissions:detail", args=[submission.pk])).content.decode()
    yours, required = html.split('id="required-residual-table"')
    assert yours.count('<span class="memory-kind">on the device</span>') == 2
    assert '<span class="memory-kind on-host">on the host (pinned_host)</span>' in required
    assert "These are device bytes. Offloaded to host memory: yours <strong>0 bytes</strong>" in html


def test_the_api_says_the_same(client, bank, learner):
    submission = graded(learner, bank["offload_dots_to_host"], kept_on_the_device())
    result = api_for(client, learner).get(f"/submissions/{submission.pk}").json()["result"]
    assert [r["memory"] for r in result["residuals"]] == ["device", "device"]
    assert [r["memory"] for r in result["reference_residuals"]] == ["device", "pinned_host"]
    memory = result["memory"]
    assert (memory["residual_bytes"], memory["host_residual_bytes"]) == (640, 0)
    assert (memory["reference_residual_bytes"], memory["reference_host_residual_bytes"]) == (128, 512)


def test_a_problem_that_offloads_nothing_shows_no_memories(client, bank, learner):
    plain = dict(kept_on_the_device(), reference_residuals=[], host_residual_bytes=0, reference_host_residual_bytes=0)
    plain.pop("reference_host_residual_bytes")
    submission = graded(learner, bank["checkpoint_dot_policy"], plain)
    client.force_login(learner)
    html = client.get(reverse("submissions:detail", args=[submission.pk])).content.decode()
    assert "memory-kind" not in html and "device bytes" not in html


def test_the_memories_fit_a_phone_and_a_laptop_and_pass_axe(live_browser, live_server, bank, learner):
    submission = graded(learner, bank["offload_dots_to_host"], kept_on_the_device())
    page = signed_in(live_browser, live_server, learner).new_page()
    page.goto(live_server.url + reverse("submissions:detail", args=[submission.pk]))
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width in (390, 1366):
        page.set_viewport_size({"width": width, "height": 844 if width < 800 else 900})
        found = measure(page)
        assert found.sideways_px == 0 and not found.serious, (width, found.violations)
        page.locator("#residual-table").scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENSHOTS / f"verdict_offloading_{width}.png"))

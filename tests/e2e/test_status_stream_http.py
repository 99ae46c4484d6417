"""The event stream on the site as ``make run`` serves it (gunicorn's ASGI worker, the real
worker): a submission's events arrive over a socket, in order, and end with its verdict."""

import json
import urllib.request

import pytest

from ..web.helpers import correct_source

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_the_stream_follows_a_submission_to_its_verdict(site):
    session = site.session()
    status, created = session.post_json("/problems/checkpoint_dot_policy/submit/", {"source": correct_source()})
    assert status == 201, created
    request = urllib.request.Request(
        site.url + created["events_url"],
        headers={"Accept": "text/event-stream", "Cookie": f"sessionid={session.cookie('sessionid')}"},
    )
    seen = []
    with urllib.request.urlopen(request, timeout=180) as response:
        assert response.headers["Content-Type"] == "text/event-stream"
        for line in response:
            if line.startswith(b"data: "):
                seen.append(json.loads(line[len("data: ") :]))
                if seen[-1]["done"]:
                    break
    assert seen[0]["id"] == created["id"] and seen[0]["status"] in ("queued", "running")
    assert seen[-1]["verdict"] == "accepted" and "result_html" in seen[-1]
    assert seen[-1] == session.get_json(created["status_url"])  # the same payload as the poll's

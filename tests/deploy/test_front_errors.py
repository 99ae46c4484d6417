"""make run's front (nginx, devstack/front.py) answers its own errors as the site does: JSON under
/api/ (the API's ``{"code", "message"}``) and to a JSON client (``{"error": ...}``), a short page
otherwise, each with its status, and never names its version. Its own errors are those it makes
before or instead of the site: a request line it cannot read (a NUL byte), an address too long
(414), the servers behind it away (502)."""

import json
import re
import shutil
import socket
import subprocess
import time

import pytest

from devstack.front import FRONT_ERRORS, nginx_config

NGINX = shutil.which("nginx") or shutil.which("/usr/sbin/nginx")
VERSION = re.compile(rb"nginx/\d")


def config_text(tmp_path, port: int = 8000) -> str:
    return nginx_config(
        "127.0.0.1",
        port,
        tmp_path / "pages.sock",
        tmp_path / "streams.sock",
        tmp_path / "front",
        tmp_path / "front.log",
    )


def test_the_front_hides_its_version_and_sends_its_own_errors_to_the_sites_answers(tmp_path):
    text = config_text(tmp_path)
    assert re.search(r"^\s*server_tokens off;", text, re.M)
    [line] = [line for line in text.splitlines() if line.strip().startswith("error_page")]
    assert {400, 414, 502, 503, 504} <= set(FRONT_ERRORS) and all(str(code) in line.split() for code in FRONT_ERRORS)
    assert '"~^[A-Z]+ /api/" api;' in text and '"~application/json" json;' in text


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def raw(port: int, request: bytes) -> tuple[int, dict, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body


def request(target: bytes, accept: bytes = b"text/html") -> bytes:
    return b"GET " + target + b" HTTP/1.1\r\nHost: arena.test\r\nAccept: " + accept + b"\r\nConnection: close\r\n\r\n"


@pytest.fixture
def front(tmp_path):
    """nginx with this repository's configuration, nothing behind it (its sockets do not exist)."""
    if NGINX is None:
        pytest.skip("nginx is not installed (make system-deps installs it)")
    port = free_port()
    conf = tmp_path / "front.conf"
    conf.write_text(config_text(tmp_path, port))
    process = subprocess.Popen([NGINX, "-e", str(tmp_path / "front.log"), "-c", str(conf)])
    try:
        deadline = time.monotonic() + 10
        while not listening(port):
            assert process.poll() is None, (tmp_path / "front.log").read_text()
            assert time.monotonic() < deadline, "nginx did not listen"
            time.sleep(0.05)
        yield port
    finally:
        process.terminate()
        process.wait(10)


def test_the_fronts_own_errors_are_json_under_the_api_and_name_no_version(front):
    cases = [
        (request(b"/api/v1/me"), 502, "unavailable"),  # the servers behind it are away
        (request(b"/api/v1/problems?q=" + b"x" * 20000), 414, "uri_too_long"),
        (request(b"/api/v1/a\x00b"), 400, "bad_request"),
    ]
    for sent, status, code in cases:
        got, headers, body = raw(front, sent)
        assert (got, headers["content-type"]) == (status, "application/json"), (sent[:40], body[:200])
        answer = json.loads(body)
        assert answer["code"] == code and answer["message"] and set(answer) == {"code", "message"}
        assert not VERSION.search(body) and not VERSION.search(headers.get("server", "").encode())


def test_the_fronts_own_errors_are_json_to_a_json_client_and_a_page_to_a_browser(front):
    status, headers, body = raw(front, request(b"/problems/", b"application/json"))
    assert status == 502 and headers["content-type"] == "application/json" and "try again" in json.loads(body)["error"]
    status, headers, body = raw(front, request(b"/problems/?q=" + b"x" * 20000))
    assert status == 414 and headers["content-type"].startswith("text/html") and b"longer than the site accepts" in body
    assert not VERSION.search(body) and headers["server"] == "nginx"

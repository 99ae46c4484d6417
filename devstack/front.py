"""The site's one origin: how ``make run`` (and the page benchmark) serve pages and event streams.

Two layouts (``--layout``):

- ``split`` (the default): nginx on the site's port, in front of two gunicorns on Unix sockets in
  ``var/run/``: the pages on the WSGI thread worker (``gthread``: a request runs on a thread of a
  fixed pool, nothing else in between), the event streams (``/submissions/<id>/events/``) on
  gunicorn's ASGI worker, where a waiting learner holds an open socket, not a thread (see
  ``submissions/stream.py``). The browser sees one host and port; nginx passes each event on at
  once (the stream's ``X-Accel-Buffering: no``).
- ``asgi``: everything on gunicorn's ASGI worker, the layout before the split. Kept so that the benchmark
  can measure the two side by side: under it Django runs each request's sync middleware and view
  through ``sync_to_async`` in a thread made for that request (asgiref's ``ThreadSensitiveContext``),
  hopping between the event loop and that thread several times per request, which made every page
  slower than on threads.
"""

from __future__ import annotations

import os
import shutil
import socket
import sys
from pathlib import Path

from .processes import Child, wait_until

LAYOUTS = ("split", "asgi")
# Pages: WSGI on threads. --keep-alive past nginx's 60 s for idle upstream connections, so that
# nginx never sends a request on a connection gunicorn is closing (a POST would not be retried).
PAGES_SERVER = ("-k", "gthread", "--keep-alive", "75", "webplatform.wsgi:application")
PAGE_THREADS = 4  # per pages' worker process
# Event streams (and, in the ``asgi`` layout, everything): gunicorn's own ASGI worker; behind the
# front, with the backlog gunicorn means (asgi_worker.py).
ASGI_SERVER = ("-k", "asgi", "webplatform.asgi:application")
STREAMS_SERVER = ("-k", "devstack.asgi_worker.ASGIWorker", "webplatform.asgi:application")
STREAM_LOCATION = r"^/submissions/[0-9]+/events/$"  # the path webplatform.asgi hands to the stream
NGINX_CONFIG = """\
daemon off;
worker_processes 1;
worker_rlimit_nofile 20000;
pid {files}.pid;
error_log {log} warn;
{user}
events {{ worker_connections 10000; }}
http {{
    access_log off;  # gunicorn's log has each request
    server_tokens off;  # no version in the Server header nor on nginx's own pages
{errors_http}
    client_body_temp_path {files}-body;
    proxy_temp_path {files}-proxy;
    fastcgi_temp_path {files}-fastcgi;
    uwsgi_temp_path {files}-uwsgi;
    scgi_temp_path {files}-scgi;
    client_max_body_size 0;  # the site's own limits answer, in its own words
    # max_fails=0: one refused connection must not make nginx take its only server for down (10 s of 502s)
    upstream pages {{ server unix:{pages} max_fails=0; keepalive 32; }}
    upstream streams {{ server unix:{streams} max_fails=0; keepalive 32; }}
    server {{
        listen {host}:{port};
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host $http_host;
        # the learner's address, for the sign-in throttle (webplatform/wsgi.py trusts it only
        # from this socket)
        proxy_set_header X-Real-IP $remote_addr;
{errors_server}
        location ~ {stream} {{
            proxy_pass http://streams;
            proxy_read_timeout 1h;  # a stream sends its heartbeat every 15 s and ends by 10 min
        }}
        location / {{ proxy_pass http://pages; }}
    }}
}}
"""

# nginx's own errors (a request it cannot read, an address too long, headers too large, the servers
# behind it away): JSON in the API's shape ({"code", "message"}) under /api/, {"error": ...} to a
# JSON client elsewhere, a short page otherwise; each with its status and nothing of nginx's
# version. Told apart by the request line as nginx read it ($request: it holds the path even when
# the line was too long or held a NUL byte, where $request_uri is empty) and the Accept header.
# The site's own errors pass through as Django made them.
FRONT_ERRORS = (400, 408, 413, 414, 431, 494, 500, 502, 503, 504)
FRONT_ERROR_WORDS = {
    400: ("bad_request", "The request could not be read."),
    408: ("request_timeout", "The request took too long to arrive."),
    413: ("request_too_large", "The request is larger than the site accepts."),
    414: ("uri_too_long", "The address is longer than the site accepts."),
    431: ("headers_too_large", "The request's headers are larger than the site accepts."),
    494: ("headers_too_large", "The request's headers are larger than the site accepts."),
    500: ("internal_error", "The site failed on this request; it is not your fault. Try again later."),
    502: ("unavailable", "The site is restarting or away for a moment: try again in a few seconds."),
    503: ("unavailable", "The site is restarting or away for a moment: try again in a few seconds."),
    504: ("unavailable", "The site took too long to answer: try again in a few seconds."),
}
FRONT_ERROR_LOCATION = "/__front_error"
ERRORS_HTTP = "\n".join(
    [
        '    map "$request $http_accept" $front_error_kind {{',
        "        default page;",
        '        "~^[A-Z]+ /api/" api;',
        '        "~application/json" json;',
        "    }}",
        "    map $status $front_error_code {{",
        *(f"        {status} {code};" for status, (code, _) in FRONT_ERROR_WORDS.items()),
        "        default front_error;",
        "    }}",
        "    map $status $front_error_message {{",
        *(f'        {status} "{words}";' for status, (_, words) in FRONT_ERROR_WORDS.items()),
        '        default "The site could not answer this request.";',
        "    }}",
    ]
)
ERRORS_SERVER = "\n".join(
    [
        f"        error_page {' '.join(map(str, FRONT_ERRORS))} {FRONT_ERROR_LOCATION}/$front_error_kind;",
        "        # internal: only nginx's errors come here; the status stays the error's",
        f"        location = {FRONT_ERROR_LOCATION}/api {{{{",
        "            internal;",
        "            default_type application/json;",
        '            return 200 \'{{"code": "$front_error_code", "message": "$front_error_message"}}\\n\';',
        "        }}",
        f"        location = {FRONT_ERROR_LOCATION}/json {{{{",
        "            internal;",
        "            default_type application/json;",
        '            return 200 \'{{"error": "$front_error_message"}}\\n\';',
        "        }}",
        f"        location = {FRONT_ERROR_LOCATION}/page {{{{",
        "            internal;",
        "            default_type text/html;",
        '            return 200 \'<!doctype html><html lang="en"><meta charset="utf-8"><title>$status</title>'
        "<h1>$status</h1><p>$front_error_message</p></html>\\n';",
        "        }}",
    ]
)


def nginx_binary() -> str:
    binary = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.path.exists(p)), None)
    if binary is None:
        raise RuntimeError("nginx is not installed: run `make system-deps` (as root) or `apt-get install nginx`")
    return binary


def nginx_config(host: str, port: int, pages: Path, streams: Path, files: Path, log: Path) -> str:
    """nginx on host:port in front of the two sockets; ``files`` names its pid and temporary files."""
    # Run as root, nginx's workers would become ``nobody``, who cannot write var/run's temporary files.
    user = "user root;" if os.geteuid() == 0 else ""
    return NGINX_CONFIG.format(
        files=files,
        pages=pages,
        streams=streams,
        log=log,
        user=user,
        host=host,
        port=port,
        stream=STREAM_LOCATION,
        errors_http=ERRORS_HTTP.format(),
        errors_server=ERRORS_SERVER.format(),
    )


def gunicorn(name: str, server: tuple, bind: str, workers: int, log: Path, access_log: str, env: dict) -> Child:
    # --no-control-socket: else every gunicorn on the machine shares ~/.gunicorn/gunicorn.ctl
    return Child(
        name,
        [
            sys.executable,
            "-m",
            "gunicorn",
            *server,
            "-b",
            bind,
            "-w",
            str(workers),
            "--graceful-timeout",
            "5",
            "--no-control-socket",
            "--access-logfile",
            access_log,
        ],
        log,
        env=env,
    )


def web_children(
    layout: str,
    host: str,
    port: int,
    var: Path,
    workers: int,
    access_log: str = "-",
    env: dict | None = None,
    prefix: str = "",
    threads: int = PAGE_THREADS,
) -> list[Child]:
    """The processes that serve the site on ``host:port`` in ``layout``, in the order to start
    them (the front last: it answers once the servers behind it are there)."""
    env, logs, run = env or {}, var / "log", (var / "run").resolve()
    # On SQLite, only the pages' fixed threads keep their connection (webplatform/settings.py says
    # why the streams' pool threads must not); under Django's ASGI handler, a thread per request,
    # a kept connection would only wait for its thread to end.
    per_request, kept = {**env, "SQLITE_CONN_MAX_AGE": "0"}, {**env, "SQLITE_CONN_MAX_AGE": "60"}
    if layout == "asgi":
        return [
            gunicorn(
                f"{prefix}web",
                ASGI_SERVER,
                f"{host}:{port}",
                workers,
                logs / f"{prefix}web.log",
                access_log,
                per_request,
            )
        ]
    if layout != "split":
        raise ValueError(f"unknown layout {layout!r}: one of {', '.join(LAYOUTS)}")
    run.mkdir(parents=True, exist_ok=True)
    logs.mkdir(parents=True, exist_ok=True)
    pages, streams = run / f"{prefix}pages.sock", run / f"{prefix}streams.sock"
    front_log = logs.resolve() / f"{prefix}front.log"
    config = run / f"{prefix}front.conf"
    config.write_text(nginx_config(host, port, pages, streams, run / f"{prefix}front", front_log))
    return [
        gunicorn(
            f"{prefix}pages",
            (*PAGES_SERVER, "--threads", str(threads)),
            f"unix:{pages}",
            workers,
            logs / f"{prefix}pages.log",
            access_log,
            kept,
        ),
        gunicorn(
            f"{prefix}streams",
            STREAMS_SERVER,
            f"unix:{streams}",
            workers,
            logs / f"{prefix}streams.log",
            access_log,
            per_request,
        ),
        # -e: its log from the start, before it reads the file (else /var/log/nginx/, which may not be ours)
        Child(f"{prefix}front", [nginx_binary(), "-e", str(front_log), "-c", str(config)], front_log, env=env),
    ]


def unix_socket_accepts(path: str) -> bool:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(path) == 0


def start_web(children: list[Child], start) -> Child:
    """Starts ``children`` (``web_children``) with ``start``, the front only once each socket behind
    it accepts (else its first answers are 502s); returns the one that answers on the site's port."""
    for child in children:
        if child.name.endswith("front"):
            for server in children[:-1]:
                path = server.argv[server.argv.index("-b") + 1].removeprefix("unix:")
                wait_until(
                    lambda path=path: unix_socket_accepts(path), 60, f"{server.name} to listen on {path}", server
                )
        start(child)
    return children[-1]


def describe(layout: str, workers: int, threads: int = PAGE_THREADS) -> str:
    if layout == "asgi":
        return f"asgi: gunicorn's ASGI worker serves everything ({workers} workers)"
    return (
        f"split: nginx on the site's port; pages on gunicorn gthread ({workers} workers x {threads} threads, "
        f"WSGI); event streams on gunicorn's ASGI worker ({workers} workers)"
    )

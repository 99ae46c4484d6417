"""``/healthz`` for load balancers, docker-compose and people: which part is away.

200 ``{"ok": true, "database": "ok", "broker": "ok"}`` when both answer; otherwise 503 with
``Retry-After`` and ``"unavailable"`` for each part that does not (the process itself answers).
Why a part is down (the driver's error: host, port, database name) is internals: it is logged,
and shown only to staff and to a scraper with METRICS_TOKEN (``http.is_operator``)."""

from __future__ import annotations

import logging

from django.db import DatabaseError, connection
from django.http import JsonResponse

from . import broker
from .database import drop_broken_connections
from .errors import RETRY_AFTER_S
from .http import is_operator

log = logging.getLogger(__name__)
DOWN = "unavailable"


def _database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError as exc:
        drop_broken_connections()
        return f"{DOWN}: {type(exc).__name__}: {str(exc).strip()[:200]}"
    return "ok"


def _broker() -> str:
    try:
        broker.ping()
    except broker.BrokerUnavailable as exc:
        return f"{DOWN}: {str(exc)[:200]}"
    return "ok"


def healthz(request):
    parts = {"database": _database(), "broker": _broker()}
    ok = all(state == "ok" for state in parts.values())
    for part, state in parts.items():
        if state != "ok":
            log.warning("healthz: %s %s", part, state)
    if not is_operator(request, session=parts["database"] == "ok"):
        parts = {part: state if state == "ok" else DOWN for part, state in parts.items()}
    response = JsonResponse({"ok": ok, **parts}, status=200 if ok else 503)
    if not ok:
        response["Retry-After"] = str(RETRY_AFTER_S)
    return response

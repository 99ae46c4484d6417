"""``/healthz`` for load balancers, docker-compose and people: which part is away.

200 ``{"ok": true, "database": "ok", "broker": "ok"}`` when both answer; otherwise 503 with
``Retry-After`` and the reason of each part that does not (the process itself answers)."""
from __future__ import annotations

from django.db import DatabaseError, connection
from django.http import JsonResponse

from . import broker
from .database import drop_broken_connections
from .errors import RETRY_AFTER_S


def _database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError as exc:
        drop_broken_connections()
        return f"unavailable: {type(exc).__name__}: {str(exc).strip()[:200]}"
    return "ok"


def _broker() -> str:
    try:
        broker.ping()
    except broker.BrokerUnavailable as exc:
        return f"unavailable: {str(exc)[:200]}"
    return "ok"


def healthz(request):
    parts = {"database": _database(), "broker": _broker()}
    ok = all(state == "ok" for state in parts.values())
    response = JsonResponse({"ok": ok, **parts}, status=200 if ok else 503)
    if not ok:
        response["Retry-After"] = str(RETRY_AFTER_S)
    return response

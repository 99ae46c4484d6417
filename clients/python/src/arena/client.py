"""The site's JSON API over HTTP (``/api/v1``), with httpx. Every refusal becomes an
``ArenaError`` carrying the site's stable ``code`` and its message."""

from __future__ import annotations

import time
from typing import Any

import httpx

from . import __version__, config
from .result import Result

API = "/api/v1"
POLL_START_S = 0.25  # the first look at a new submission; then slower, up to POLL_MAX_S
POLL_MAX_S = 2.0
COLLECTIONS = {"run": "runs", "inspect": "inspections", "submit": "submissions"}  # where each kind is sent


class ArenaError(Exception):
    """A refusal of the site (``code`` as the API names it: ``rate_limited``, ``not_found`` ...)
    or a failure to reach it (``connection_failed``). ``retry_after_s``: when to try again."""

    def __init__(self, code: str, message: str, *, status: int | None = None, retry_after_s: int | None = None):
        super().__init__(message)
        self.code, self.message, self.status, self.retry_after_s = code, message, status, retry_after_s

    def __str__(self) -> str:
        return self.message


class Client:
    def __init__(self, url: str, token: str | None, *, timeout: float = 30.0, transport=None):
        self.url = config.site_root(url)
        headers = {"User-Agent": f"arena-client/{__version__}", "Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token.strip()}"
        self._http = httpx.Client(base_url=self.url, headers=headers, timeout=timeout, transport=transport)

    @classmethod
    def from_settings(cls) -> Client:
        """The site and token of ``ARENA_URL``/``ARENA_TOKEN``, else of ``arena login``."""
        settings = config.load()
        if not settings.url:
            raise ArenaError(
                "not_configured", "No site to talk to: run `arena login URL` first (or set ARENA_URL and ARENA_TOKEN)."
            )
        return cls(settings.url, settings.token)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- requests ---------------------------------------------------------------------------

    def _call(self, method: str, path: str, **kwargs) -> Any:
        try:
            response = self._http.request(method, API + path, **kwargs)
        except httpx.HTTPError as exc:
            raise ArenaError("connection_failed", f"Could not reach {self.url}: {exc}") from None
        try:
            body = response.json()
        except ValueError:
            raise ArenaError(
                "unexpected_response",
                f"{self.url} answered {response.status_code} without JSON: is it a Remat Arena site?",
                status=response.status_code,
            ) from None
        if response.is_success:
            return body
        code = body.get("code", "http_error") if isinstance(body, dict) else "http_error"
        message = body.get("message", response.reason_phrase) if isinstance(body, dict) else response.reason_phrase
        retry = response.headers.get("Retry-After")
        raise ArenaError(
            code, message, status=response.status_code, retry_after_s=int(retry) if retry and retry.isdigit() else None
        )

    def me(self) -> dict:
        return self._call("GET", "/me")

    def problems(self, *, tag: str | None = None, difficulty: str | None = None) -> list[dict]:
        params = {key: value for key, value in (("tag", tag), ("difficulty", difficulty)) if value}
        return self._call("GET", "/problems", params=params)["problems"]

    def problem(self, slug: str) -> dict:
        return self._call("GET", f"/problems/{slug}")

    def create(self, slug: str, source: str, *, kind: str, version: int | None = None) -> dict:
        """``kind``: "run" (sample cases, not recorded), "inspect" (what the code saves on a sample
        case, no verdict) or "submit" (every case, ranked)."""
        body = {"source": source} if version is None else {"source": source, "version": version}
        return self._call("POST", f"/problems/{slug}/{COLLECTIONS[kind]}", json=body)

    def submission(self, submission_id: int) -> dict:
        return self._call("GET", f"/submissions/{submission_id}")

    def history(self, *, problem: str | None = None, kind: str | None = None, limit: int = 50) -> list[dict]:
        params = {key: value for key, value in (("problem", problem), ("kind", kind), ("limit", limit)) if value}
        return self._call("GET", "/submissions", params=params)["submissions"]

    def leaderboard(self, slug: str | None = None, **params) -> dict:
        return self._call("GET", f"/leaderboard/problems/{slug}" if slug else "/leaderboard", params=params)

    # --- the courses you teach (an instructor's token; another's course is a 404) -------------

    def courses(self) -> list[dict]:
        return self._call("GET", "/courses")["courses"]

    def course(self, course_id: int) -> dict:
        """A course you teach, with its assignments."""
        return self._call("GET", f"/courses/{course_id}")

    def assignments(self, course_id: int) -> list[dict]:
        return self._call("GET", f"/courses/{course_id}/assignments")["assignments"]

    def assignment(self, course_id: int, assignment_id: int) -> dict:
        return self._call("GET", f"/courses/{course_id}/assignments/{assignment_id}")

    def roster(self, course_id: int) -> list[dict]:
        return self._call("GET", f"/courses/{course_id}/roster")["members"]

    def gradebook(self, course_id: int, assignment_id: int, *, q: str = "", show: str = "all") -> dict:
        """Each learner's row: a cell per problem (verdict, attempts, late, points) and the total.
        ``q``: part of a username, name, e-mail or student id; ``show``: all, missing, late,
        complete or none."""
        params = {key: value for key, value in (("q", q), ("show", show)) if value}
        return self._call("GET", f"/courses/{course_id}/assignments/{assignment_id}/gradebook", params=params)

    def similarity(self, course_id: int, assignment_id: int) -> dict:
        """The latest finished similarity check: its pairs, most similar first, and what it left out."""
        return self._call("GET", f"/courses/{course_id}/assignments/{assignment_id}/similarity")

    def check_similarity(self, course_id: int, assignment_id: int) -> dict:
        """Starts a similarity check; poll ``similarity`` until ``latest_status`` is done."""
        return self._call("POST", f"/courses/{course_id}/assignments/{assignment_id}/similarity")

    def set_similarity_base(
        self,
        course_id: int,
        assignment_id: int,
        base: str,
        *,
        excludes_starter: bool = True,
        excludes_reference: bool = True,
    ) -> dict:
        """What the next checks leave out: ``base`` (code every learner was given, such as a
        handout; "" for none), and each problem's starter and reference unless told not to."""
        body = {"base": base, "excludes_starter": excludes_starter, "excludes_reference": excludes_reference}
        return self._call("PUT", f"/courses/{course_id}/assignments/{assignment_id}/similarity/base", json=body)

    def extensions(self, course_id: int, assignment_id: int) -> list[dict]:
        return self._call("GET", f"/courses/{course_id}/assignments/{assignment_id}/extensions")["extensions"]

    def set_extension(self, course_id: int, assignment_id: int, user_id: int, due_at) -> list[dict]:
        """A learner's own due time (a timezone-aware ``datetime`` or ISO 8601 text with its
        offset), or None to take it back; the assignment's extensions after the change."""
        when = due_at.isoformat() if hasattr(due_at, "isoformat") else due_at
        path = f"/courses/{course_id}/assignments/{assignment_id}/extensions/{user_id}"
        return self._call("PUT", path, json={"due_at": when})["extensions"]

    def course_submission(self, course_id: int, submission_id: int) -> dict:
        """A learner's submission made for one of the course's assignments, with its report."""
        return self._call("GET", f"/courses/{course_id}/submissions/{submission_id}")

    def explore(
        self, source: str, function: str, args: list[str], *, budget: int | None = None, budget_on: str = "held"
    ) -> dict:
        """Queues the policy explorer on ``function`` of ``source`` with arguments of ``args``
        (such as ``"f32[64,128]"``); ``budget``: bytes the plan may use; ``budget_on``: what the
        budget bounds, ``"held"`` (between the passes, the default) or ``"peak"`` (the step's)."""
        body = {"source": source, "function": function, "args": list(args), "budget": budget, "budget_on": budget_on}
        return self._call("POST", "/explorations", json=body)

    def exploration(self, exploration_id: int, *, budget: int | None = None, on: str | None = None) -> dict:
        """One exploration; with ``budget``, the plan chosen for that budget instead; ``on``: what
        the budget bounds, ``"held"`` (between the passes) or ``"peak"`` (the step's), instead of
        what the exploration was started with."""
        params = {key: value for key, value in (("budget", budget), ("on", on)) if value}
        return self._call("GET", f"/explorations/{exploration_id}", params=params)

    def chosen_on(self, found: dict, *, budget: int | None, budget_on: str) -> dict:
        """A finished exploration with its plan chosen on ``budget_on``: as the site chose it, the
        exploration having been started so; chosen again by a site from before the choice at the
        start, which took every budget as held."""
        if found.get("budget_on", "held") != budget_on and found.get("status") == "done":
            found = self.exploration(found["id"], budget=budget, on=budget_on)
        return found

    def wait_exploration(self, exploration_id: int, *, timeout: float = 300.0, on_status=None) -> dict:
        """Polls until the exploration is done (or failed), as ``wait`` does a submission."""
        deadline, delay, last = time.monotonic() + timeout, POLL_START_S, None
        while True:
            data = self.exploration(exploration_id)
            if data["status"] != last and on_status is not None:
                on_status(data["status"])
            last = data["status"]
            if data["done"]:
                return data
            if time.monotonic() >= deadline:
                raise ArenaError(
                    "timeout",
                    f"Exploration {exploration_id} is still {data['status']} after "
                    f"{timeout:.0f} s; see {self.url}{data['url']}.",
                )
            time.sleep(delay)
            delay = min(delay * 1.5, POLL_MAX_S)

    def wait(self, submission_id: int, *, timeout: float = 300.0, on_status=None) -> Result:
        """Polls until the submission is graded; ``on_status(status)`` hears each change."""
        deadline, delay, last = time.monotonic() + timeout, POLL_START_S, None
        while True:
            data = self.submission(submission_id)
            if data["status"] != last and on_status is not None:
                on_status(data["status"])
            last = data["status"]
            if data["done"]:
                return Result(data, site=self.url)
            if time.monotonic() >= deadline:
                raise ArenaError(
                    "timeout",
                    f"Submission {submission_id} is still {data['status']} after "
                    f"{timeout:.0f} s; see {self.url}{data['url']} (or `arena status "
                    f"{submission_id} --wait`).",
                )
            time.sleep(delay)
            delay = min(delay * 1.5, POLL_MAX_S)

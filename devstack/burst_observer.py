"""What the burst reads of the site: the submissions table, directly (not through the site, nor
the database proxy that a fault takes away)."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path


def timestamp(value) -> float:
    """A stored time (a datetime, or SQLite's text of one in UTC) in seconds since the epoch."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value if "+" in value[10:] else value + "+00:00")
    return value.timestamp()


class Observer:
    """Reads the submissions table directly (not through the site, nor the proxy)."""

    def __init__(self, database: str, sqlite_path: Path | None = None, url: str | None = None):
        self.database, self.sqlite_path, self.url = database, sqlite_path, url

    def query(self, sql: str, args=()) -> list[tuple]:
        if self.database == "sqlite":
            with sqlite3.connect(self.sqlite_path, timeout=30) as connection:
                return connection.execute(sql.replace("%s", "?"), args).fetchall()
        import psycopg

        with psycopg.connect(self.url.replace("postgres://", "postgresql://", 1)) as connection:
            return connection.execute(sql, args).fetchall()

    def done(self) -> int:
        return self.query("SELECT COUNT(*) FROM submissions_submission WHERE status = 'done'")[0][0]

    def running_on(self, claimed_by: str) -> list[int]:
        """Gradings running on worker processes whose claim matches the LIKE pattern ``claimed_by``."""
        return [
            row[0]
            for row in self.query(
                "SELECT id FROM submissions_submission WHERE status = 'running' AND claimed_by LIKE %s", (claimed_by,)
            )
        ]

    def rows(self) -> dict[int, tuple]:
        return {
            row[0]: row[1:]
            for row in self.query(
                "SELECT id, status, verdict, attempts, created_at, finished_at FROM submissions_submission"
            )
        }

    def verdict_times(self) -> list[float]:
        return sorted(
            timestamp(row[0])
            for row in self.query("SELECT finished_at FROM submissions_submission WHERE finished_at IS NOT NULL")
        )

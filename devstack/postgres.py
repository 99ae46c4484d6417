"""A PostgreSQL database of our own on a server that lets us in, for the burst benchmark and its
fault test: ``TEST_POSTGRES_URL`` if set, else a local server over its socket or 127.0.0.1:5432
as the current user (as tests/postgres_pass.py finds one)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import quote

LOCAL_CANDIDATES = ("postgres:///postgres", "postgres://127.0.0.1:5432/postgres")


@dataclass
class Server:
    host: str  # a socket directory (starts with /) or a host name
    port: int
    user: str
    password: str

    def url(self, database: str, *, via_port: int | None = None) -> str:
        """A DATABASE_URL; ``via_port``: through a proxy on 127.0.0.1 instead."""
        auth = quote(self.user) + (f":{quote(self.password)}" if self.password else "")
        if via_port is not None:
            return f"postgres://{auth}@127.0.0.1:{via_port}/{database}"
        if self.host.startswith("/"):
            return f"postgres://{auth}@/{database}?host={quote(self.host)}&port={self.port}"
        return f"postgres://{auth}@{self.host}:{self.port}/{database}"

    @property
    def target(self) -> str | tuple[str, int]:
        """Where a proxy forwards to: the server's Unix socket, or its TCP address."""
        if self.host.startswith("/"):
            return os.path.join(self.host, f".s.PGSQL.{self.port}")
        return self.host, self.port

    def _admin(self):
        import psycopg

        return psycopg.connect(
            self.url("postgres").replace("postgres://", "postgresql://", 1), autocommit=True, connect_timeout=5
        )

    def create(self, name: str) -> None:
        with self._admin() as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            connection.execute(f'CREATE DATABASE "{name}"')

    def drop(self, name: str) -> None:
        with self._admin() as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def find_server() -> Server | None:
    """A server that lets us in and create databases, or None."""
    try:
        import psycopg
    except ImportError:
        return None
    for url in filter(None, (os.environ.get("TEST_POSTGRES_URL"), *LOCAL_CANDIDATES)):
        try:
            with psycopg.connect(url.replace("postgres://", "postgresql://", 1), connect_timeout=3) as connection:
                can_create = connection.execute(
                    "SELECT rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user"
                ).fetchone()[0]
                info = connection.info
                if can_create:
                    return Server(info.host, info.port, info.user, info.password or "")
        except psycopg.Error:
            continue
    return None

"""gunicorn's ASGI worker, listening with gunicorn's own ``--backlog`` (2048 by default).

Its worker hands the listening socket to asyncio's ``create_server`` without a backlog, which then
listens again with asyncio's default of 100. Over TCP a connection past that waits for its SYN to
be sent again; on the Unix socket behind ``make run``'s front it is refused at once (EAGAIN), so a
class whose pages opened their event streams together got 502s from nginx.
"""

from __future__ import annotations

from gunicorn.workers.gasgi import ASGIWorker as GunicornASGIWorker


class ASGIWorker(GunicornASGIWorker):
    def _setup_event_loop(self):
        super()._setup_event_loop()
        create_server = self.loop.create_server

        async def create_server_with_backlog(*args, **kwargs):
            kwargs.setdefault("backlog", self.cfg.backlog)
            return await create_server(*args, **kwargs)

        self.loop.create_server = create_server_with_backlog

"""Django's database sessions, read in one plain SELECT (``SESSION_ENGINE``).

Every signed-in page loads its session first; the ORM spent about 0.25 ms of CPU building that
one query (``Session.objects.get``), as much as the rest of a cached leaderboard's reads (issue
27). This reads the same row with the same conditions (this key, not expired) as Django's store,
written by the same code: sessions, their cookies, their expiry and their signing are Django's."""

from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.db import connections, router
from django.utils import timezone


class SessionStore(DatabaseSessionStore):
    def _get_session_from_db(self):
        if self.session_key is None:
            self._session_key = None
            return None
        model = self.model
        connection = connections[router.db_for_read(model)]
        table, key, data, expiry = (
            connection.ops.quote_name(name)
            for name in (model._meta.db_table, "session_key", "session_data", "expire_date")
        )
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT {data} FROM {table} WHERE {key} = %s AND {expiry} > %s",
                [self.session_key, connection.ops.adapt_datetimefield_value(timezone.now())],
            )
            row = cursor.fetchone()
        if row is None:
            self._session_key = None  # as Django's store: a key with no live session is dropped
            return None
        return model(session_key=self.session_key, session_data=row[0])

"""Django's ``ModelBackend``, loading the signed-in user with SQL written once (``AUTHENTICATION_BACKENDS``).

Every signed-in page loads its user; the ORM spent about 0.5 ms of CPU writing that one query
(``User.objects.get(pk=...)``) on each of them, the largest piece of a problem page left after
issue 27's first pass, against 0.1 ms to run it. The same query, written by the ORM once per
process (``core.prepared``). Passwords, permissions, the inactive check and the session hash
stay Django's."""

from __future__ import annotations

from django.contrib.auth import backends, get_user_model

from webplatform.core.prepared import prepared

PATH = "webplatform.accounts.backends.ModelBackend"  # what settings and every login() name

_user = prepared(lambda user_id: get_user_model()._default_manager.filter(pk=user_id))


class ModelBackend(backends.ModelBackend):
    def get_user(self, user_id):
        # user_id comes from django.contrib.auth.get_user, already read with the primary key's to_python
        found = _user(user_id=user_id)
        return found[0] if found and self.user_can_authenticate(found[0]) else None

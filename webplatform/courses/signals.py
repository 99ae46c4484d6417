"""Signals of the courses app.

``standings_changed`` is sent inside the transaction that changed learners' standings on
assignments (a verdict, a rejudge, new deadlines, an extension), with ``standings``: the ids of the
``Standing`` rows whose score moved. Whatever reports standings elsewhere (the LTI grade passback)
listens, and its own writes commit or roll back with the change."""

from django.dispatch import Signal

standings_changed = Signal()

"""Signals of the submissions app.

``verdicts_changed`` is sent inside the transaction of every write that gives a recorded
submission a verdict, takes its verdict away (a rejudge), moves it to another problem version or
deletes it, with ``pairs``: the set of (user id, problem version id) whose submissions changed. Whatever
summarises submissions (the leaderboard's progress table) listens, and its own writes commit or
roll back with the change."""

from django.dispatch import Signal

verdicts_changed = Signal()

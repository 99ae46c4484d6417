"""Signals of the courses app.

``standings_changed`` is sent inside the transaction that changed learners' standings on
assignments (a verdict, a rejudge, new deadlines, an extension), with ``standings``: the ids of the
``Standing`` rows whose score moved. Whatever reports standings elsewhere (the LTI grade passback)
listens, and its own writes commit or roll back with the change.

``course_panels`` is sent when a course's instructor opens its page, with ``course`` and
``user``: an app above (LTI's roster sync) answers with a panel to show in the roster's card, a
dict naming its ``template`` and what that template reads, or None. The courses app knows nothing
of those apps."""

from django.dispatch import Signal

standings_changed = Signal()
course_panels = Signal()

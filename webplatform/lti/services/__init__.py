"""Writes of the LTI tool, by concern; the rest of the site imports them from here.

- ``launches``: what a launch makes of the platform's ids (a site user per platform user, a
  course per platform course, an assignment per placed link);
- ``logins``: each login state spent once, by the launch it was issued for;
- ``scores``: the scores owed to platforms, sent by a task until accepted;
- ``roster_sync``: a course's roster read from its platform and applied;
- ``registration``: LTI Dynamic Registration (invites, and the platform that registers with one).

Who is who comes from the launch's verified claims only (the platform signed them): ``sub``
under the registration is the user, the context the course, the roles claim the role.
"""

from .launches import (
    INSTRUCTOR_ROLES,
    LIS_CLAIM,
    check_assignment,
    course_of,
    is_instructor_role,
    join,
    link_assignment,
    site_user,
    student_id_of,
)
from .logins import LOGIN_TTL_S, remember_login, spend_login
from .registration import INVITE_DAYS, create_registration_invite, register_platform
from .roster_sync import SYNC_TASK, request_roster_sync, sync_roster
from .scores import (
    FIRST_RETRY_S,
    LONGEST_RETRY_S,
    SEND_TASK,
    owe,
    report_standing,
    retry_delay,
    scores_changed,
    send_score,
    sweep_scores,
)

__all__ = [
    "FIRST_RETRY_S",
    "INSTRUCTOR_ROLES",
    "INVITE_DAYS",
    "LIS_CLAIM",
    "LOGIN_TTL_S",
    "LONGEST_RETRY_S",
    "SEND_TASK",
    "SYNC_TASK",
    "check_assignment",
    "course_of",
    "create_registration_invite",
    "is_instructor_role",
    "join",
    "link_assignment",
    "owe",
    "register_platform",
    "remember_login",
    "report_standing",
    "request_roster_sync",
    "retry_delay",
    "scores_changed",
    "send_score",
    "site_user",
    "spend_login",
    "student_id_of",
    "sweep_scores",
    "sync_roster",
]

"""Writes of courses, by concern; the rest of the site imports them from here.

- ``archiving``: an archived course is read-only (every write checks it first);
- ``roster``: the course and its roster (kept in step with the course's group, which is what lets
  members see the problems published to it), join codes and joining, a platform's roster sync;
- ``publishing``: problems published for the course, or made public from it;
- ``assignments``: assignments and extensions;
- ``standings``: recomputed in the transaction of whatever changed them;
- ``similarity_checks``: requested, claimed and recorded;
- ``instructors``: the site's instructor role (who may start courses), granted and revoked by staff.

Who may call what is the views' business (``selectors.taught``); these functions check what the
data must satisfy whoever calls them.
"""

from .archiving import archive_course
from .assignments import save_assignment, set_extension
from .instructors import grant_instructor, revoke_instructor
from .publishing import publish_to_course, publish_to_everyone
from .roster import (
    JOIN_FAILURES_PER_ADDRESS,
    JOIN_FAILURES_PER_USER,
    JOIN_WINDOW,
    JoinLimited,
    Role,
    add_instructor,
    create_course,
    deactivate_member,
    enrol,
    join_course,
    remove_member,
    rotate_join_code,
    set_student_id,
    sync_member,
)
from .similarity_checks import (
    SIMILARITY_TASK,
    claim_similarity_check,
    fail_similarity_check,
    record_similarity,
    request_similarity_check,
    set_similarity_base,
)
from .standings import refresh_standings, refresh_standings_for_verdicts

__all__ = [
    "JOIN_FAILURES_PER_ADDRESS",
    "JOIN_FAILURES_PER_USER",
    "JOIN_WINDOW",
    "SIMILARITY_TASK",
    "JoinLimited",
    "Role",
    "add_instructor",
    "archive_course",
    "claim_similarity_check",
    "create_course",
    "deactivate_member",
    "enrol",
    "fail_similarity_check",
    "grant_instructor",
    "join_course",
    "publish_to_course",
    "publish_to_everyone",
    "record_similarity",
    "refresh_standings",
    "refresh_standings_for_verdicts",
    "remove_member",
    "request_similarity_check",
    "revoke_instructor",
    "rotate_join_code",
    "save_assignment",
    "set_extension",
    "set_similarity_base",
    "set_student_id",
    "sync_member",
]

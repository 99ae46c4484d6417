"""Thin views of the course pages, by page: parse, call a selector or a service, render. Every page
needs a login; a course is a 404 to anyone outside it, and its instructors' pages to its learners.
``urls.py`` reaches them from here.

- ``courses``: the user's courses, starting and joining one, the course page and its settings;
- ``roster``: a course's members, and the site's instructor role;
- ``publishing``: problems published for a course only, or made public from it;
- ``assignments``: an assignment's form and pages, its gradebook, statistics and submissions;
- ``similarity_checks``: the pairs a check found, side by side.
"""

from .assignments import (
    assignment,
    edit_assignment,
    extension,
    gradebook,
    gradebook_export,
    statistics,
    submission,
)
from .courses import archive, create, detail, index, join, rotate_code
from .publishing import make_public, publish_chosen, publish_draft
from .roster import add_instructor, remove_member, site_instructors, student_id
from .similarity_checks import similar_pair, similarity_base, similarity_check

__all__ = [
    "add_instructor",
    "archive",
    "assignment",
    "create",
    "detail",
    "edit_assignment",
    "extension",
    "gradebook",
    "gradebook_export",
    "index",
    "join",
    "make_public",
    "publish_chosen",
    "publish_draft",
    "remove_member",
    "rotate_code",
    "similar_pair",
    "similarity_base",
    "similarity_check",
    "site_instructors",
    "statistics",
    "student_id",
    "submission",
]

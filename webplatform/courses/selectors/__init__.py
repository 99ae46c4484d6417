"""Reads of courses, by concern; the rest of the site imports them from here.

- ``members``: who belongs, and who may see what;
- ``problems``: an assignment's problems and weights, what it may set, what a course publishes;
- ``cells``: each learner's deadlines, the instructor rule (``made_for``), the gradebook's cells;
- ``learner_pages``: an assignment as a learner sees it, what is due soon;
- ``instructor_pages``: the gradebook, the causes of failed attempts, a learner's submission;
- ``similarity_checks``: what a check compares, and what it found.

A course's pages are for its members; its gradebook, statistics and its learners' code for its
instructors. Anything a user may not see is a 404, as if it did not exist (a course id says
nothing about whether the course exists).
"""

from .cells import cells, deadlines_for, extensions, made_for
from .instructor_pages import (
    CAUSE_SAMPLE,
    SHOW,
    Gradebook,
    Row,
    course_submission,
    failure_causes,
    gradebook,
)
from .learner_pages import (
    AssignmentView,
    assignment_context,
    assignment_view,
    due_soon,
    standing_of,
    visible_assignments,
)
from .members import (
    Role,
    account,
    assignment_of,
    can_create_courses,
    courses_of,
    holds_instructor_role,
    learners,
    membership,
    roster,
    roster_member,
    site_instructors,
    taught,
    taught_courses,
)
from .problems import (
    assignable_problems,
    course_problems,
    points_possible,
    problems_of,
    publish_targets,
    publishable_drafts,
    weights,
)
from .similarity_checks import (
    latest_similarity_check,
    shown_similarity_check,
    similar_pair,
    similar_pairs,
    similarity_sources,
)

__all__ = [
    "CAUSE_SAMPLE",
    "SHOW",
    "AssignmentView",
    "Gradebook",
    "Role",
    "Row",
    "account",
    "assignable_problems",
    "assignment_context",
    "assignment_of",
    "assignment_view",
    "can_create_courses",
    "cells",
    "course_problems",
    "course_submission",
    "courses_of",
    "deadlines_for",
    "due_soon",
    "extensions",
    "failure_causes",
    "gradebook",
    "holds_instructor_role",
    "latest_similarity_check",
    "learners",
    "made_for",
    "membership",
    "points_possible",
    "problems_of",
    "publish_targets",
    "publishable_drafts",
    "roster",
    "roster_member",
    "shown_similarity_check",
    "similar_pair",
    "similar_pairs",
    "similarity_sources",
    "site_instructors",
    "standing_of",
    "taught",
    "taught_courses",
    "visible_assignments",
    "weights",
]

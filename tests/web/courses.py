"""A course for the courses' and LTI tests, made through the real services: an instructor, two
learners who joined with the code, and an assignment of two bank problems (A due in a week with
a two-day late window at 30 %)."""

from dataclasses import dataclass
from datetime import timedelta

from webplatform.courses import services
from webplatform.courses.models import Assignment, Course, Membership

from .scenario import T0


@dataclass
class Class:
    course: Course
    assignment: Assignment
    instructor: object
    ada: object
    grace: object
    a: object  # checkpoint_dot_policy
    b: object  # checkpoint_names

    def day(self, n: float):
        return self.assignment.opens_at + timedelta(days=n)


def make_class(bank, make_user, *, instructor_name="iris") -> Class:
    instructor = make_user(instructor_name, instructor=True)
    course = services.create_course(user=instructor, title="Memory for autodiff", term="Spring 2026")
    ada, grace = make_user("ada"), make_user("grace")
    for learner in (ada, grace):
        services.join_course(user=learner, code=course.join_code)
    # They joined before the term began: what they try from the assignment's opening is theirs to count.
    Membership.objects.filter(course=course).update(joined_at=T0 - timedelta(days=60))
    a, b = bank["checkpoint_dot_policy"], bank["checkpoint_names"]
    assignment = services.save_assignment(
        course=course,
        title="Week 1",
        opens_at=T0,
        due_at=T0 + timedelta(days=7),
        late_until=T0 + timedelta(days=9),
        late_penalty_percent=30,
        problems=[a, b],
    )
    return Class(course, assignment, instructor, ada, grace, a, b)

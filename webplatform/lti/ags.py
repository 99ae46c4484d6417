"""Sending one score to a platform's Assignment and Grade Services (AGS 2.0), through pylti1p3:
an access token from the platform's token endpoint (a client-credentials grant signed with the
tool's key), then a POST to the line item's ``/scores``."""

from __future__ import annotations

import requests
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem
from pylti1p3.service_connector import ServiceConnector

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
TIMEOUT_S = 20


class Refused(Exception):
    """The platform did not take the score (unreachable, or it answered an error): try again later."""


class TimedSession(requests.Session):
    """pylti1p3 sends without a timeout; a platform that hangs must not hold a worker forever."""

    def request(self, *args, **kwargs):
        kwargs.setdefault("timeout", TIMEOUT_S)
        return super().request(*args, **kwargs)


def send_score(
    *,
    registration,
    link,
    platform_user_id: str,
    score_given: float,
    score_maximum: float,
    timestamp: str,
    label: str,
    resource_id: str,
) -> None:
    """``registration``: django-lti's ``LtiRegistration``; ``link``: an ``AssignmentLink`` (its
    endpoint). Without a line item named by the launches, the tool finds or makes its own by
    ``resource_id`` where the platform lets it manage line items."""
    connector = ServiceConnector(registration.to_registration(), requests_session=TimedSession())
    service = AssignmentsGradesService(
        connector, {"scope": list(link.scopes), "lineitem": link.lineitem_url, "lineitems": link.lineitems_url}
    )
    grade = (
        Grade()
        .set_score_given(score_given)
        .set_score_maximum(score_maximum)
        .set_timestamp(timestamp)
        .set_activity_progress("Completed")
        .set_grading_progress("FullyGraded")
        .set_user_id(platform_user_id)
    )
    lineitem = None
    if not link.lineitem_url:
        lineitem = (
            LineItem()
            .set_label(label)
            .set_score_maximum(score_maximum)
            .set_resource_id(resource_id)
            .set_tag("remat-arena")
        )
    try:
        service.put_grade(grade, lineitem)
    except LtiServiceException as exc:
        raise Refused(f"the platform answered {exc}") from exc
    except (LtiException, requests.RequestException, ValueError) as exc:
        raise Refused(f"{type(exc).__name__}: {exc}") from exc

"""The course's background work: a similarity check of an assignment (on the background lane,
``settings.CELERY_TASK_ROUTES``). It takes the check's id and re-reads the database; a duplicate
message finds the check done and does nothing."""

from __future__ import annotations

import logging
import time

from celery import shared_task

from . import selectors, services

logger = logging.getLogger(__name__)


@shared_task(name=services.SIMILARITY_TASK, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def check_similarity(check_id: int) -> str:
    check = services.claim_similarity_check(check_id=check_id)
    if check is None:
        return "skipped"
    started = time.perf_counter()
    from . import similarity  # here: copydetect imports matplotlib, a second of every worker's start

    try:
        pairs, compared, excluded = [], 0, {}
        for problem, sources in selectors.similarity_sources(check.assignment).items():
            compared += sum(len(mine) for mine in sources.values())
            given = similarity.what_was_given(check.assignment, problem.slug, problem.current_version)
            excluded.update({(item.problem, item.what): item.to_dict() for item in given})
            pairs += [(problem.pk, pair) for pair in similarity.rank(sources, similarity.given(given))]
    except Exception as exc:  # said on the page, with the error logged for the operator
        logger.exception("similarity check %s failed", check_id)
        services.fail_similarity_check(check=check, error=f"{type(exc).__name__}: {exc}")
        return "failed"
    services.record_similarity(
        check=check,
        pairs=pairs,
        submissions=compared,
        seconds=time.perf_counter() - started,
        excluded=list(excluded.values()),
    )
    return "done"

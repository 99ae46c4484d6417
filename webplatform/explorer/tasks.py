"""The background task that runs an exploration: it takes an id and re-reads the database."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from judge.explorer.explore import ExploreError, explore
from webplatform.core.worker import worker_runner

from . import services

logger = logging.getLogger(__name__)


@shared_task(name=services.EXPLORE_TASK, bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_exploration(self, exploration_id: int) -> str:
    task_id = self.request.id or f"explore-{exploration_id}"
    claimed = services.claim(exploration_id=exploration_id, task_id=task_id)
    if claimed is None:
        return "skipped"  # finished, or held by another worker: a duplicate message
    compile_s = settings.EXPLORATIONS["COMPILE_S"]
    try:
        found = explore(
            claimed.source,
            claimed.function,
            claimed.args,
            worker_runner(),
            budget=claimed.budget,
            budget_on=claimed.budget_on,
            **({} if compile_s is None else {"compile_s": compile_s}),
        )
    except ExploreError as exc:
        services.complete(exploration_id=exploration_id, task_id=task_id, error=str(exc))
        return "failed"
    except Exception as exc:  # the judge failed, not the learner's code: say so; they may run it again
        logger.exception("exploration %s failed", exploration_id)
        services.complete(
            exploration_id=exploration_id,
            task_id=task_id,
            error=f"the judge failed while exploring ({type(exc).__name__}); run it again",
        )
        return "failed"
    services.complete(exploration_id=exploration_id, task_id=task_id, result=found.to_dict())
    return "done"

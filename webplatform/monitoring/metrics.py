"""The grading path's numbers, for Prometheus (``/metrics``) and the staff page.

Everything is read when asked, from what every process shares (the database, Redis), not
counted inside one process: any web process answers with the same figures, however many
workers and web processes run, on one machine or in compose. The histograms are computed from
the finished submissions (cumulative, as Prometheus expects) and cached under the grading state,
so a scrape costs one small query while nothing changed.

- ``arena_queue_depth{queue}``: messages waiting in each broker queue;
- ``arena_gradings{lane,state}``: gradings held by the per-learner cap, published, or running;
- ``arena_submit_to_verdict_seconds{problem,verdict}`` and ``arena_grading_seconds{...}``;
- ``arena_sandbox_layer_active{worker,layer}``: each worker's sandbox layers (``judge doctor``);
- ``arena_sweep_*_total``: what the sweep republished, released and dispatched;
- ``arena_up{part}``: whether the database and the broker answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Count, DurationField, ExpressionWrapper, F, Q, Sum
from django.db.utils import DatabaseError
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector

from webplatform.core import broker, freshness
from webplatform.core.queues import LANES, grading_queues
from webplatform.submissions.models import Submission, Sweep, Worker

Status = Submission.Status
WAIT_BUCKETS = (0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600)
GRADING_BUCKETS = (0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60)


@dataclass
class Histogram:
    labels: tuple[str, str]  # (problem, verdict)
    buckets: list[tuple[str, int]]  # cumulative, ending with +Inf
    total_s: float


def _histograms(finished, expression, buckets, bound) -> list[Histogram]:
    """Per (problem, verdict): how many of ``finished`` have ``expression`` at most each bucket's
    ``bound(seconds)``, and the sum, in one grouped query."""
    counts = {f"le_{i}": Count("id", filter=Q(value__lte=bound(b))) for i, b in enumerate(buckets)}
    rows = (
        finished.annotate(value=expression)
        .values("problem__slug", "verdict")
        .annotate(count=Count("id"), total=Sum("value"), **counts)
        .order_by("problem__slug", "verdict")
    )
    out = []
    for row in rows:
        total = row["total"]
        total_s = total.total_seconds() if isinstance(total, timedelta) else float(total or 0)
        cumulative = [(str(float(b)), row[f"le_{i}"]) for i, b in enumerate(buckets)] + [("+Inf", row["count"])]
        out.append(Histogram((row["problem__slug"], row["verdict"]), cumulative, total_s))
    return out


def histograms() -> dict[str, list[Histogram]]:
    """Submit-to-verdict and grading time of every finished submission, per problem and verdict."""

    def compute():
        done = Submission.objects.filter(status=Status.DONE, finished_at__isnull=False)
        wait = ExpressionWrapper(F("finished_at") - F("created_at"), output_field=DurationField())
        return {
            "wait": _histograms(done, wait, WAIT_BUCKETS, lambda s: timedelta(seconds=s)),
            "grading": _histograms(
                done.filter(grading_time_s__isnull=False), F("grading_time_s"), GRADING_BUCKETS, float
            ),
        }

    return freshness.cached("monitoring-histograms", compute)


@dataclass
class Snapshot:
    """What the staff page shows; the collector turns the same into metric families."""

    up: dict[str, bool]
    depths: dict[str, int]  # queue -> messages waiting (empty when the broker is away)
    gradings: dict[tuple[str, str], int]  # (lane, held/published/running) -> count
    workers: list[Worker]
    sweep: Sweep | None
    histograms: dict[str, list[Histogram]]


def snapshot() -> Snapshot:
    up = {"database": True, "broker": True}
    try:
        depths = broker.depths(grading_queues())
    except broker.BrokerUnavailable:
        depths, up["broker"] = {}, False
    try:
        rows = (
            Submission.objects.filter(status__in=[Status.QUEUED, Status.RUNNING])
            .values("lane", "status")
            .annotate(held=Count("id", filter=Q(published_at__isnull=True)), count=Count("id"))
            .order_by()
        )
        gradings = {(lane, state): 0 for lane in LANES for state in ("held", "published", "running")}
        for row in rows:
            if row["status"] == Status.RUNNING:
                gradings[(row["lane"], "running")] += row["count"]
            else:
                gradings[(row["lane"], "held")] += row["held"]
                gradings[(row["lane"], "published")] += row["count"] - row["held"]
        workers = list(Worker.objects.order_by("name"))
        sweep = Sweep.objects.filter(pk=1).first()
        found = histograms()
    except DatabaseError:
        up["database"] = False
        gradings, workers, sweep, found = {}, [], None, {"wait": [], "grading": []}
    return Snapshot(up, depths, gradings, workers, sweep, found)


@dataclass
class SummaryRow:
    problem: str
    verdict: str
    count: int
    mean_wait_s: float
    within_15_s: int  # verdicts stored within 15 s of the submit
    mean_grading_s: float | None


def summary_rows(found: dict[str, list[Histogram]]) -> list[SummaryRow]:
    """The histograms as the staff page shows them: one row per problem and verdict."""
    grading = {h.labels: h for h in found["grading"]}
    rows = []
    for wait in found["wait"]:
        count = wait.buckets[-1][1]
        within = dict(wait.buckets).get("15.0", 0)
        timed = grading.get(wait.labels)
        graded = timed.buckets[-1][1] if timed else 0
        rows.append(
            SummaryRow(
                *wait.labels,
                count,
                wait.total_s / count if count else 0.0,
                within,
                timed.total_s / graded if graded else None,
            )
        )
    return rows


class GradingCollector(Collector):
    def collect(self):
        now = snapshot()
        up = GaugeMetricFamily("arena_up", "Whether the part answers (1) or not (0)", labels=["part"])
        for part, ok in now.up.items():
            up.add_metric([part], 1 if ok else 0)
        yield up
        depth = GaugeMetricFamily("arena_queue_depth", "Messages waiting in the broker queue", labels=["queue"])
        for queue, count in now.depths.items():
            depth.add_metric([queue], count)
        yield depth
        gradings = GaugeMetricFamily(
            "arena_gradings",
            "Gradings not finished: held by the per-learner cap, published to the broker, or running",
            labels=["lane", "state"],
        )
        for (lane, state), count in now.gradings.items():
            gradings.add_metric([lane, state], count)
        yield gradings
        for name, key, text in (
            ("arena_submit_to_verdict_seconds", "wait", "From submit to a stored verdict"),
            ("arena_grading_seconds", "grading", "Grading time, all cases"),
        ):
            family = HistogramMetricFamily(name, text, labels=["problem", "verdict"])
            for histogram in now.histograms[key]:
                family.add_metric(list(histogram.labels), histogram.buckets, histogram.total_s)
            yield family
        layers = GaugeMetricFamily(
            "arena_sandbox_layer_active",
            "Sandbox layer active (1) or missing (0) in the worker's grading processes",
            labels=["worker", "layer"],
        )
        seen = GaugeMetricFamily(
            "arena_worker_seen_timestamp_seconds", "When the worker last reported itself", labels=["worker"]
        )
        for worker in now.workers:
            for layer, state in (worker.layers or {}).items():
                layers.add_metric([worker.name, layer], 1 if state.get("ok") else 0)
            seen.add_metric([worker.name], worker.seen_at.timestamp())
        yield layers
        yield seen
        for field in ("republished", "released", "dispatched", "runs"):
            counter = CounterMetricFamily(f"arena_sweep_{field}", f"Sweep: {SWEEP_HELP[field]}")
            counter.add_metric([], getattr(now.sweep, field, 0) if now.sweep else 0)
            yield counter


SWEEP_HELP = {
    "republished": "queued submissions published again because their message was in no queue",
    "released": "claims released because their worker stopped sending heartbeats",
    "dispatched": "gradings held by the per-learner cap that the sweep published",
    "runs": "runs",
}

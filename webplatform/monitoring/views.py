"""``/metrics`` (Prometheus text format) and ``/staff/grading/`` (the same numbers as a page).

Staff only: a signed-in staff member, or a scraper sending ``Authorization: Bearer
<METRICS_TOKEN>`` (set in the environment; without it only staff sessions get in)."""

from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.registry import CollectorRegistry

from webplatform.core.http import is_operator

from .metrics import GradingCollector, snapshot, summary_rows

_registry = CollectorRegistry(auto_describe=False)
_registry.register(GradingCollector())


@require_GET
def metrics(request):
    if not is_operator(request):
        return HttpResponse(
            "staff only: sign in as staff, or send Authorization: Bearer <METRICS_TOKEN>\n",
            status=403,
            content_type="text/plain",
        )
    return HttpResponse(generate_latest(_registry), content_type=CONTENT_TYPE_LATEST)


@require_GET
@staff_member_required
def grading(request):
    now = snapshot()
    return render(request, "monitoring/grading.html", {"now": now, "rows": summary_rows(now.histograms)})

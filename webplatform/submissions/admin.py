from django.contrib import admin, messages

from . import services
from .models import Submission


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ("id", "user", "problem", "kind", "status", "verdict", "attempts", "created_at")
    list_filter = ("status", "verdict", "kind")
    # State changes go through services (guarded updates), never through a form.
    readonly_fields = [f.name for f in Submission._meta.fields]

    actions = ["rejudge"]

    def has_add_permission(self, request):
        return False

    def delete_model(self, request, obj):
        services.delete_submissions(submission_ids=[obj.pk])

    def delete_queryset(self, request, queryset):
        # Through the service, so that what summarises submissions (the leaderboard) hears of it.
        services.delete_submissions(submission_ids=list(queryset.values_list("pk", flat=True)))

    @admin.action(description="Rejudge on the problem's current version")
    def rejudge(self, request, queryset):
        done = sum(services.rejudge_submission(submission_id=pk) for pk in queryset.values_list("pk", flat=True))
        skipped = queryset.count() - done
        note = f"; {skipped} not graded yet, left alone" if skipped else ""
        self.message_user(request, f"{done} queued for rejudging{note}", messages.SUCCESS)

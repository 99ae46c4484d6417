from django.contrib import admin

from .models import Submission


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ("id", "user", "problem", "kind", "status", "verdict", "attempts", "created_at")
    list_filter = ("status", "verdict", "kind")
    # State changes go through services (guarded updates), never through a form.
    readonly_fields = [f.name for f in Submission._meta.fields]

    def has_add_permission(self, request):
        return False

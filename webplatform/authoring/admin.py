from django.contrib import admin

from webplatform.catalog.admin import ReadOnlyAdmin

from .models import Draft, Rejudge, ValidationRun


@admin.register(Draft)
class DraftAdmin(ReadOnlyAdmin):
    """Drafts change through the authoring pages, which check every write with the loader."""

    list_display = ("slug", "title", "owner", "problem", "updated_at")
    exclude = ("files",)


@admin.register(ValidationRun)
class ValidationRunAdmin(ReadOnlyAdmin):
    list_display = ("draft", "status", "ok", "created_at", "finished_at")


@admin.register(Rejudge)
class RejudgeAdmin(ReadOnlyAdmin):
    list_display = ("version", "total", "requeued", "created_at")

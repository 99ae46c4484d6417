from django.contrib import admin

from .models import Problem, ProblemVersion, Tag


class ReadOnlyAdmin(admin.ModelAdmin):
    """Problems come from the bank via sync_problems; the admin only looks."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Problem)
class ProblemAdmin(ReadOnlyAdmin):
    list_display = ("slug", "title", "difficulty", "device", "is_active", "current_version")
    list_filter = ("difficulty", "device", "is_active")


@admin.register(ProblemVersion)
class ProblemVersionAdmin(ReadOnlyAdmin):
    list_display = ("slug", "number", "content_hash", "created_at")
    exclude = ("files",)


admin.site.register(Tag)

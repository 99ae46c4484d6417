from django.contrib import admin

from .models import AssignmentLink, CourseContext, ScoreReport


@admin.register(ScoreReport)
class ScoreReportAdmin(admin.ModelAdmin):
    list_display = ("user", "link", "score_given", "score_maximum", "state", "attempts", "last_error", "sent_at")
    list_filter = ("state",)
    readonly_fields = [f.name for f in ScoreReport._meta.fields]


admin.site.register(AssignmentLink)
admin.site.register(CourseContext)

from django.apps import AppConfig


class CoursesConfig(AppConfig):
    name = "webplatform.courses"
    label = "courses"

    def ready(self):
        from webplatform.submissions.signals import verdicts_changed

        from . import services

        def keep_standings(sender, pairs, **kwargs):
            services.refresh_standings_for_verdicts(pairs=pairs)

        verdicts_changed.connect(keep_standings, dispatch_uid="courses.keep_standings", weak=False)

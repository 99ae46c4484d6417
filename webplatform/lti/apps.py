from django.apps import AppConfig


class LtiConfig(AppConfig):
    name = "webplatform.lti"
    label = "lti"

    def ready(self):
        from webplatform.courses.signals import course_panels, standings_changed

        from . import selectors, services

        def pass_back(sender, standings, **kwargs):
            services.scores_changed(standing_ids=standings)

        standings_changed.connect(pass_back, dispatch_uid="lti.pass_back", weak=False)

        def roster_sync_panel(sender, course, user, **kwargs):
            return selectors.roster_panel(course=course)

        course_panels.connect(roster_sync_panel, dispatch_uid="lti.roster_sync_panel", weak=False)

from django.apps import AppConfig


class LtiConfig(AppConfig):
    name = "webplatform.lti"
    label = "lti"

    def ready(self):
        from webplatform.courses.signals import standings_changed

        from . import services

        def pass_back(sender, standings, **kwargs):
            services.scores_changed(standing_ids=standings)

        standings_changed.connect(pass_back, dispatch_uid="lti.pass_back", weak=False)

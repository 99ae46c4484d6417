from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "webplatform.leaderboard"
    label = "leaderboard"

    def ready(self):
        from webplatform.submissions.signals import verdicts_changed

        from . import services

        def keep_progress(sender, pairs, **kwargs):
            services.refresh_progress(pairs=pairs)

        verdicts_changed.connect(keep_progress, dispatch_uid="leaderboard.keep_progress", weak=False)

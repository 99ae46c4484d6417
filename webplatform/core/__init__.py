"""Plumbing under every app of the site: the never-stale cache, where background work goes,
the judge's runner of a worker process, small helpers of views. It imports no app; the apps
plug into it (``freshness.watch``) from their ``AppConfig.ready``."""

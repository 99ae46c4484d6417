"""Starting and stopping the pieces of a local Remat Arena: redis-server, the Celery worker and
beat, the web server. Used by ``make run`` (``python -m devstack run``) and by the end-to-end
tests, so that the tests start the site exactly as a developer does."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webplatform.settings")
django_application = get_asgi_application()

from webplatform.core.params import parse_id  # noqa: E402
from webplatform.submissions import stream  # noqa: E402 - needs the apps loaded above


async def application(scope, receive, send):
    """Django, except for a grading's event stream: a plain coroutine that holds no thread while
    its learner waits (see ``submissions/stream.py``)."""
    if scope["type"] == "http":
        match = stream.PATH.fullmatch(scope["path"])
        # An id past 64 bits goes on to Django, which has no route for it (404).
        if match and parse_id(match[1]) is not None:
            return await stream.serve(scope, receive, send, int(match[1]))
    return await django_application(scope, receive, send)

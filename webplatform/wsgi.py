import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webplatform.settings")
django_application = get_wsgi_application()


def application(environ, start_response):
    """Django. Behind ``make run``'s front (nginx, devstack/front.py) the pages' server listens on a
    Unix socket, whose peer has no address (gunicorn's REMOTE_ADDR is empty): the learner's is the
    X-Real-IP that the front sets (the sign-in and token throttles count by it). Over TCP the header
    is anyone's to write, so it counts only from that socket."""
    if not environ.get("REMOTE_ADDR") and environ.get("HTTP_X_REAL_IP"):
        environ["REMOTE_ADDR"] = environ["HTTP_X_REAL_IP"]
    return django_application(environ, start_response)

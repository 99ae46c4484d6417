"""What a form's action came to, flashed on the next page."""

from django.contrib import messages
from django.core.exceptions import ValidationError


def tell(request, action, done) -> None:
    """Runs ``action`` (a service call); flashes ``done(its result)``, or what the service refused."""
    try:
        result = action()
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, done(result))

"""Small helpers of views."""


def wants_json(request) -> bool:
    """The page's script asked (``Accept: application/json``) rather than a browser without it."""
    return "application/json" in request.headers.get("Accept", "")

"""``/api/docs``: django-ninja's Swagger UI inside the site's own page (its bar, its styles, the
viewport a phone needs, a way back to the site) instead of ninja's bare page. Swagger UI's
scripts and styles are still ninja's, served from our static files."""

from ninja import Swagger


class SiteSwagger(Swagger):
    template = "api/docs.html"

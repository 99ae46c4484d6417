"""The static files' storage in production (settings.STORAGES): whitenoise's hashed, compressed
files, whose URLs are remembered per name.

A page asks for 4 to 7 of them (``{% static %}``: the site's CSS and scripts); each parses,
looks up the manifest and quotes its name again, about 15 us (`make bench`). The manifest is read
once when the process starts and never changes while it runs (``collectstatic`` writes the next
one for the next process), so neither does a URL: each is worked out once. ``collectstatic``
forgets them when it hashes the files again."""

from django.conf import settings
from whitenoise.storage import CompressedManifestStaticFilesStorage


class RememberedURLStorage(CompressedManifestStaticFilesStorage):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._urls: dict[tuple[str, bool], str] = {}

    def url(self, name, force=False):
        if force or not isinstance(name, str):
            return super().url(name, force)
        key = (name, settings.DEBUG)  # with DEBUG the URL is the plain name
        found = self._urls.get(key)
        if found is None:
            found = super().url(name)  # an unknown name raises, and is not remembered
            self._urls[key] = found
        return found

    def post_process(self, *args, **kwargs):
        self._urls = {}
        yield from super().post_process(*args, **kwargs)
        self._urls = {}

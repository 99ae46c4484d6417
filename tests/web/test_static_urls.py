"""Static files' URLs in production are whitenoise's hashed names, worked out once per name
(core.static_files): the same URL as whitenoise gives, every time."""

import json

import pytest
from whitenoise.storage import CompressedManifestStaticFilesStorage

from webplatform.core.static_files import RememberedURLStorage

MANIFEST = {"paths": {"arena/arena.css": "arena/arena.0a1b2c.css", "a b.js": "a b.9f8e.js"}, "version": "1.1"}


@pytest.fixture
def root(tmp_path, settings):
    settings.DEBUG = False
    (tmp_path / "staticfiles.json").write_text(json.dumps({**MANIFEST, "hash": "x"}))
    return tmp_path


def test_each_url_is_whitenoises_hashed_one(root):
    remembered = RememberedURLStorage(location=root, base_url="/static/")
    plain = CompressedManifestStaticFilesStorage(location=root, base_url="/static/")
    for name in ("arena/arena.css", "a b.js", "arena/arena.css#top", "arena/arena.css", "a b.js"):
        assert remembered.url(name) == plain.url(name), name
    assert remembered.url("arena/arena.css") == "/static/arena/arena.0a1b2c.css"


def test_a_name_missing_from_the_manifest_is_an_error_every_time(root):
    remembered = RememberedURLStorage(location=root, base_url="/static/")
    for _ in range(2):
        with pytest.raises(ValueError):
            remembered.url("not/there.css")


def test_with_debug_the_url_is_the_plain_name(root, settings):
    remembered = RememberedURLStorage(location=root, base_url="/static/")
    assert remembered.url("arena/arena.css") == "/static/arena/arena.0a1b2c.css"
    settings.DEBUG = True
    assert remembered.url("arena/arena.css") == "/static/arena/arena.css"

"""Join codes: long enough that guessing one is hopeless (12 symbols of a 32-letter alphabet, 60
bits, against a handful of tries an hour), typed forgivingly, looked up without leaking anything
through timing.

A course is found by ``join_key`` (an HMAC of the normalised code under the site's secret), so the
database index never sees the code itself, and the stored code is then compared with
``hmac.compare_digest``."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from django.conf import settings

# Crockford's base 32: no I, L, O or U, so a code read aloud or copied by hand survives.
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
LENGTH = 12
GROUP = 4
# What people type for the letters the alphabet leaves out.
READ_AS = str.maketrans({"I": "1", "L": "1", "O": "0"})


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def normalise(text: str) -> str:
    """Upper case, without spaces or dashes, the look-alike letters read as digits; at most a few
    characters more than a code (anything longer is not one)."""
    kept = "".join(ch for ch in text[: LENGTH * 2].upper() if ch not in " -\t")
    return kept.translate(READ_AS)


def shown(code: str) -> str:
    """``ABCD-EFGH-JKMN``: how instructors read it out."""
    return "-".join(code[i : i + GROUP] for i in range(0, len(code), GROUP))


def key_of(code: str) -> str:
    return hmac.new(settings.SECRET_KEY.encode(), b"course-join:" + code.encode(), hashlib.sha256).hexdigest()


def matches(stored: str, typed: str) -> bool:
    return hmac.compare_digest(stored.encode(), typed.encode())


def looks_like_a_code(code: str) -> bool:
    return len(code) == LENGTH and all(ch in ALPHABET for ch in code)

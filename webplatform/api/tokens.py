"""The token format: ``arena_`` and 43 URL-safe characters (32 random bytes)."""

import hashlib
import secrets

PREFIX = "arena_"
SHOWN_CHARACTERS = 10  # of the token, kept to tell tokens apart (the fixed part included)


def new_token() -> str:
    return PREFIX + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def shown_prefix(token: str) -> str:
    return token[:SHOWN_CHARACTERS]

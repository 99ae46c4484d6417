"""A submission's source, read once (``reading.Source``): the text, its tree, its scopes, its
checkpoint sites and its loops, each computed the first time a reader asks for it."""

from .reading import Source

__all__ = ["Source"]

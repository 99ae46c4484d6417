"""Runners for tests that watch or tamper with what the real one does."""
from judge.boundary import Runner
from judge.zygote_runner import shared_runner


class Wrapping(Runner):
    """The shared zygote runner; a test overrides what it watches or forges (``run``, ``prepare``)."""

    name = "wrapping the warm zygote"

    def __init__(self):
        self.inner = shared_runner()

    def prepare(self, limits, role="run"):
        return self.inner.prepare(limits, role)

    def missing_layers(self):
        return self.inner.missing_layers()

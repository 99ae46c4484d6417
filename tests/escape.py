"""Source text that gets past the static gate's rules by breaking them at run time.

Tests of the deeper layers grade sources "past the gate" (the ``past_the_gate`` fixture) and put
this prelude first: it reaches any loaded module through ``().__class__.__base__.__subclasses__()``,
the classic way out of restricted builtins, so that what is tested is the sandbox itself.
"""

PRELUDE = """
def _module(name):
    for cls in ().__class__.__base__.__subclasses__():
        if cls.__name__ == "catch_warnings":
            return cls.__init__.__globals__["sys"].modules[name]
    raise RuntimeError("no way out found")


os = _module("os")
sys = _module("sys")
"""


def escaping(body: str) -> str:
    return PRELUDE + "\n" + body.strip("\n") + "\n"

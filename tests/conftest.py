import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


import pytest  # noqa: E402


@pytest.fixture
def past_the_gate(monkeypatch):
    """Grade as if the static gate had let the source through: what the deeper layers do alone."""
    from judge import gate

    monkeypatch.setattr(gate, "check", lambda source: None)

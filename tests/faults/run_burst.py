"""Run one burst with faults inside the test's wall and write its result as JSON.

``python run_burst.py SETTINGS.json RESULT.json``, started by ``test_burst_with_faults.py``
inside its wall (tests/hostile/wall.py): every process the stack starts stays in the wall's
cgroups, and whatever is left when it ends is killed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.hostile import wall  # noqa: E402

if __name__ == "__main__":  # inside the wall before anything else starts
    settings = json.loads(Path(sys.argv[1]).read_text())
    wall.enter(settings["wall"])

from devstack.burst import Burst, report  # noqa: E402
from devstack.postgres import Server  # noqa: E402

if __name__ == "__main__":
    server = Server(**settings["server"]) if settings["server"] else None
    result = Burst(
        var=Path(settings["var"]),
        database=settings["database"],
        submissions=settings["submissions"],
        faults=True,
        server=server,
    ).run()
    print(report([result]), flush=True)
    Path(sys.argv[2]).write_text(json.dumps(result.to_dict()))

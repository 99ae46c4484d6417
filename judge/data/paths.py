"""Where the judge's files are: the repository that holds the ``judge`` package (the child's
import path, the sandbox's view of it, the default cache folder ``var/``)."""

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent

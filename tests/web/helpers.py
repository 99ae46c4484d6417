"""Helpers shared by the site's tests."""
import shutil
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BANK = ROOT / "problems"
DOT_POLICY = BANK / "checkpoint_dot_policy"


def copy_package(source: Path, root: Path, slug: str, **replacements) -> Path:
    """A copy of a package under ``root/slug`` with a new uuid and ``key = value`` lines of
    problem.toml replaced (values are TOML text)."""
    target = root / slug
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    toml = target / "problem.toml"
    lines = []
    fields = {"slug": f'"{slug}"', "uuid": f'"{uuid.uuid4()}"', **replacements}
    for line in toml.read_text().splitlines():
        key = line.split("=", 1)[0].strip()
        lines.append(f"{key} = {fields.pop(key)}" if key in fields and "=" in line else line)
    toml.write_text("\n".join(lines) + "\n")
    return target


def correct_source() -> str:
    return (DOT_POLICY / "submissions" / "accepted" / "decorator.py").read_text()


def no_checkpoint_source() -> str:
    return (DOT_POLICY / "submissions" / "policy_violation" / "no_checkpoint.py").read_text()


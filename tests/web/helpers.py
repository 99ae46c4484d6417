"""Helpers shared by the site's tests."""

import shutil
import uuid
from pathlib import Path

from django.test import Client

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


def wrong_answer_source() -> str:
    return (DOT_POLICY / "submissions" / "wrong_answer" / "forgot_square.py").read_text()


def form_data(editor) -> dict:
    """What the browser posts for an authoring form left as it was rendered (``PackageForms``);
    tests change entries of it as a user would change fields."""
    data = {}

    def put(name, value):
        if isinstance(value, bool):
            if value:
                data[name] = "on"
        elif value is not None:
            data[name] = value

    for name, value in editor.problem.initial.items():
        put(name, value)
    for formset in (editor.args, editor.cases):
        data[f"{formset.prefix}-TOTAL_FORMS"] = str(len(formset.initial))
        data[f"{formset.prefix}-INITIAL_FORMS"] = str(len(formset.initial))
        for index, row in enumerate(formset.initial):
            for name, value in row.items():
                put(f"{formset.prefix}-{index}-{name}", value)
    return data


def record_validation(draft, ok=True, errors=()):
    """A finished validation of the draft's current files, recorded as the task records one
    (without grading: the tests of the task itself grade for real)."""
    from webplatform.authoring import services

    run = services.request_validation(draft=draft, user=draft.owner)
    run, _, _ = services.claim_validation(run_id=run.pk, task_id=f"validation-{run.pk}")
    row = {
        "submission": "reference.py",
        "expected": "accepted",
        "actual": "accepted" if ok else "internal_error",
        "message": "",
        "ok": ok,
    }
    services.record_validation_progress(run_id=run.pk, attempt=run.attempts, total=1, rows=[row])
    services.complete_validation(run_id=run.pk, attempt=run.attempts, errors=list(errors))
    return run


def signed_in(browser, live_server, user, **options):
    """A browser context on the live site, signed in as ``user`` (None: signed out)."""
    context = browser.new_context(**{"viewport": {"width": 1366, "height": 900}, "color_scheme": "light", **options})
    if user is not None:
        client = Client()
        client.force_login(user)
        context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
    return context

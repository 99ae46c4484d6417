"""Writes of the authoring pages: drafts, validation runs, publishing, rejudges.

Every change to a draft's files goes through ``_store``, which loads them with the judge's
package loader first: a package that does not load (malformed TOML, an unknown key or policy, a
slug taken by another problem) raises ``PackageError`` and changes nothing. Publishing goes
through ``catalog.services.sync_problem``, the code ``sync_problems`` uses, so the same files
give the same version whichever way they came.
"""

from __future__ import annotations

import uuid as uuid_module
from dataclasses import dataclass

from django.apps import apps as global_apps
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from judge import PackageError
from judge.packages.archive import check_files, files_hash, read_zip, unpacked
from webplatform.accounts.selectors import INSTRUCTORS_GROUP
from webplatform.catalog.models import Problem, ProblemVersion
from webplatform.catalog.services import sync_problem
from webplatform.core.params import unstorable
from webplatform.core.queues import enqueue, queue_for
from webplatform.submissions.models import Submission
from webplatform.submissions.services import jsonable, requeue_submission

from . import selectors
from .blank import blank_package
from .models import Draft, Rejudge, RejudgeItem, ValidationRun
from .roles import INSTRUCTOR_PERMISSIONS

Status = ValidationRun.Status
# The tasks (tasks.py) these services enqueue, by name.
VALIDATE_TASK = "authoring.validate_draft"
REJUDGE_TASK = "authoring.rejudge_submissions"


def grant_instructor_permissions(*, apps=global_apps, using="default", **kwargs):
    """post_migrate receiver: the instructors group exists and holds the authoring permissions
    (historical models from ``apps``, as a migration would use; a flush, as after a test that
    commits, sends no ``apps``: the installed models then)."""
    group, _ = apps.get_model("auth", "Group").objects.using(using).get_or_create(name=INSTRUCTORS_GROUP)
    codenames = [name.split(".", 1)[1] for name in INSTRUCTOR_PERMISSIONS]
    group.permissions.add(
        *apps.get_model("auth", "Permission")
        .objects.using(using)
        .filter(content_type__app_label="authoring", codename__in=codenames)
    )


def _check_slug_free(slug: str, uuid) -> None:
    """A slug names one problem: neither another published problem nor another draft may hold it."""
    taken = (
        Problem.objects.filter(slug=slug).exclude(uuid=uuid).exists()
        or Draft.objects.filter(slug=slug).exclude(uuid=uuid).exists()
    )
    if taken:
        raise PackageError("problem.toml", "slug", f"{slug!r} is already the slug of another problem")


def refuse_unstorable(files: dict[str, str]) -> None:
    """A package's names and texts must be storable: a NUL byte (PostgreSQL refuses it in JSON
    text) or a lone surrogate is refused, naming the file."""
    for path, text in files.items():
        why = unstorable(path) or unstorable(text)
        if why is not None:
            shown = str(path).encode("utf-8", "backslashreplace").decode().replace("\x00", "\\x00")
            raise PackageError(shown, None, f"holds {why}; a package's files are plain text without it")


def _store(draft: Draft, files: dict[str, str], package=None) -> Draft:
    refuse_unstorable(files)
    package = package or check_files(files)
    if str(package.uuid) != str(draft.uuid):
        raise PackageError("problem.toml", "uuid", f"must stay {draft.uuid} (the problem this draft edits)")
    _check_slug_free(package.slug, draft.uuid)
    draft.files, draft.slug, draft.title = files, package.slug, package.title
    draft.content_hash = files_hash(files)
    draft.save()
    return draft


def new_package() -> dict[str, str]:
    """The files a new problem starts from, with a fresh uuid."""
    return blank_package(str(uuid_module.uuid4()))


@transaction.atomic
def create_draft(*, user, files: dict[str, str]) -> Draft:
    """A new problem, owned by ``user``; its uuid is the one in the files."""
    package = check_files(files)
    if Problem.objects.filter(uuid=package.uuid).exists() or Draft.objects.filter(uuid=package.uuid).exists():
        raise PackageError("problem.toml", "uuid", "already names another problem")
    return _store(Draft(uuid=package.uuid, owner=user), files, package)


def update_draft(*, draft: Draft, files: dict[str, str]) -> Draft:
    return _edit(draft, lambda _: files)


def _edit(draft: Draft, change) -> Draft:
    """Applies ``change`` (old files -> new files) to the draft as stored now, under its row
    lock, so that two edits in flight do not undo each other."""
    with transaction.atomic():
        locked = Draft.objects.select_for_update().get(pk=draft.pk)
        return _store(locked, change(dict(locked.files)))


def save_submission_file(*, draft: Draft, path: str, source: str, replaces: str | None = None) -> Draft:
    """Adds or replaces a packaged submission (``replaces``: its old path, when renamed or moved
    to another verdict)."""

    def change(files):
        if replaces and replaces != path:
            files.pop(replaces, None)
        elif path in files and replaces is None:
            raise PackageError(path, None, "a packaged submission with this name and verdict exists already")
        files[path] = source
        return files

    return _edit(draft, change)


def delete_submission_file(*, draft: Draft, path: str) -> Draft:
    def change(files):
        if not path.startswith("submissions/") or path not in files:
            raise PackageError(path, None, "is not a packaged submission of this problem")
        del files[path]
        return files

    return _edit(draft, change)


@transaction.atomic
def start_draft_from_problem(*, user, problem: Problem) -> Draft:
    """Staff editing a bank problem in the browser: a draft holding its current version's files."""
    existing = Draft.objects.filter(problem=problem).first()
    if existing is not None:
        return existing
    version = problem.current_version
    draft = Draft(
        uuid=problem.uuid,
        owner=user,
        problem=problem,
        slug=version.slug,
        title=version.title,
        files=dict(version.files),
        content_hash=version.content_hash,
    )
    draft.save()
    return draft


@transaction.atomic
def import_package(*, user, data: bytes) -> Draft:
    """A zip of a package folder becomes a draft: a new one, or the draft of the problem with
    the same uuid (which ``user`` must be allowed to edit). Nothing changes when it is refused."""
    top, files = read_zip(data)
    refuse_unstorable(files)
    package = check_files(files, top)  # the zip's folder must be named like the slug, as in problems/
    uuid = str(package.uuid)
    draft = Draft.objects.select_for_update().filter(uuid=uuid).first()
    if draft is not None:
        if not selectors.can_edit_draft(user, draft):
            raise PackageError("problem.toml", "uuid", "belongs to a problem you may not edit")
        return _store(draft, files)
    problem = Problem.objects.filter(uuid=uuid).first()
    if problem is not None and not user.is_staff:
        raise PackageError("problem.toml", "uuid", "belongs to a problem you may not edit")
    return _store(Draft(uuid=uuid, owner=user, problem=problem), files)


# --- validation ---------------------------------------------------------------------------------


def request_validation(*, draft: Draft, user) -> ValidationRun:
    """Queues "Validate" of the draft on the queue of its device (the reference and every
    packaged submission graded by the workers, in the same sandbox as learners' code)."""
    queue = queue_for(check_files(draft.files))
    with transaction.atomic():
        run = ValidationRun.objects.create(draft=draft, requested_by=user)
        transaction.on_commit(lambda: enqueue(VALIDATE_TASK, run.pk, queue=queue))
    return run


def claim_validation(*, run_id: int, task_id: str) -> tuple[ValidationRun, dict, str] | None:
    """queued -> running for the message ``task_id`` (or taken over from a worker that died
    holding the same message). Returns the run with the draft's files and their hash as they
    are now: what this attempt validates. None for a duplicate message."""
    claimable = Q(status=Status.QUEUED) | Q(status=Status.RUNNING, task_id=task_id)
    with transaction.atomic():
        claimed = ValidationRun.objects.filter(claimable, pk=run_id).update(
            status=Status.RUNNING,
            attempts=F("attempts") + 1,
            task_id=task_id,
            started_at=timezone.now(),
            rows=[],
            errors=[],
        )
        if not claimed:
            return None
        run = ValidationRun.objects.select_related("draft").get(pk=run_id)
        files, content_hash = run.draft.files, run.draft.content_hash
        ValidationRun.objects.filter(pk=run_id).update(content_hash=content_hash)
        run.content_hash = content_hash
    return run, files, content_hash


def _json(value):
    """Plain JSON (numpy numbers from the judge's reports become numbers)."""
    return jsonable({"value": value})["value"]


def _running(run_id: int, attempt: int):
    return ValidationRun.objects.filter(pk=run_id, status=Status.RUNNING, attempts=attempt)


def record_validation_progress(
    *,
    run_id: int,
    attempt: int,
    total: int,
    rows: list[dict],
    reference_residuals: list | None = None,
    reference_checkpoints: list | None = None,
) -> bool:
    """Stores the rows so far; False when this attempt no longer owns the run."""
    fields = {"total": total, "rows": _json(rows)}
    if reference_residuals is not None:
        fields["reference_residuals"] = _json(reference_residuals)
    if reference_checkpoints is not None:
        fields["reference_checkpoints"] = _json(reference_checkpoints)
    return bool(_running(run_id, attempt).update(**fields))


def complete_validation(*, run_id: int, attempt: int, errors: list[str]) -> bool:
    """running -> done; passes when nothing went wrong and every row got its expected verdict."""
    run = ValidationRun.objects.filter(pk=run_id).first()
    if run is None:
        return False
    ok = not errors and bool(run.rows) and all(row["ok"] for row in run.rows)
    return bool(_running(run_id, attempt).update(status=Status.DONE, errors=errors, ok=ok, finished_at=timezone.now()))


# --- publishing -----------------------------------------------------------------------------------


@dataclass
class Published:
    version: ProblemVersion
    outcome: str  # created, updated or unchanged (as sync_problems says)


@transaction.atomic
def publish_draft(*, draft: Draft, audience=None) -> Published:
    """Freezes the draft as the problem's new immutable version. Refused unless a validation of
    exactly these files passed (the reference and every packaged submission got their expected
    verdicts, and at least one packaged submission is accepted). ``audience``: a group (a
    course's) that alone sees the problem until it is made public; refused for a problem already
    published to everyone or kept for another group."""
    draft = Draft.objects.select_for_update().get(pk=draft.pk)
    known = Problem.objects.filter(uuid=draft.uuid).first()
    if audience is not None and known is not None and known.audience_id != audience.pk:
        raise ValidationError(
            "this problem is published to everyone already"
            if known.is_public
            else "this problem is kept for another course"
        )
    run = selectors.passing_validation(draft)
    if run is None:
        latest = draft.validations.filter(content_hash=draft.content_hash, status=Status.DONE).first()
        raise ValidationError(
            "validation of these files failed: fix the package and validate again"
            if latest
            else "validate these files first: publishing needs a passing validation"
        )
    with unpacked(draft.files) as package:
        if package.content_hash != draft.content_hash:  # never publish other bytes than were validated
            raise ValidationError("the draft's files changed while publishing; validate again")
        _check_slug_free(package.slug, draft.uuid)
        outcome = sync_problem(package=package, origin=Problem.Origin.AUTHORING, audience=audience)
    problem = Problem.objects.select_related("current_version").get(uuid=draft.uuid)
    if draft.problem_id != problem.pk:
        draft.problem = problem
        draft.save(update_fields=["problem", "updated_at"])
    return Published(problem.current_version, outcome)


# --- rejudging ------------------------------------------------------------------------------------


@transaction.atomic
def start_rejudge(*, problem: Problem, user) -> Rejudge:
    """Earlier submissions of the problem (graded submits on older versions) graded again
    against its current version, in the background."""
    problem = Problem.objects.select_related("current_version").get(pk=problem.pk)  # as it is now
    version = problem.current_version
    earlier = list(selectors.earlier_submissions(problem).values_list("id", "version_id", "verdict"))
    rejudge = Rejudge.objects.create(version=version, requested_by=user, total=len(earlier))
    RejudgeItem.objects.bulk_create(
        RejudgeItem(rejudge=rejudge, submission_id=sid, previous_version_id=vid, previous_verdict=verdict)
        for sid, vid, verdict in earlier
    )
    transaction.on_commit(lambda: enqueue(REJUDGE_TASK, rejudge.pk))
    return rejudge


def requeue_rejudge(*, rejudge_id: int, batch: int = 200) -> int:
    """Hands each submission of the rejudge to the grading queue (each through the submissions
    app's guarded requeue, so running it twice requeues nothing twice). Returns how many moved."""
    rejudge = Rejudge.objects.select_related("version").get(pk=rejudge_id)
    ids = list(rejudge.items.order_by("submission_id").values_list("submission_id", flat=True))
    moved = 0
    for start in range(0, len(ids), batch):
        with transaction.atomic():  # one commit (and its enqueues) per batch
            moved += sum(
                requeue_submission(submission_id=sid, version=rejudge.version) for sid in ids[start : start + batch]
            )
    requeued = Submission.objects.filter(pk__in=ids, version=rejudge.version).count()
    Rejudge.objects.filter(pk=rejudge_id).update(requeued=requeued)
    return moved

"""Writes to the catalog. ``sync_problems`` snapshots the bank in ``problems/`` into the database."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from judge import PackageError, load_problem
from judge.packages.archive import folder_files

from .models import Problem, ProblemVersion, Tag

logger = logging.getLogger(__name__)


@dataclass
class SyncResult:
    created: list[str] = field(default_factory=list)  # new problems
    updated: list[str] = field(default_factory=list)  # a new version of a known problem
    unchanged: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)  # no longer in the bank: hidden
    kept: list[str] = field(default_factory=list)  # published in the browser since: left alone
    errors: list[str] = field(default_factory=list)  # broken packages, left as they were

    def summary(self) -> str:
        parts = [
            f"{len(self.created)} created",
            f"{len(self.updated)} updated",
            f"{len(self.unchanged)} unchanged",
            f"{len(self.retired)} retired",
        ]
        if self.kept:
            parts.append(f"{len(self.kept)} kept as published in the browser")
        if self.errors:
            parts.append(f"{len(self.errors)} refused")
        return ", ".join(parts)


def package_files(folder: Path) -> dict[str, str]:
    """Every file of the package as text, keyed by its path inside the package; the same files,
    byte for byte, as the judge's content hash, so that an unpacked copy hashes the same."""
    return folder_files(folder)


def version_fields(package) -> dict:
    """What a version stores of a loaded package (the authoring preview shows the same)."""
    args = [
        {"name": a.name, "static": True, "value": a.default} if a.static else {"name": a.name, "spec": str(a.spec)}
        for a in package.args
    ]
    samples = [
        {
            "name": c.name,
            "dims": c.dims,
            "static": c.static,
            "shapes": {a.name: list(a.spec.shape(c.dims)) for a in package.args if not a.static},
        }
        for c in package.samples
    ]
    return {
        "content_hash": package.content_hash,
        "slug": package.slug,
        "title": package.title,
        "difficulty": package.difficulty,
        "device": package.device,
        "tags": list(package.tags),
        "entry": package.entry,
        "args": args,
        "samples": samples,
        "case_count": len(package.cases),
        "statement": package.statement,
        "starter": package.starter,
        "reference": package.reference,
        "explanation": package.explanation,
        "hints": list(package.hints),
        "ranking": list(package.ranking),
        "files": package_files(package.path),
    }


@transaction.atomic
def sync_problem(*, package, origin: str = Problem.Origin.BANK, audience=None) -> str:
    """Creates or updates one problem from a loaded package; returns created/updated/unchanged.

    The one way a package becomes a version, for ``sync_problems`` and for publishing in the
    browser alike: the same files give the same version. ``audience``: the group (a course's)
    that alone sees a problem created here, until ``make_public``; a known problem keeps its own."""
    problem = Problem.objects.select_for_update().filter(uuid=package.uuid).first()
    outcome = "updated"
    if problem is None:
        problem = Problem(uuid=package.uuid, audience=audience)
        outcome = "created"
    version = (
        ProblemVersion.objects.filter(problem=problem, content_hash=package.content_hash).first()
        if problem.pk
        else None
    )
    if version is not None and problem.current_version_id == version.pk and problem.is_active:
        return "unchanged"
    problem.slug, problem.title = package.slug, package.title
    problem.difficulty, problem.device, problem.is_active = package.difficulty, package.device, True
    problem.origin = origin
    problem.save()
    problem.tags.set([Tag.objects.get_or_create(name=name)[0] for name in package.tags])
    if version is None:  # an older version coming back is reused, not copied
        number = (problem.versions.aggregate(n=Max("number"))["n"] or 0) + 1
        version = ProblemVersion.objects.create(problem=problem, number=number, **version_fields(package))
    problem.current_version = version
    problem.save(update_fields=["current_version", "updated_at"])
    return outcome


def make_public(*, problem: Problem) -> bool:
    """A problem kept for one course opens to everyone (lists, rankings); False if it was public."""
    # updated_at moves the grading state, so cached lists and rankings take it in at once.
    return bool(
        Problem.objects.filter(pk=problem.pk, audience__isnull=False).update(audience=None, updated_at=timezone.now())
    )


def sync_problems(*, root: Path, retire_missing: bool = True) -> SyncResult:
    """Loads every package under ``root``; idempotent: an unchanged bank changes nothing.

    A package that does not load is reported and left as it was in the database (its last good
    version stays current), so one broken folder does not take the others down."""
    result = SyncResult()
    seen = set()
    for folder in sorted(p for p in Path(root).iterdir() if (p / "problem.toml").is_file()):
        try:
            package = load_problem(folder)
            seen.add(package.uuid)
            taken = Problem.objects.filter(slug=package.slug).exclude(uuid=package.uuid).first()
            if taken is not None:
                raise PackageError(
                    folder / "problem.toml",
                    "slug",
                    f"{package.slug!r} already belongs to the problem with uuid {taken.uuid}",
                )
            if Problem.objects.filter(uuid=package.uuid, origin=Problem.Origin.AUTHORING).exists():
                result.kept.append(package.slug)  # the browser's version stands; export it to update the folder
                continue
            getattr(result, sync_problem(package=package)).append(package.slug)
        except (PackageError, UnicodeDecodeError) as exc:
            logger.warning("refused %s: %s", folder, exc)
            result.errors.append(str(exc))
            seen.add(_uuid_of_known_slug(folder.name))
    if retire_missing:
        in_the_bank = Problem.objects.filter(is_active=True, origin=Problem.Origin.BANK)
        for problem in in_the_bank.exclude(uuid__in=[u for u in seen if u]):
            problem.is_active = False
            problem.save(update_fields=["is_active", "updated_at"])
            result.retired.append(problem.slug)
    return result


def _uuid_of_known_slug(slug: str):
    """A broken package keeps its problem active under its old uuid (not retired by mistake)."""
    return Problem.objects.filter(slug=slug).values_list("uuid", flat=True).first()

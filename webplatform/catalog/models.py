"""Problems and their immutable versions, snapshots of the packages in ``problems/``.

A ``Problem`` is identified by the package's ``uuid`` (so a renamed slug keeps its history) and
points at its current version. A ``ProblemVersion`` is one content hash of the package: once
written it never changes, and every submission names the version it was graded against.
"""

import ast
import functools

from django.contrib.auth.models import Group
from django.db import models
from django.db.models import Q

from judge.data import syntax
from judge.packages.package import DEFAULT_RANKING, DEVICES, DIFFICULTIES


def default_ranking() -> list[str]:
    return list(DEFAULT_RANKING)


class Tag(models.Model):
    name = models.CharField(max_length=64, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class Problem(models.Model):
    Difficulty = models.TextChoices("Difficulty", [(d, d) for d in DIFFICULTIES])
    Device = models.TextChoices("Device", [(d, d) for d in DEVICES])

    class Origin(models.TextChoices):
        BANK = "bank", "a folder of problems/ (sync_problems)"
        AUTHORING = "authoring", "published in the browser"

    uuid = models.UUIDField(unique=True)
    slug = models.SlugField(max_length=100, unique=True)
    title = models.CharField(max_length=200)
    difficulty = models.CharField(max_length=16, choices=Difficulty.choices)
    device = models.CharField(max_length=8, choices=Device.choices, default="cpu")
    tags = models.ManyToManyField(Tag, related_name="problems", blank=True)
    current_version = models.ForeignKey(
        "ProblemVersion", on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    # A problem whose folder left the bank is hidden, not deleted: its submissions stay.
    is_active = models.BooleanField(default=True)
    # Where its current version was published from. sync_problems neither retires nor overwrites
    # a problem published in the browser: problems/ is not where that one lives any more.
    origin = models.CharField(max_length=16, choices=Origin.choices, default=Origin.BANK)
    # Who may see it before it is public: the members of this group (a course's, when a draft is
    # published to one course); everyone when empty. Problem lists and rankings show public ones.
    audience = models.ForeignKey(Group, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["title"]

    def __str__(self):
        return self.slug

    @property
    def is_public(self) -> bool:
        return self.audience_id is None


# Listed, ranked and open to everyone: in the bank and not kept for one course.
PUBLIC = Q(is_active=True, audience__isnull=True)


class ProblemVersion(models.Model):
    problem = models.ForeignKey(Problem, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    content_hash = models.CharField(max_length=64)
    slug = models.SlugField(max_length=100)
    title = models.CharField(max_length=200)
    difficulty = models.CharField(max_length=16)
    device = models.CharField(max_length=8)
    tags = models.JSONField(default=list)
    entry = models.CharField(max_length=100)
    # [{"name": "x", "spec": "f32[N,d]"} or {"name": "n", "static": true, "value": 3}]
    args = models.JSONField(default=list)
    # [{"name": "sample-1", "dims": {"N": 8}, "static": {}, "shapes": {"x": [8, 16]}}]
    samples = models.JSONField(default=list)
    case_count = models.PositiveIntegerField()
    statement = models.TextField()
    starter = models.TextField()
    reference = models.TextField()
    explanation = models.TextField(blank=True)
    hints = models.JSONField(default=list)
    # The leaderboard's metrics, most important first: the package's [ranking] metrics.
    ranking = models.JSONField(default=default_ranking)
    # Every file of the package, {relative path: text}: workers grade exactly this version.
    files = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["problem", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["problem", "content_hash"], name="one_version_per_content"),
            models.UniqueConstraint(fields=["problem", "number"], name="version_numbers_unique"),
        ]

    def __str__(self):
        return f"{self.slug} v{self.number}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("problem versions are immutable: sync a changed package as a new version")
        super().save(*args, **kwargs)

    @property
    def signature(self) -> str:
        """The function the learner writes. Under a harness (which builds the program's arguments
        into a model, say) that is the starter's, not the list of the program's arrays."""
        written = _written_signature(self.starter, self.entry)
        names = [a["name"] for a in self.args]
        if written is not None and written != names:
            return f"{self.entry}({', '.join(written)})"
        params = [f"{a['name']}: {a['spec']}" if "spec" in a else a["name"] for a in self.args]
        return f"{self.entry}({', '.join(params)})"


def _written_signature(starter: str, entry: str) -> list[str] | None:
    """The parameter names of ``def entry(...)`` in the starter; None when it has none."""
    names = _parsed_signature(starter, entry)
    return None if names is None else list(names)


@functools.lru_cache(maxsize=512)
def _parsed_signature(starter: str, entry: str) -> tuple[str, ...] | None:
    # Parsed once per starter: the problem page shows the signature on every view (a version,
    # and so its starter, never changes).
    try:
        tree = syntax.parse(starter)
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry:
            a = node.args
            return tuple(
                [p.arg for p in a.posonlyargs + a.args]
                + ([f"*{a.vararg.arg}"] if a.vararg else [])
                + [p.arg for p in a.kwonlyargs]
                + ([f"**{a.kwarg.arg}"] if a.kwarg else [])
            )
    return None

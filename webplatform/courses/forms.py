"""Forms of the course pages. Times are typed in the reader's time zone (the current one, see
``core.timezones``), which Django's fields apply to what they parse."""

from django import forms
from django.utils import timezone

from webplatform.catalog.models import Problem
from webplatform.core.params import parse_int

from .models import MAX_WEIGHT

LOCAL = "%Y-%m-%dT%H:%M"


def local_time_field(label: str, required: bool = True, help_text: str = "") -> forms.DateTimeField:
    return forms.DateTimeField(
        label=label,
        required=required,
        help_text=help_text,
        input_formats=[LOCAL, "%Y-%m-%dT%H:%M:%S"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format=LOCAL),
    )


class CourseForm(forms.Form):
    title = forms.CharField(max_length=200, label="Title")
    term = forms.CharField(max_length=100, required=False, label="Term", help_text="For example: Spring 2026")


class JoinForm(forms.Form):
    code = forms.CharField(max_length=40, label="Join code", help_text="12 letters and digits, from your instructor")


class InstructorForm(forms.Form):
    identifier = forms.CharField(
        max_length=254, label="Username or email", help_text="They must have an account on this site already."
    )


class AssignmentForm(forms.Form):
    title = forms.CharField(max_length=200, label="Title")
    opens_at = local_time_field("Opens")
    due_at = local_time_field("Due")
    late_until = local_time_field("Late submissions until", required=False, help_text="Leave empty for no late window.")
    late_penalty_percent = forms.IntegerField(
        min_value=0,
        max_value=100,
        initial=0,
        label="Late penalty (%)",
        help_text="Taken off a problem accepted in the late window.",
    )
    problems = forms.ModelMultipleChoiceField(
        queryset=Problem.objects.none(), label="Problems", widget=forms.CheckboxSelectMultiple
    )

    confirm_past_due = forms.BooleanField(
        required=False,
        label="Yes, the due time is in the past",
        help_text="Learners can then only submit late, or not at all.",
    )

    def __init__(self, *args, problems=None, previous_due=None, now=None, weights=None, **kwargs):
        """``previous_due``: the assignment's due time before this edit (a past one kept as it was
        needs no confirming again); ``now``: the time the due time is compared with;
        ``weights``: {problem id: weight} of the assignment being edited. Each problem's weight
        is typed in a field of its own, ``weight-<problem id>``, beside its box."""
        super().__init__(*args, **kwargs)
        self.weights = weights or {}
        if problems is not None:
            self.fields["problems"].queryset = problems
        self.fields["problems"].label_from_instance = lambda p: f"{p.title} ({p.slug}, {p.difficulty})"
        self.previous_due, self.now = previous_due, now or timezone.now()
        self.asks_past_due = False  # the page shows the confirming box once a past due time was typed

    def weight_typed(self, problem_id: int) -> str:
        """What the problem's weight field shows: what was typed, else the saved weight, else 1."""
        if self.is_bound and f"weight-{problem_id}" in self.data:
            return self.data[f"weight-{problem_id}"]
        return str(self.weights.get(problem_id, 1))

    @property
    def problem_choices(self):
        """(the problem's box, its weight as shown) for the page."""
        return [(choice, self.weight_typed(choice.data["value"].value)) for choice in self["problems"]]

    def _clean_weights(self, problems) -> dict:
        found, wrong = {}, []
        for problem in problems:
            typed = self.weight_typed(problem.pk).strip()
            if typed == "":
                found[problem.pk] = 1  # left empty: the default
            elif (weight := parse_int(typed, maximum=MAX_WEIGHT)) is not None:
                found[problem.pk] = weight
            else:
                wrong.append(f"{problem.title}: {typed[:20]!r}")
        if wrong:
            self.add_error(
                None,
                f"A problem's weight is a whole number from 0 to {MAX_WEIGHT} (1 if left empty); "
                f"not {'; '.join(wrong)}.",
            )
        return found

    def clean(self):
        data = super().clean()
        data["weights"] = self._clean_weights(data.get("problems") or [])
        due = data.get("due_at")
        if due is not None and due <= self.now and due != self.previous_due:
            self.asks_past_due = True
            if not data.get("confirm_past_due"):
                # saved silently, a past due time makes every submission late and lists the
                # assignment as due soon: said here, and saved only when the instructor means it
                self.add_error(
                    "due_at",
                    "This due time is already past: learners could only submit late, or not "
                    'at all. Pick a later time, or tick "Yes, the due time is in the past".',
                )
        return data


class ExtensionForm(forms.Form):
    learner = forms.IntegerField(widget=forms.HiddenInput)
    due_at = local_time_field("New due time", required=False, help_text="Empty: back to the assignment's.")


class SimilarityBaseForm(forms.Form):
    """What the similarity check leaves out as given to everyone."""

    base = forms.CharField(
        required=False,
        label="Base file",
        strip=False,
        widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false", "class": "code"}),
        help_text="Code every learner was given besides the starter (a handout, the lecture's code): "
        "left out of every submission before comparing, for every problem of the assignment.",
    )
    excludes_starter = forms.BooleanField(required=False, label="Leave out each problem's starter code")
    excludes_reference = forms.BooleanField(required=False, label="Leave out each problem's reference solution")

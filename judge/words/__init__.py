"""The learner-facing words of a policy_violation: its cause first, in one sentence, then one thing
to try (``cause``), then what differs (``message``). ``cause.py`` says the causes' precedence and
which module words each kind.
"""

from .cause import cause, message
from .no_checkpoint import no_checkpoint_advice
from .shared import PLAIN, Cause, Form, form_of

__all__ = ["cause", "message", "no_checkpoint_advice", "Cause", "Form", "PLAIN", "form_of"]

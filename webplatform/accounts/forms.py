"""The sign-up form: Django's, with an e-mail address, optional, that a forgotten password is
reset through (once verified) and that the course gradebooks show; one address per account. The
password-reset form: Django's, mailing only addresses their accounts verified."""

from django import forms
from django.contrib.auth.forms import PasswordResetForm, UserCreationForm

from . import selectors


class SignUpForm(UserCreationForm):
    email = forms.EmailField(
        required=False,
        label="E-mail (optional)",
        help_text=(
            "To reset a forgotten password, once you confirm it with the link we mail there; "
            "your instructors see it in their gradebook."
        ),
    )

    def clean_email(self):
        email = self.cleaned_data.get("email", "")
        if email and selectors.email_taken(email=email):
            raise forms.ValidationError(
                "Another account uses this e-mail address already. If it is yours, reset that account's "
                "password from the sign-in page.",
                code="email_taken",
            )
        return email


class VerifiedPasswordResetForm(PasswordResetForm):
    """Django's: the reset link goes only to an address its account verified (an account can type
    anybody's address at sign-up; until its owner opens the link mailed there, nothing else goes)."""

    def get_users(self, email):
        users = list(super().get_users(email))
        verified = selectors.verified_user_ids(users=users)
        return (user for user in users if user.pk in verified)

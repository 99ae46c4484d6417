"""The sign-up form: Django's, with an e-mail address, optional, that a forgotten password is
reset through and that the course gradebooks show."""

from django import forms
from django.contrib.auth.forms import UserCreationForm


class SignUpForm(UserCreationForm):
    email = forms.EmailField(
        required=False,
        label="E-mail (optional)",
        help_text="To reset a forgotten password; your instructors see it in their gradebook.",
    )

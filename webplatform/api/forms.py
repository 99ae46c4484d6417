from django import forms

from .services import MAX_NAME_LENGTH


class TokenForm(forms.Form):
    name = forms.CharField(max_length=MAX_NAME_LENGTH, help_text="where it will be used: laptop, colab, CI ...")

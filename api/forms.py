from __future__ import annotations

from django import forms

from api.models import TokenScope


class TokenForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="What the token is for: “Slack bot”.")
    scope = forms.ChoiceField(choices=TokenScope.choices, initial=TokenScope.READ)

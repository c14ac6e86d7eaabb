"""The curator's invitation form and the invitee's "choose a name and password" form."""

from __future__ import annotations

import re

from django import forms
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from accounts.models import Role
from annotations.forms import SignupForm

# A lab, not a mailing list: more than this at once is a mistake more often than a plan.
MAX_ADDRESSES = 100


class InviteForm(forms.Form):
    emails = forms.CharField(
        label="E-mail addresses",
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text="One or many, separated by commas, spaces or new lines.",
    )
    role = forms.ChoiceField(
        choices=Role.choices,
        initial=Role.MEMBER,
        help_text="A guest reads the catalogue and comments on papers; they see no lab lists, "
        "highlights or activity.",
    )

    def clean_emails(self) -> list[str]:
        addresses = [a for a in re.split(r"[\s,;]+", self.cleaned_data["emails"]) if a]
        if len(addresses) > MAX_ADDRESSES:
            raise ValidationError(f"At most {MAX_ADDRESSES} addresses at once.")
        bad = []
        for address in addresses:
            try:
                validate_email(address)
            except ValidationError:
                bad.append(address)
        if bad:
            raise ValidationError("Not e-mail addresses: " + ", ".join(bad[:10]))
        # Each address once, in the order given, whatever its letter case.
        return list(dict.fromkeys(a.casefold() for a in addresses))


class AcceptInvitationForm(SignupForm):
    """Sign-up's username rules and Django's password validators; the address is the
    invitation's (the instance carries it, so the validators compare the password with it)."""

    email = None  # type: ignore[assignment]

    class Meta(SignupForm.Meta):
        model = User
        fields = ("username",)  # type: ignore[assignment]

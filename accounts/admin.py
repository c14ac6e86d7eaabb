"""Invitations and roles in the admin: invitations are read-only rows (the invitation page,
/accounts/invite/, sends them, since only it mails the link); a member's role is set on their
profile."""

from __future__ import annotations

from allauth.account.admin import EmailAddressAdmin
from allauth.account.models import EmailAddress
from allauth.socialaccount.admin import SocialAccountAdmin
from allauth.socialaccount.models import SocialAccount, SocialApp, SocialToken
from django.contrib import admin
from django.http import HttpRequest

from accounts.models import Invitation, MemberProfile, Role
from accounts.roles import set_role, stored_role
from papers.admin.guards import GuardedAdmin, ReadOnlyAdmin


@admin.register(Invitation)
class InvitationAdmin(GuardedAdmin, admin.ModelAdmin):
    list_display = ["email", "role", "invited_by", "created_at", "expires_at", "used_at", "user"]
    list_filter = ["role", ("used_at", admin.EmptyFieldListFilter)]
    search_fields = ["email"]
    list_select_related = ["invited_by", "user"]
    readonly_fields = ["email", "role", "invited_by", "created_at", "expires_at", "used_at", "user"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(MemberProfile)
class MemberProfileAdmin(GuardedAdmin, admin.ModelAdmin):
    list_display = ["user", "role", "orcid", "author"]
    list_filter = ["role"]
    search_fields = ["user__username", "user__email", "orcid"]
    list_select_related = ["user", "author"]
    raw_id_fields = ["user", "author"]

    def save_model(self, request, obj, form, change) -> None:
        # Through set_role: staff status, the Curators group and the sessions follow the role.
        role = Role(obj.role)
        obj.role = stored_role(obj.user)
        super().save_model(request, obj, form, change)
        set_role(obj.user, role)


# allauth's own admins: the providers are configured from the environment (settings
# SOCIALACCOUNT_PROVIDERS), so its apps and tokens (secrets) have no admin here; the accounts
# and addresses it links stand behind the same guards as every other admin (hand-made numbers
# refused, not a server error). A linked account is what a sign-in recorded: read-only (its
# JSON field would take a hand-made 5,000-digit number to a server error in Django's form).
admin.site.unregister(SocialApp)
admin.site.unregister(SocialToken)
for _model, _admin, _guards in [
    (EmailAddress, EmailAddressAdmin, GuardedAdmin),
    (SocialAccount, SocialAccountAdmin, ReadOnlyAdmin),
]:
    admin.site.unregister(_model)
    admin.site.register(_model, type(f"Guarded{_admin.__name__}", (_guards, _admin), {}))

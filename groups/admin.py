from django.contrib import admin
from django.db import models

from groups.models import ReadingGroup, Session
from papers.admin.guards import GuardedAdmin


class MembershipInline(admin.TabularInline):
    model = ReadingGroup.members.through
    extra = 0
    raw_id_fields = ["member"]


@admin.register(ReadingGroup)
class ReadingGroupAdmin(GuardedAdmin, admin.ModelAdmin):
    list_display = ["name", "usual_time", "time_zone"]
    search_fields = ["name"]
    inlines = [MembershipInline]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}


@admin.register(Session)
class SessionAdmin(GuardedAdmin, admin.ModelAdmin):
    list_display = ["group", "starts_at", "presenter"]
    list_filter = ["group"]
    date_hierarchy = "starts_at"
    raw_id_fields = ["presenter", "notes_by"]
    fields = ["group", "starts_at", "presenter", "agenda", "notes", "notes_by", "notes_at"]

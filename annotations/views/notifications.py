"""A member's own notifications: only ever the logged-in member's, whatever the URL says."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotations import discussion
from annotations.models import Notification
from annotations.views.common import HtmxHttpRequest, finish


@login_required
def notification_list(request: HttpRequest) -> HttpResponse:
    notifications = discussion.notifications_for(request.user)[: discussion.NOTIFICATIONS_SHOWN]
    return render(
        request,
        "annotations/notifications.html",
        {"notifications": notifications, "shown": discussion.NOTIFICATIONS_SHOWN},
    )


@require_http_methods(["GET", "POST"])
@login_required
def notification_open(request: HttpRequest, pk: int) -> HttpResponse:
    """Follow a notification to its comment; the POST from the notifications page marks it
    read on the way, a GET (a prefetch, a pasted link) does not. Another member's
    notification is a 404, so nobody can read or mark it."""
    notification = get_object_or_404(
        Notification.objects.select_related("comment__paper", "list_change__reading_list"),
        pk=pk,
        recipient=request.user,
    )
    if request.method == "POST":
        discussion.mark_read(notification)
    return redirect(notification.get_target_url())


@require_POST
@login_required
def notifications_mark_all_read(request: HtmxHttpRequest) -> HttpResponse:
    count = discussion.mark_all_read(request.user)
    message = f"Marked {count} notification{'s' if count != 1 else ''} read."
    return finish(request, message, redirect_to="annotations:notifications")

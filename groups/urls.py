from django.urls import path

from groups import views

app_name = "groups"

urlpatterns = [
    path("groups/", views.group_list, name="list"),
    path("groups/<int:pk>/", views.group_detail, name="detail"),
    path("groups/<int:pk>/edit/", views.group_edit, name="edit"),
    path("groups/<int:pk>/join/", views.join, name="join"),
    path("groups/<int:pk>/leave/", views.leave, name="leave"),
    path("groups/<int:pk>/sessions/new/", views.session_create, name="session-create"),
    path("groups/sessions/<int:pk>/", views.session_detail, name="session"),
    path("groups/sessions/<int:pk>/edit/", views.session_edit, name="session-edit"),
    path("groups/sessions/<int:pk>/notes/", views.session_notes, name="session-notes"),
    path("groups/sessions/<int:pk>/rsvp/", views.rsvp, name="rsvp"),
    path("groups/sessions/<int:pk>/swap/", views.swap, name="swap"),
    path("groups/calendar/new/", views.calendar_link_new, name="calendar-link-new"),
    path("groups/calendar/revoke/", views.calendar_link_revoke, name="calendar-link-revoke"),
    path("groups/calendar/<str:key>.ics", views.calendar_feed, name="calendar-feed"),
]

from django.urls import path

from alerts import views

app_name = "alerts"

urlpatterns = [
    path("searches/", views.searches, name="searches"),
    path("searches/save/", views.save, name="save"),
    path("searches/<int:pk>/open/", views.open_search, name="open"),
    path("searches/<int:pk>/rename/", views.rename, name="rename"),
    path("searches/<int:pk>/alert/", views.toggle_alert, name="toggle-alert"),
    path("searches/<int:pk>/delete/", views.delete, name="delete"),
    path("searches/unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("searches/resubscribe/", views.resubscribe, name="resubscribe"),
    path("lab/", views.lab, name="lab"),
]

from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("accounts/invite/", views.invite_page, name="invite"),
    path("accounts/invitation/<str:token>/", views.accept_page, name="accept"),
]

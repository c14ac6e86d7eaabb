from django.urls import path

from api import views

app_name = "api"
urlpatterns = [
    path("account/api-tokens/", views.tokens_page, name="tokens"),
    path("account/api-tokens/<int:pk>/revoke/", views.token_revoke, name="token-revoke"),
]

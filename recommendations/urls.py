from django.urls import path

from recommendations import views

app_name = "recommendations"

urlpatterns = [
    path("recommended/", views.recommended, name="recommended"),
    path("recommended/list/<int:pk>/", views.list_similar, name="list-similar"),
]

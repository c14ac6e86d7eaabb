from django.urls import path

from highlights import export_views, views

app_name = "highlights"

urlpatterns = [
    path("papers/<int:paper_pk>/highlights/", views.paper_highlights, name="list"),
    path("highlights/<int:pk>/edit/", views.highlight_edit, name="edit"),
    path("highlights/<int:pk>/visibility/", views.highlight_visibility, name="visibility"),
    path("highlights/<int:pk>/delete/", views.highlight_delete, name="delete"),
    path("highlights/<int:pk>/anchor/", views.highlight_anchor, name="anchor"),
    path("highlights/<int:pk>.jsonld", views.highlight_jsonld, name="jsonld"),
    path("papers/<int:pk>/my-notes.md", export_views.paper_export, name="paper-export"),
    path("lists/<int:pk>/my-notes.md", export_views.list_export, name="list-export"),
]

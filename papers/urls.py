from django.urls import path

from papers import link_views, suggest, views

app_name = "papers"

urlpatterns = [
    path("", views.paper_list, name="list"),
    path("add-by-link/", link_views.add_by_link, name="add-by-link"),
    path("add-by-link/<int:pk>/", link_views.link_fetch, name="link-fetch"),
    path("papers/<int:pk>/", views.paper_detail, name="detail"),
    path("authors/<int:pk>/", views.author_detail, name="author"),
    path("tags/<str:kind>/<str:slug>/", views.tag_detail, name="tag"),
    path("suggest/", suggest.suggest, name="suggest"),
]

from django.urls import path

from pdfs import views

app_name = "pdfs"

urlpatterns = [
    path("papers/<int:pk>/pdf/", views.pdf_file, name="file"),
    path("papers/<int:pk>/pdf/upload/", views.pdf_upload, name="upload"),
    path("papers/<int:pk>/pdf/fetch/", views.pdf_fetch, name="fetch"),
    path("papers/<int:pk>/read/", views.reader, name="reader"),
]

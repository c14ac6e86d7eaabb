
app_name = "annotations"

# Notes, reading lists, lab tagging and comments are wired up here.
urlpatterns: list = []

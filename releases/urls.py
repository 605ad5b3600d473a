app_name = "releases"

urlpatterns: list = []

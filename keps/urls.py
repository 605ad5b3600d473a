app_name = "keps"

urlpatterns: list = []

app_name = "meetings"

urlpatterns: list = []

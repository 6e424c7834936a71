"""URL configuration: the site (``webui.web``) at the root and Django's admin."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("webui.web.urls")),
]

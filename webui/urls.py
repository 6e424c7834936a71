"""URL configuration: the site (``webui.web``) at the root, the Play page (``webui.play``)
under ``/play/`` and Django's admin."""

from django.contrib import admin
from django.urls import include, path

from webui.web.forms import AdminLoginForm
from webui.web.views import admin_login

# JSON under /api/, the usual pages elsewhere (webui.web.errors).
handler400 = "webui.web.errors.bad_request"
handler403 = "webui.web.errors.permission_denied"
handler404 = "webui.web.errors.page_not_found"
handler500 = "webui.web.errors.server_error"

# The admin's login checks the user name as the site's does (and answers 400 when malformed).
admin.site.login_form = AdminLoginForm

urlpatterns = [
    path("admin/login/", admin_login),
    path("admin/", admin.site.urls),
    path("play/", include("webui.play.urls")),
    path("", include("webui.training.urls")),
    path("", include("webui.fairplay.urls")),
    path("", include("webui.web.urls")),
]

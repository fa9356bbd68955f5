"""WSGI entry point; a malformed setting stops the server with one line before anything starts."""

import os

from django.core.wsgi import get_wsgi_application

from kopa_site.env import exit_on_config_error

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kopa_site.settings")
exit_on_config_error()
application = get_wsgi_application()

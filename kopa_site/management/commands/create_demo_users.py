"""Create (or bring back in line) one demo user per role and print their logins; safe to rerun."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.urls import reverse
from rest_framework.authtoken.models import Token

from kopa_site.env import env_int, env_str
from kopa_site.roles import ADMIN, ROLES, user_set_role

UNCHANGED = "(unchanged)"


class Command(BaseCommand):
    help = (
        "Create the demo users annotator, reviewer and admin (admin is also a superuser) and print "
        "their logins. Existing users keep their password unless --password is given. "
        "For another user's API token use `manage.py drf_create_token USERNAME`."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--password",
            help="Password for all three users. Without it, new users get a generated one and existing users keep theirs.",
        )
        parser.add_argument(
            "--tokens", action="store_true", help="Also print each user's API token (created if missing)."
        )
        parser.add_argument(
            "--base-url",
            default=None,
            help="Where the site is served, for the login URL (default: http://$KOPA_HOST:$KOPA_PORT).",
        )

    def handle(self, *args, password=None, tokens=False, base_url=None, **options):
        if password is not None:
            self._validate(password)
        user_model = get_user_model()
        rows = []
        with transaction.atomic():
            for role in ROLES:
                user, created = user_model.objects.get_or_create(username=role)
                shown = UNCHANGED
                if password is not None or created or not user.has_usable_password():
                    shown = password if password is not None else secrets.token_urlsafe(12)
                    user.set_password(shown)
                user.is_active = True
                user.is_superuser = role == ADMIN
                user.save()
                user_set_role(user=user, role=role)
                token = Token.objects.get_or_create(user=user)[0].key if tokens else None
                rows.append((role, user.get_username(), shown, token))
        self._print(rows, tokens=tokens, base_url=base_url or self._default_base_url())

    def _validate(self, password: str) -> None:
        try:
            validate_password(password)
        except ValidationError as exc:
            raise CommandError(f"--password: {' '.join(exc.messages)}") from None

    @staticmethod
    def _default_base_url() -> str:
        host = env_str("KOPA_HOST", "127.0.0.1") or "127.0.0.1"
        return f"http://{host}:{env_int('KOPA_PORT', 8000, minimum=1)}"

    def _print(self, rows, *, tokens: bool, base_url: str) -> None:
        header = ("role", "username", "password") + (("token",) if tokens else ())
        table = [header] + [row[:3] + ((row[3],) if tokens else ()) for row in rows]
        widths = [max(len(str(line[i])) for line in table) for i in range(len(header))]
        for line in table:
            self.stdout.write(
                "  ".join(str(cell).ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
            )
        self.stdout.write(f"Log in at {base_url.rstrip('/')}{reverse('login')}")
        if any(row[2] == UNCHANGED for row in rows):
            self.stdout.write("Passwords marked (unchanged) were set earlier; pass --password to reset them.")

"""Sign-in hardening (issue 17, point 10): failed sign-ins are throttled per user and per address, API tokens
expire, and their owner can revoke them.

The throttle sits in the authentication backend, so the login page, the admin's login and the token endpoint
all count against the same limits: after KOPA_LOGIN_FAILURES failures for one user name, or
KOPA_LOGIN_FAILURES_PER_ADDRESS from one address, within KOPA_LOGIN_WINDOW_S seconds, every sign-in for it
is refused (even with the right password) until the window has passed. The counts live in the cache: shared
by every worker with Redis, per process with the local-memory cache of a laptop.
"""

from __future__ import annotations

import hashlib
import time
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.signals import user_login_failed
from django.contrib.auth.views import LoginView
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.utils import timezone
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed


def client_address(request) -> str:
    """The client's address as the server saw it (behind a proxy, uvicorn --proxy-headers sets it)."""
    return (getattr(request, "META", None) or {}).get("REMOTE_ADDR", "") or "unknown"


def _limits() -> tuple[int, int, int]:
    return (
        int(getattr(settings, "KOPA_LOGIN_FAILURES", 10)),
        int(getattr(settings, "KOPA_LOGIN_FAILURES_PER_ADDRESS", 50)),
        int(getattr(settings, "KOPA_LOGIN_WINDOW_S", 900)),
    )


def _keys(username: str, address: str) -> tuple[str, str]:
    user_hash = hashlib.sha256(str(username).strip().lower().encode("utf-8", "replace")).hexdigest()[:32]
    return f"kopa:signin:user:{user_hash}", f"kopa:signin:addr:{address}"


def _count(key: str) -> tuple[int, float]:
    value = cache.get(key)
    return value if isinstance(value, tuple) else (0, 0.0)


def retry_after(username: str, address: str) -> int:
    """Seconds until sign-ins for this user name and address are accepted again; 0 when they are now."""
    per_user, per_address, _ = _limits()
    wait = 0.0
    for key, limit in zip(_keys(username, address), (per_user, per_address), strict=True):
        failures, until = _count(key)
        if failures >= limit:
            wait = max(wait, until - time.time())
    return max(0, int(wait + 0.999))


def record_failure(username: str, address: str) -> None:
    _, _, window = _limits()
    for key in _keys(username, address):
        failures, until = _count(key)
        if until < time.time():
            failures, until = 0, time.time() + window
        cache.set(key, (failures + 1, until), timeout=max(1, int(until - time.time()) + 1))


def record_success(username: str) -> None:
    cache.delete(_keys(username, "")[0])


def _on_failure(sender, credentials, request=None, **kwargs):
    record_failure(credentials.get("username", ""), client_address(request))


user_login_failed.connect(_on_failure, dispatch_uid="kopa_site.auth.failures")


class ThrottledModelBackend(ModelBackend):
    """ModelBackend that refuses every sign-in of a throttled user name or address."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        name = username if username is not None else kwargs.get(self._username_field(), "")
        if retry_after(name or "", client_address(request)):
            raise PermissionDenied("too many failed sign-ins")  # authenticate() stops and reports a failure
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is not None:
            record_success(name or "")
        return user

    @staticmethod
    def _username_field() -> str:
        from django.contrib.auth import get_user_model

        return get_user_model().USERNAME_FIELD


def token_ttl() -> timedelta | None:
    days = float(getattr(settings, "KOPA_TOKEN_TTL_DAYS", 30))
    return timedelta(days=days) if days > 0 else None


def token_expires_at(token):
    ttl = token_ttl()
    return token.created + ttl if ttl else None


def token_issue(*, user) -> Token:
    """The user's token; a new one when it has expired (the old key stops working at once)."""
    token, created = Token.objects.get_or_create(user=user)
    expires = token_expires_at(token)
    if not created and expires is not None and expires <= timezone.now():
        token.delete()
        token = Token.objects.create(user=user)
    return token


def token_revoke(*, user) -> bool:
    """Delete the user's token (by its owner, through the API; admins delete any in the admin)."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)


class ExpiringTokenAuthentication(TokenAuthentication):
    """Token authentication whose tokens stop working KOPA_TOKEN_TTL_DAYS after they were issued."""

    def authenticate_credentials(self, key):
        user, token = super().authenticate_credentials(key)
        expires = token_expires_at(token)
        if expires is not None and expires <= timezone.now():
            raise AuthenticationFailed("Token expired; get a new one from /api/v1/auth/token/.")
        return user, token


class ThrottledLoginView(LoginView):
    """The login page, saying so (429) when sign-ins for the user name or address are throttled."""

    def post(self, request, *args, **kwargs):
        wait = retry_after(request.POST.get("username", ""), client_address(request))
        if not wait:
            return super().post(request, *args, **kwargs)
        # Not validated: checking the password would count another failure (and tell whether it was right).
        form = self.form_class(request, initial={"username": request.POST.get("username", "")[:150]})
        response = self.render_to_response(self.get_context_data(form=form, throttled_for=wait), status=429)
        response["Retry-After"] = str(wait)
        return response

"""Service keys: set, clear and rotate them (stored encrypted, never shown again), and read one for a call."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.db import transaction

from apis.crypto import CredentialDecryptError, decrypt_secret, encrypt, rotate
from apis.engine.errors import Secret
from apis.models import Credential, Provider
from apis.services.errors import ToolExecutionError

logger = logging.getLogger(__name__)


MIN_KEY_LENGTH = 4


def _checked_key(service_key: str) -> str:
    """The key, stripped, if it follows the rules every service key follows (stored or given per call)."""
    key = (service_key or "").strip()
    if len(key) < MIN_KEY_LENGTH or len(key) > 1000 or any(ch.isspace() or not ch.isprintable() for ch in key):
        raise ToolExecutionError(f"a service key is {MIN_KEY_LENGTH} to 1000 printable characters with no spaces")
    return key


def credential_set(*, provider: Provider, service_key: str, user=None) -> Credential:
    """Store (or replace) the provider's service key, encrypted. The key is never shown back."""
    key = _checked_key(service_key)
    credential, _ = Credential.objects.update_or_create(
        provider=provider, defaults={"ciphertext": encrypt(key), "updated_by": user}
    )
    logger.info("service key for %s set by %s", provider.code, getattr(user, "username", "system"))
    return credential


def credential_clear(*, provider: Provider, user=None) -> bool:
    deleted, _ = Credential.objects.filter(provider=provider).delete()
    if deleted:
        logger.info("service key for %s removed by %s", provider.code, getattr(user, "username", "system"))
    return bool(deleted)


@dataclass(frozen=True)
class RotationReport:
    rotated: list[str]  # provider codes re-encrypted with the current key
    unreadable: list[str]  # provider codes no configured key decrypts (set those keys again)


@transaction.atomic
def credential_rotate() -> RotationReport:
    """Re-encrypt every stored service key with the current KOPA_CREDENTIAL_KEY (apis/crypto.py).

    Keys are read with the current key or any in KOPA_CREDENTIAL_OLD_KEYS; one that none reads is left as it
    is and reported. Afterwards the old keys can be dropped from the settings."""
    rotated, unreadable = [], []
    for credential in Credential.objects.select_related("provider").select_for_update().order_by("pk"):
        try:
            ciphertext = rotate(credential.ciphertext)
        except CredentialDecryptError:
            unreadable.append(credential.provider.code)
            continue
        Credential.objects.filter(pk=credential.pk).update(ciphertext=ciphertext)
        rotated.append(credential.provider.code)
    logger.info("service keys re-encrypted: %d; unreadable: %d", len(rotated), len(unreadable))
    return RotationReport(rotated, unreadable)


def _credential_key(provider: Provider) -> Secret | None:
    ciphertext = Credential.objects.filter(provider=provider).values_list("ciphertext", flat=True).first()
    return decrypt_secret(ciphertext) if ciphertext else None

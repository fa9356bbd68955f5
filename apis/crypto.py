"""Encryption of stored service keys: Fernet with a key from KOPA_CREDENTIAL_KEY or derived from SECRET_KEY (HKDF).

KOPA_CREDENTIAL_KEY may be a Fernet key (urlsafe base64 of 32 bytes) or any long passphrase; either way the
site can rotate SECRET_KEY without losing stored keys once KOPA_CREDENTIAL_KEY is set.
"""

from __future__ import annotations

import base64
import binascii

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

from apis.engine.errors import Secret

_INFO = b"kopa-console credential v1"


class CredentialDecryptError(Exception):
    """A stored key cannot be decrypted: the encryption key changed since it was written."""


def _derive(material: str) -> bytes:
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"kopa-credentials", info=_INFO)
    return base64.urlsafe_b64encode(hkdf.derive(material.encode("utf-8")))


def _fernet_key() -> bytes:
    dedicated = getattr(settings, "KOPA_CREDENTIAL_KEY", "") or ""
    if dedicated:
        try:
            if len(base64.urlsafe_b64decode(dedicated.encode("ascii"))) == 32:
                return dedicated.encode("ascii")
        except (binascii.Error, ValueError, UnicodeEncodeError):
            pass
        return _derive(dedicated)
    return _derive(settings.SECRET_KEY)


def encrypt(plaintext: str) -> str:
    return Fernet(_fernet_key()).encrypt(plaintext.encode("utf-8")).decode("ascii")


def decrypt_secret(token: str) -> Secret:
    """decrypt(), the key wrapped so that no frame or repr shows it (apis.engine.errors.Secret)."""
    return Secret(decrypt(token))


def decrypt(token: str) -> str:
    try:
        return Fernet(_fernet_key()).decrypt(token.encode("ascii")).decode("utf-8")
    except InvalidToken:
        raise CredentialDecryptError(
            "a stored service key cannot be decrypted: KOPA_CREDENTIAL_KEY or SECRET_KEY changed since it was set; "
            "set the key again"
        ) from None

"""Encryption of stored service keys: Fernet with a key from KOPA_CREDENTIAL_KEY or derived from SECRET_KEY (HKDF).

KOPA_CREDENTIAL_KEY may be a Fernet key (urlsafe base64 of 32 bytes) or any long passphrase; either way the
site can rotate SECRET_KEY without losing stored keys once KOPA_CREDENTIAL_KEY is set (production requires it).

Rotation: set the new KOPA_CREDENTIAL_KEY, list the previous one in KOPA_CREDENTIAL_OLD_KEYS, and run
`manage.py credential_rotate`; stored keys are read with any of the keys (MultiFernet) and re-encrypted with
the current one. While a dedicated key is set, the key derived from SECRET_KEY is also read, so keys stored
before KOPA_CREDENTIAL_KEY existed can be rotated onto it.
"""

from __future__ import annotations

import base64
import binascii

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
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


def _as_fernet_key(material: str) -> bytes:
    try:
        if len(base64.urlsafe_b64decode(material.encode("ascii"))) == 32:
            return material.encode("ascii")
    except (binascii.Error, ValueError, UnicodeEncodeError):
        pass
    return _derive(material)


def _fernet_keys() -> list[bytes]:
    """The current key first (it encrypts), then every key that may still decrypt."""
    dedicated = getattr(settings, "KOPA_CREDENTIAL_KEY", "") or ""
    keys = [_as_fernet_key(dedicated) if dedicated else _derive(settings.SECRET_KEY)]
    keys += [_as_fernet_key(old) for old in getattr(settings, "KOPA_CREDENTIAL_OLD_KEYS", ()) or () if old]
    if dedicated:
        keys.append(_derive(settings.SECRET_KEY))
    return list(dict.fromkeys(keys))


def _fernet() -> MultiFernet:
    return MultiFernet([Fernet(key) for key in _fernet_keys()])


def encrypt(plaintext: str) -> str:
    return _fernet().encrypt(plaintext.encode("utf-8")).decode("ascii")


def decrypt_secret(token: str) -> Secret:
    """decrypt(), the key wrapped so that no frame or repr shows it (apis.engine.errors.Secret)."""
    return Secret(decrypt(token))


def decrypt(token: str) -> str:
    try:
        return _fernet().decrypt(token.encode("ascii")).decode("utf-8")
    except InvalidToken:
        raise CredentialDecryptError(
            "a stored service key cannot be decrypted: KOPA_CREDENTIAL_KEY or SECRET_KEY changed since it was set; "
            "list the previous key in KOPA_CREDENTIAL_OLD_KEYS, or set the key again"
        ) from None


def rotate(token: str) -> str:
    """The token re-encrypted with the current key (CredentialDecryptError when no known key reads it)."""
    try:
        return _fernet().rotate(token.encode("ascii")).decode("ascii")
    except InvalidToken:
        raise CredentialDecryptError("a stored service key cannot be decrypted with any configured key") from None

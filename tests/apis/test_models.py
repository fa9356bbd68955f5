"""Catalog models: tools as engine specs, keys stored encrypted, call bodies compressed."""

from __future__ import annotations

import gzip

import pytest
from cryptography.fernet import Fernet

from apis.crypto import CredentialDecryptError, decrypt, encrypt
from apis.engine.model import KeySlot
from apis.models import ApiCall, Credential
from apis.services import credential_set

pytestmark = pytest.mark.django_db


def test_a_tool_knows_its_required_and_optional_parameters(apt_trade):
    assert apt_trade.required_params == ["LAWD_CD", "DEAL_YMD"]
    assert apt_trade.optional_params == ["pageNo", "numOfRows"]
    assert apt_trade.key == "GET /getRTMSDataSvcAptTrade"


def test_a_tool_becomes_the_engines_spec_at_the_live_base_url(apt_trade):
    service = apt_trade.service
    service.base_url = "https://mirror.example.org/1613000/RTMSDataSvcAptTrade"

    spec = apt_trade.to_spec()

    assert spec.url == "https://mirror.example.org/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade"
    assert spec.key_param == KeySlot("serviceKey", "query", "")
    assert spec.provider == "apis.data.go.kr/1613000"
    assert apt_trade.to_spec(base_url=service.spec_base_url).url.startswith("https://apis.data.go.kr/")


def test_it_stores_a_key_encrypted_and_decrypts_it_back(apt_trade):
    credential_set(provider=apt_trade.service.provider, service_key="Abc+123/xyz==")
    row = Credential.objects.get()

    assert "Abc" not in row.ciphertext and "xyz" not in row.ciphertext
    assert decrypt(row.ciphertext) == "Abc+123/xyz=="
    assert str(row) == "Service key for apis.data.go.kr/1613000 (set)"


def test_a_dedicated_credential_key_is_used_as_a_fernet_key_or_a_passphrase(settings):
    settings.KOPA_CREDENTIAL_KEY = Fernet.generate_key().decode()
    token = encrypt("secret-value")
    assert Fernet(settings.KOPA_CREDENTIAL_KEY.encode()).decrypt(token.encode()) == b"secret-value"

    settings.KOPA_CREDENTIAL_KEY = "a long passphrase, not a Fernet key"
    assert decrypt(encrypt("secret-value")) == "secret-value"


def test_a_changed_encryption_key_says_so_without_the_stored_value(settings):
    token = encrypt("secret-value")
    settings.SECRET_KEY = "another-secret-key-for-this-test-only"

    with pytest.raises(CredentialDecryptError, match="set the key again") as caught:
        decrypt(token)
    assert "secret-value" not in str(caught.value)


def test_a_call_body_is_read_back_from_gzip(apt_trade):
    call = ApiCall.objects.create(tool=apt_trade, mode="sandbox", body_gz=gzip.compress("한글 body".encode()))
    assert call.has_body and call.body_text == "한글 body"

    no_body = ApiCall.objects.create(tool=apt_trade, mode="sandbox", body_sha256="ab" * 32)
    assert not no_body.has_body and no_body.body_text is None
    assert "failed" in str(no_body)

"""Test settings: the same module, with tasks run inline and fast password hashing."""

from kopa_site.settings import *  # noqa: F403
from kopa_site.settings import Q_CLUSTER

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
Q_CLUSTER = {**Q_CLUSTER, "sync": True}

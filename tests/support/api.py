"""Declarative API permission tests: state who gets which status, and every identity is tried.

    assert_role_matrix(api_clients, "/api/v1/stats/", expect_min_role("annotator"))
    assert_role_matrix(api_clients, url, expect_min_role("reviewer", allowed=201), method="post",
                       data=lambda who: {"name": f"made by {who}"})

`api_clients` is the fixture of tests/conftest.py: one APIClient per identity, authenticated the way
real clients are (a token), anonymous without credentials.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

IDENTITIES = ("anonymous", "outsider", "annotator", "reviewer", "admin")
ROLE_IDENTITIES = ("annotator", "reviewer", "admin")


def expect_min_role(role: str, *, allowed: int = 200, anonymous: int = 401, denied: int = 403) -> dict[str, int]:
    """The matrix of an endpoint open to `role` and the roles above it."""
    if role not in ROLE_IDENTITIES:
        raise ValueError(f"unknown role {role!r}")
    rank = ROLE_IDENTITIES.index(role)
    matrix = {"anonymous": anonymous, "outsider": denied}
    matrix.update({name: allowed if i >= rank else denied for i, name in enumerate(ROLE_IDENTITIES)})
    return matrix


def assert_role_matrix(
    clients: Mapping,
    url: str,
    expected: Mapping[str, int],
    *,
    method: str = "get",
    data: object | Callable[[str], object] = None,
    format: str = "json",
) -> dict:
    """Call `url` as every identity, in the order of IDENTITIES, and compare the statuses.

    Every identity must be stated, so a new endpoint cannot forget the anonymous or role-less case.
    `data` may be a function of the identity, for writes that must not collide. Returns the
    responses by identity for further checks.
    """
    missing = [who for who in IDENTITIES if who not in expected]
    unknown = [who for who in expected if who not in IDENTITIES]
    if missing or unknown:
        raise ValueError(f"the matrix must state exactly {', '.join(IDENTITIES)}; missing {missing}, unknown {unknown}")
    responses, failures = {}, []
    for who in IDENTITIES:
        payload = data(who) if callable(data) else data
        kwargs = {"format": format} if payload is not None else {}
        response = getattr(clients[who], method.lower())(url, payload, **kwargs)
        responses[who] = response
        if response.status_code != expected[who]:
            body = getattr(response, "content", b"")[:300].decode("utf-8", "replace")
            failures.append(f"  {who}: expected {expected[who]}, got {response.status_code} {body}")
    if failures:
        raise AssertionError(f"{method.upper()} {url}\n" + "\n".join(failures))
    return responses

"""The graph's refusal: one DomainError whose text pages and the API show to the person who asked."""

from __future__ import annotations

from kopa_site.errors import DomainError


class EdgeError(DomainError):
    """A graph request that cannot be carried out; the message says why, for the person who asked."""

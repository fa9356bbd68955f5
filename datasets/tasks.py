"""django-q entry points of the review console: thin wrappers around its services."""

from datasets.review import leases_expire


def expire_review_leases() -> str:
    return f"{leases_expire()} expired review lease(s) cleared"

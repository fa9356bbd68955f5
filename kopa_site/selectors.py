"""Site-wide reads: how many objects of every kind the console holds, and how many users per role.

The model list comes from the app registry, so a model added to any site app is counted without
touching this module. The home page and GET /api/v1/stats/ both read from here.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Case, CharField, Count, Exists, OuterRef, Value, When

from kopa_site.roles import ADMIN, ANNOTATOR, REVIEWER, ROLES, SITE_APPS

NO_ROLE = "none"
# SQLite refuses compound SELECTs with more than 500 terms; stay well below.
_UNION_CHUNK = 200


@dataclass(frozen=True)
class ModelCount:
    key: str  # "app_label.model_name"
    app_label: str
    app_name: str
    verbose_name: str
    verbose_name_plural: str
    count: int


def site_models(app_labels: tuple[str, ...] = SITE_APPS) -> list:
    """Concrete, managed models of the site apps, in the given app order, then by name."""
    found = []
    for app_label in app_labels:
        try:
            config = apps.get_app_config(app_label)
        except LookupError:
            continue
        models = [m for m in config.get_models() if m._meta.managed and not m._meta.proxy and not m._meta.swapped]
        found.extend(sorted(models, key=lambda m: m._meta.model_name))
    return found


def _row_counts(models, *, using: str) -> dict[str, int]:
    # One UNION ALL query for all tables, so the cost of the home page does not grow with the
    # number of models. Table names come from model metadata, never from input.
    connection = connections[using]
    quote = connection.ops.quote_name
    counts: dict[str, int] = {}
    for start in range(0, len(models), _UNION_CHUNK):
        chunk = models[start : start + _UNION_CHUNK]
        sql = " UNION ALL ".join(f"SELECT %s, COUNT(*) FROM {quote(m._meta.db_table)}" for m in chunk)
        with connection.cursor() as cursor:
            cursor.execute(sql, [m._meta.label_lower for m in chunk])
            counts.update((key, int(n)) for key, n in cursor.fetchall())
    return counts


def site_counts(*, app_labels: tuple[str, ...] = SITE_APPS, using: str = DEFAULT_DB_ALIAS) -> list[ModelCount]:
    """The number of rows of every model of the site apps (one query; none when there is no model)."""
    models = site_models(app_labels)
    counts = _row_counts(models, using=using)
    return [
        ModelCount(
            key=m._meta.label_lower,
            app_label=m._meta.app_label,
            app_name=str(m._meta.app_config.verbose_name),
            verbose_name=str(m._meta.verbose_name),
            verbose_name_plural=str(m._meta.verbose_name_plural),
            count=counts.get(m._meta.label_lower, 0),
        )
        for m in models
    ]


def users_by_role(*, using: str = DEFAULT_DB_ALIAS) -> dict[str, int]:
    """Active users counted under their highest role, plus those with none (one query)."""
    user_model = get_user_model()
    membership = user_model.groups.through.objects.filter(user_id=OuterRef("pk"))

    def member_of(role):
        return Exists(membership.filter(group__name=role))

    highest = Case(
        When(is_superuser=True, then=Value(ADMIN)),
        When(member_of(ADMIN), then=Value(ADMIN)),
        When(member_of(REVIEWER), then=Value(REVIEWER)),
        When(member_of(ANNOTATOR), then=Value(ANNOTATOR)),
        default=Value(NO_ROLE),
        output_field=CharField(),
    )
    rows = (
        user_model.objects.using(using)
        .filter(is_active=True)
        .annotate(role=highest)
        .values("role")
        .annotate(n=Count("pk"))
        .order_by()
    )
    result = dict.fromkeys((*ROLES, NO_ROLE), 0)
    result.update({row["role"]: row["n"] for row in rows})
    return result


def site_stats(*, using: str = DEFAULT_DB_ALIAS) -> dict:
    """Counts keyed "app.model", and users by role: the body of GET /api/v1/stats/."""
    by_role = users_by_role(using=using)
    return {
        "models": {
            row.key: {
                "app": row.app_label,
                "app_name": row.app_name,
                "verbose_name": row.verbose_name,
                "verbose_name_plural": row.verbose_name_plural,
                "count": row.count,
            }
            for row in site_counts(using=using)
        },
        "users_by_role": by_role,
        "users": sum(by_role.values()),
    }

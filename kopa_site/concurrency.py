"""Saving an edit without losing someone else's (issue 17, point 8).

`setattr` on every field and a full `save()` writes back every column as this process last read it: two
people who PATCH different fields of one object at the same moment each overwrite the other's change. Save
only what the edit changed; and where two people edit the same object through a form, pass the version
they read (its `updated_at`) so that an edit made on stale data is refused instead of applied.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.db import models, transaction


class StaleEdit(Exception):
    """The object changed since the editor read it; nothing was saved. Reload and edit again."""


def version_token(instance: models.Model) -> str:
    """The version an editor read, as text for a hidden form field or an API field: `updated_at` in UTC, to the
    microsecond."""
    return instance.updated_at.astimezone(UTC).isoformat()


def version_from_token(token: str) -> datetime:
    """The `updated_at` a version token names; ValueError (with a message a person can act on) when it names none."""
    try:
        moment = datetime.fromisoformat(str(token).strip())
    except ValueError:
        raise ValueError(
            "the version is the value read with the object (e.g. 2026-01-31T09:00:00.123456+00:00)"
        ) from None
    if moment.tzinfo is None:
        raise ValueError("the version carries its UTC offset, as it was read (…+00:00)")
    return moment


def save_changed(instance: models.Model, changes: dict[str, Any], *, expected_version=None) -> models.Model:
    """Apply `changes` to `instance` and write only those columns (and `updated_at`, when the model has one).

    expected_version: the `updated_at` the editor saw; when the stored row's differs, StaleEdit is raised and
    nothing is written. The row is locked while it is compared and written.
    """
    model = type(instance)
    fields_by_name = {field.name: field for field in model._meta.concrete_fields}
    concrete = {**fields_by_name, **{field.attname: field for field in model._meta.concrete_fields}}
    unknown = sorted(set(changes) - set(concrete))
    if unknown:
        raise ValueError(f"unknown field(s) of {model.__name__}: {', '.join(unknown)}")
    versioned = "updated_at" in fields_by_name
    with transaction.atomic():
        stored = model.objects.select_for_update().filter(pk=instance.pk)
        if expected_version is not None:
            if not versioned:
                raise ValueError(f"{model.__name__} has no updated_at to compare versions with")
            current = stored.values_list("updated_at", flat=True).first()
            if current != expected_version:
                raise StaleEdit(f"this {model._meta.verbose_name} was changed by someone else since it was opened")
        elif not stored.exists():
            raise model.DoesNotExist(f"{model.__name__} #{instance.pk} no longer exists")
        for name, value in changes.items():
            setattr(instance, name, value)
        fields = [concrete[name].name for name in changes]
        instance.save(update_fields=[*dict.fromkeys(fields + (["updated_at"] if versioned else []))])
    return instance

"""The three roles (annotator < reviewer < admin) as auth groups: how a user's role is read, how it is
set, and which model permissions each group holds."""

from __future__ import annotations

from django.apps import apps as global_apps
from django.db import DEFAULT_DB_ALIAS, transaction

ANNOTATOR = "annotator"
REVIEWER = "reviewer"
ADMIN = "admin"
ROLES = (ANNOTATOR, REVIEWER, ADMIN)
_RANK = {name: rank for rank, name in enumerate(ROLES, start=1)}

# The apps whose models make up the console; the grants below and the site counts cover them.
SITE_APPS = ("kopa_site", "apis", "graphs", "datasets", "benchmarks", "training")

# Model permissions per role, as (app labels, codename prefixes). A role also holds everything the
# roles below it hold; admins hold every permission in the database. Matching by prefix at migrate
# time (see role_groups_sync) means a model added later is covered without touching this table,
# and so is a custom permission whose codename starts with one of these verbs
# (Meta.permissions = [("approve_trajectory", ...)]).
#
# These rows drive Django's own checks (user.has_perm, the admin site). The REST API checks the
# role itself (kopa_site.permissions.RolePermission), so both stay in step through this one ladder.
ROLE_GRANTS: dict[str, tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]] = {
    ANNOTATOR: (
        (SITE_APPS, ("view_",)),
        # Annotators write and edit trajectories and their revisions, and annotate candidate edges.
        (("datasets",), ("add_", "change_")),
        (("graphs",), ("change_",)),
    ),
    REVIEWER: (
        (SITE_APPS, ("approve_", "reject_", "review_", "verify_", "freeze_")),
        (("graphs",), ("add_",)),
        (("datasets",), ("delete_",)),
    ),
}


def validate_role(role: str) -> str:
    if role not in _RANK:
        raise ValueError(f"unknown role {role!r}; expected one of {', '.join(ROLES)}")
    return role


def role_of(user) -> str | None:
    """The highest role the user holds; superusers are admins. None for anonymous or role-less users."""
    if user is None or not user.is_authenticated:
        return None
    if user.is_superuser:
        return ADMIN
    names = getattr(user, "_kopa_group_names", None)
    if names is None:
        names = set(user.groups.filter(name__in=ROLES).values_list("name", flat=True))
        user._kopa_group_names = names
    held = [name for name in ROLES if name in names]
    return max(held, key=_RANK.__getitem__) if held else None


def has_role(user, minimum: str) -> bool:
    """True when the user's role is at least `minimum`."""
    validate_role(minimum)
    role = role_of(user)
    return role is not None and _RANK[role] >= _RANK[minimum]


def user_set_role(*, user, role: str | None) -> None:
    """Put the user in exactly one role group, or none; admins become staff so the admin site opens."""
    from django.contrib.auth.models import Group

    if role is not None:
        validate_role(role)
    with transaction.atomic():
        user.groups.remove(*Group.objects.filter(name__in=ROLES).exclude(name=role))
        if role is not None:
            group, _ = Group.objects.get_or_create(name=role)
            user.groups.add(group)
        staff = user.is_superuser or role == ADMIN
        if user.is_staff != staff:
            user.is_staff = staff
            user.save(update_fields=["is_staff"])
    user._kopa_group_names = {role} if role else set()


def role_permission_codes(role: str, available: list[tuple[str, str]]) -> set[tuple[str, str]]:
    """The (app_label, codename) pairs of `available` that `role` holds, its lower roles included."""
    validate_role(role)
    if role == ADMIN:
        return set(available)
    rules = [rule for lower in ROLES[: _RANK[role]] for rule in ROLE_GRANTS.get(lower, ())]
    return {
        (app_label, codename)
        for app_label, codename in available
        if any(app_label in labels and codename.startswith(prefixes) for labels, prefixes in rules)
    }


def role_groups_sync(*, using: str = DEFAULT_DB_ALIAS, apps=global_apps) -> None:
    """Create the three groups and set each one's permissions from ROLE_GRANTS (idempotent).

    The table is the source of truth: a permission added to a role group by hand in the admin is
    removed at the next migrate. Give users extra permissions on the user, not on the group.
    """
    try:
        group_model = apps.get_model("auth", "Group")
        permission_model = apps.get_model("auth", "Permission")
    except LookupError:
        return
    rows = list(permission_model.objects.using(using).values_list("id", "content_type__app_label", "codename"))
    ids_by_code = {(app_label, codename): pk for pk, app_label, codename in rows}
    available = list(ids_by_code)
    for role in ROLES:
        group, _ = group_model.objects.using(using).get_or_create(name=role)
        group.permissions.set([ids_by_code[code] for code in role_permission_codes(role, available)])


def sync_roles_after_migrate(sender, *, using=DEFAULT_DB_ALIAS, apps=global_apps, **kwargs) -> None:
    """post_migrate receiver: run once, after the last app's signal, when every permission exists.

    Django sends post_migrate once per app (in INSTALLED_APPS order) and creates each app's
    permissions in that app's turn, so syncing earlier would miss the permissions of later apps.
    """
    with_models = [config for config in global_apps.get_app_configs() if config.models_module is not None]
    if with_models and sender.label == with_models[-1].label:
        role_groups_sync(using=using, apps=apps)

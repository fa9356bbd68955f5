"""Roles: the ladder annotator < reviewer < admin, the groups behind it and their model permissions."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser, Group, Permission

from kopa_site.roles import (
    ADMIN,
    ANNOTATOR,
    REVIEWER,
    ROLES,
    has_role,
    role_groups_sync,
    role_of,
    role_permission_codes,
    user_set_role,
)
from tests.support.users import make_user

pytestmark = pytest.mark.django_db


@pytest.mark.smoke
def test_it_reads_the_highest_role_held(annotator, reviewer, admin, outsider):
    assert [role_of(u) for u in (annotator, reviewer, admin, outsider)] == [ANNOTATOR, REVIEWER, ADMIN, None]


def test_it_ranks_roles_so_higher_ones_include_lower_ones(annotator, reviewer, admin):
    assert has_role(reviewer, ANNOTATOR) and has_role(admin, REVIEWER)
    assert not has_role(annotator, REVIEWER)
    assert not has_role(reviewer, ADMIN)


def test_anonymous_and_role_less_users_hold_no_role(outsider):
    assert role_of(AnonymousUser()) is None
    assert not has_role(AnonymousUser(), ANNOTATOR)
    assert not has_role(outsider, ANNOTATOR)


def test_a_superuser_is_an_admin_without_any_group():
    boss = make_user("boss", is_superuser=True)
    assert role_of(boss) == ADMIN


def test_it_refuses_an_unknown_role(annotator):
    with pytest.raises(ValueError, match="unknown role 'reviwer'"):
        has_role(annotator, "reviwer")
    with pytest.raises(ValueError, match="unknown role"):
        user_set_role(user=annotator, role="owner")


def test_setting_a_role_replaces_the_previous_one_and_sets_staff(annotator):
    user_set_role(user=annotator, role=ADMIN)
    annotator.refresh_from_db()
    assert set(annotator.groups.values_list("name", flat=True)) == {ADMIN}
    assert annotator.is_staff

    user_set_role(user=annotator, role=REVIEWER)
    annotator.refresh_from_db()
    assert set(annotator.groups.values_list("name", flat=True)) == {REVIEWER}
    assert not annotator.is_staff
    assert role_of(annotator) == REVIEWER

    user_set_role(user=annotator, role=None)
    annotator.refresh_from_db()
    assert role_of(annotator) is None


def test_setting_a_role_keeps_groups_that_are_not_roles(annotator):
    annotator.groups.add(Group.objects.create(name="kma-team"))
    user_set_role(user=annotator, role=REVIEWER)
    assert set(annotator.groups.values_list("name", flat=True)) == {"kma-team", REVIEWER}


def test_migrate_creates_the_three_groups():
    assert set(Group.objects.filter(name__in=ROLES).values_list("name", flat=True)) == set(ROLES)


def test_every_role_can_view_site_models_and_only_admins_can_delete_jobs():
    codes = {role: set(Group.objects.get(name=role).permissions.values_list("codename", flat=True)) for role in ROLES}
    for role in ROLES:
        assert "view_job" in codes[role]
    assert "delete_job" not in codes[ANNOTATOR] | codes[REVIEWER]
    assert "delete_job" in codes[ADMIN]


def test_admins_hold_every_permission_in_the_database():
    assert Group.objects.get(name=ADMIN).permissions.count() == Permission.objects.count()


def test_grants_follow_app_and_verb_so_later_models_are_covered():
    available = [
        ("datasets", "view_trajectory"),
        ("datasets", "change_trajectory"),
        ("datasets", "approve_trajectory"),
        ("datasets", "delete_trajectory"),
        ("graphs", "change_candidateedge"),
        ("graphs", "verify_candidateedge"),
        ("apis", "view_tool"),
        ("apis", "change_tool"),
        ("auth", "view_user"),
    ]
    annotator = role_permission_codes(ANNOTATOR, available)
    reviewer = role_permission_codes(REVIEWER, available)
    assert annotator == {
        ("datasets", "view_trajectory"),
        ("datasets", "change_trajectory"),
        ("graphs", "change_candidateedge"),
        ("apis", "view_tool"),
    }
    assert reviewer - annotator == {
        ("datasets", "approve_trajectory"),
        ("datasets", "delete_trajectory"),
        ("graphs", "verify_candidateedge"),
    }
    assert role_permission_codes(ADMIN, available) == set(available)


def test_sync_is_idempotent_and_takes_back_hand_made_grants():
    group = Group.objects.get(name=ANNOTATOR)
    before = set(group.permissions.values_list("pk", flat=True))
    group.permissions.add(Permission.objects.get(codename="delete_job"))

    role_groups_sync()
    role_groups_sync()

    assert set(group.permissions.values_list("pk", flat=True)) == before


def test_sync_recreates_a_deleted_group():
    Group.objects.filter(name=REVIEWER).delete()
    role_groups_sync()
    assert Group.objects.get(name=REVIEWER).permissions.filter(codename="view_job").exists()

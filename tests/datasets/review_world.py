"""Stored trajectories made directly (no synthesis run), for the review console's service, page and API tests."""

from __future__ import annotations

import pytest

from datasets.models import Trajectory, TrajectoryCall, TrajectoryStep
from tests.support.users import make_role_users

PROVIDERS = ("molit", "kosis", "visitkorea")
JUNCTIONS = ("SEQ", "FAN", "COND")


def make_trajectory(index: int, *, status: str = Trajectory.Status.PENDING_REVIEW, calls: int = 2) -> Trajectory:
    provider = PROVIDERS[index % len(PROVIDERS)]
    junction = JUNCTIONS[index % len(JUNCTIONS)]
    trajectory = Trajectory.objects.create(
        request=f"서울 {index}번 동의 인구를 알려줘",
        answer=f"{index}번 동의 인구는 {1000 + index}명입니다.",
        short_answer=f"{1000 + index}명",
        status=status,
        template_id=f"t{index % 7}",
        template=f"dong_list -{junction}-> population",
        junctions=[junction],
        junction_tags=f",{junction},",
        length=calls,
        tool_names=["dong_list", "population"][:calls],
        tool_tags=",dong_list,population,",
        providers=[provider],
        provider_tags=f",{provider},",
        dedupe_key=f"key-{index}",
        clock="2026-11-01T10:00:00+09:00",
        mode="sandbox",
        filters={"format": {"passed": True, "problems": []}, "execution": {"passed": True, "problems": []}},
    )
    previous = None
    for seq in range(calls):
        name = ("dong_list", "population")[seq % 2]
        step = TrajectoryStep.objects.create(
            trajectory=trajectory,
            index=seq,
            parent=previous,
            tool_name=name,
            junction=junction if seq else "",
            links=[{"fields": ["code"], "params": ["code"], "transform": "identity", "edge": None}] if seq else [],
        )
        TrajectoryCall.objects.create(
            trajectory=trajectory,
            step=step,
            seq=seq,
            round=seq,
            tool_name=name,
            arguments={"sido": "서울특별시"} if seq == 0 else {"code": "1111010100", "ym": "202610"},
            bindings=[]
            if seq == 0
            else [
                {
                    "param": "code",
                    "value": "1111010100",
                    "source": "binding",
                    "from_step": 0,
                    "fields": ["code"],
                    "source_values": ["1111010100"],
                    "transform": "identity",
                }
            ],
            observation={
                "ok": True,
                "record_count": 1,
                "total_count": 1,
                "records": [{"code": "1111010100", "dongName": "청운동", "total": 1000 + index}],
            },
            ok=True,
        )
        previous = seq
    return trajectory


def make_trajectories(count: int, **kwargs) -> list[Trajectory]:
    return [make_trajectory(i, **kwargs) for i in range(count)]


@pytest.fixture
def people(db):
    """One user per role, a second annotator and an outsider (import this fixture into a test module)."""
    return make_role_users()


@pytest.fixture
def items(db):
    """Four pending trajectories (import this fixture into a test module)."""
    return make_trajectories(4)

"""A query for one region builds that region only: the health families generate their facilities per 시군구
(tens of thousands nationwide), so a cold filtered query must not pay for the whole country. The builders'
calls are counted, whatever their caches hold."""

from __future__ import annotations

import pytest

from apis.sandbox.families import hira, nmc

HIRA_BASIS = "apis.data.go.kr/B551182/hospInfoServicev2/getHospBasisList"
HIRA_DETAIL = "apis.data.go.kr/B551182/MadmDtlInfoService2.7/getDtlInfo2.7"
PHARMACIES = "apis.data.go.kr/B552657/ErmctInsttInfoInqireService/getParmacyListInfoInqire"


@pytest.fixture
def asked(monkeypatch) -> dict[str, set[str]]:
    """The LAWD_CDs each per-region builder is asked for during the test: facilities (HIRA), pharmacies
    (NMC) and population (the MOIS figures both read per leaf 법정동)."""
    seen: dict[str, set[str]] = {"facilities": set(), "pharmacies": set(), "population": set()}

    def spy(kind: str, module, name: str) -> None:
        real = getattr(module, name)

        def counted(code, *args, **kwargs):
            seen[kind].add(code[:5])
            return real(code, *args, **kwargs)

        monkeypatch.setattr(module, name, counted)

    spy("facilities", hira, "facilities_in")
    spy("pharmacies", nmc, "pharmacies_in")
    spy("population", hira, "population_of")
    spy("population", nmc, "population_of")
    return seen


def test_a_hira_district_query_builds_that_district_only(sandbox_get, asked):
    response = sandbox_get(HIRA_BASIS, {"sgguCd": "110019", "numOfRows": "10"})  # 중랑구
    assert response.status == 200 and "<ykiho>" in response.text()
    assert asked["facilities"] == {"11260"}
    assert asked["population"] <= {"11260"}


def test_a_hira_province_query_stays_in_the_province(sandbox_get, asked):
    assert sandbox_get(HIRA_BASIS, {"sidoCd": "390000", "numOfRows": "10"}).status == 200  # 제주
    assert asked["facilities"] == {"50110", "50130"}


def test_a_hira_radius_query_builds_the_nearby_districts_only(sandbox_get, asked):
    params = {"xPos": "127.0276", "yPos": "37.4979", "radius": "1000", "numOfRows": "10"}  # 강남역
    assert "<distance>" in sandbox_get(HIRA_BASIS, params).text()
    assert asked["facilities"] and asked["facilities"] <= {"11650", "11680"}


def test_a_hira_detail_builds_the_facilitys_district_only(sandbox_get, asked):
    facility = hira.facilities_in("11110")[0]
    asked["facilities"].clear()
    assert "<item>" in sandbox_get(HIRA_DETAIL, {"ykiho": facility.ykiho}).text()
    assert asked["facilities"] == {"11110"}


@pytest.mark.parametrize(
    ("params", "lawd"),
    [({"Q0": "서울특별시", "Q1": "강남구"}, "11680"), ({"Q1": "분당구"}, "41135")],
    ids=["sido-and-sigungu", "sigungu-word"],
)
def test_a_pharmacy_district_query_builds_that_district_only(sandbox_get, asked, params, lawd):
    response = sandbox_get(PHARMACIES, {**params, "numOfRows": "10"})
    assert response.status == 200 and "<hpid>" in response.text()
    assert asked["pharmacies"] == {lawd}
    # The page's pharmacies look for clinic buildings in their own 시군구, and nowhere else.
    assert asked["facilities"] <= {lawd} and asked["population"] <= {lawd}

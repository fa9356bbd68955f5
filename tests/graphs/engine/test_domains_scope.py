"""Values that identify something only inside a parent code, and 시군구 codes that no district-level API indexes."""

from __future__ import annotations

from apis.sandbox.world.seeds import read_csv
from graphs.engine import domains


def _cities_with_gu() -> set[str]:
    """5-digit codes of current 시군구 rows of the 법정동 table that have 구 rows under their name (수원시 41110)."""
    rows = [r for r in read_csv("bdong_codes.csv") if r["abolished"] == "N"]
    district = [r for r in rows if r["sigungu"] and not r["eupmyeondong"] and r["code"].endswith("00000")]
    code_of = {(r["sido"], r["sigungu"]): r["code"][:5] for r in district}
    return {
        code_of[(r["sido"], r["sigungu"].split(" ", 1)[0])]
        for r in district
        if " " in r["sigungu"] and (r["sido"], r["sigungu"].split(" ", 1)[0]) in code_of
    }


def test_a_city_divided_into_gu_is_no_district_code():
    # Derived again from the real code table: the domain's list is that table's, not a hand-picked sample.
    assert set(domains.CITIES_WITH_GU) == _cities_with_gu() and len(domains.CITIES_WITH_GU) == 12
    for code in ("41110", "41130", "43110", "48120"):  # 수원, 성남, 청주, 창원
        assert not domains.valid_value("sgg5", code)
    for code in ("41111", "41135", "11110", "41590", "26110"):  # their 구, 서울 종로구, 화성시, 부산 중구
        assert domains.valid_value("sgg5", code)
    assert not domains.valid_value("sgg5", "11000")  # a 시도 row, as before
    # The snapshot carries the pattern, so walks and needs never bind such a value either.
    pattern = domains.binding_conditions(["sgg5"], {})["invalid"][0]
    assert "41110" in pattern and r"\d\d000" in pattern


def test_a_value_scoped_by_a_parent_code_declares_the_parent_as_companion():
    # A 본번 names a lot only inside its 시군구 and 동 (as the 부번 needs its 본번).
    lot = {"sigunguCd": "sgg5", "bjdongCd": "umd5", "platGbCd": "lot.plat_gb", "ji": "lot.ji4"}
    assert domains.binding_conditions(["lot.bun4"], lot)["companions"] == ["bjdongCd", "sigunguCd"]
    assert domains.missing_companions(["lot.bun4"], ["sgg5"], ["sgg5", "umd5", "lot.bun4"]) == ["umd5"]
    # A 건물본번 names a building only on its road.
    assert domains.missing_companions(["juso.buld_mnnm"], [], ["juso.rn_mgt_sn", "juso.buld_mnnm"]) == [
        "juso.rn_mgt_sn"
    ]
    # TAGO stop numbers repeat across cities.
    assert domains.missing_companions(["tago.node_no"], [], ["tago.city", "tago.node_no"]) == ["tago.city"]
    # A KOSIS item ID is table-local, a table ID is its 기관's own.
    kosis = ["kosis.org", "kosis.tbl", "kosis.itm", "kosis.obj"]
    assert domains.missing_companions(["kosis.itm"], ["kosis.org"], kosis) == ["kosis.tbl"]
    assert domains.missing_companions(["kosis.tbl"], [], kosis) == ["kosis.org"]
    # A content's type goes with its contentId; where the target has no contentId, nothing is asked.
    assert domains.missing_companions(["tour.content_type"], [], ["tour.content_id", "tour.content_type"]) == [
        "tour.content_id"
    ]
    assert domains.missing_companions(["tour.content_type"], [], ["tour.area", "tour.content_type"]) == []


def test_trials_and_walks_never_bind_a_city_divided_into_gu():
    import random

    from graphs.engine import trials as trial_engine
    from graphs.engine.walk import Link

    rows = [{"region_cd": "4100000000"}, {"region_cd": "4111000000"}, {"region_cd": "4111100000"}]
    for seed in range(20):  # whichever record the dice pick first, 장안구 is the one bound
        binding = trial_engine.bind(rows, ["region_cd"], ["LAWD_CD"], "slice:0:5", random.Random(seed), ["sgg5"])
        assert binding.bound == {"LAWD_CD": "41111"}
    assert trial_engine.bind(rows[:2], ["region_cd"], ["LAWD_CD"], "slice:0:5", random.Random(1), ["sgg5"]) == (
        trial_engine.NO_VALID_VALUE
    )
    link = Link(("region_cd",), ("LAWD_CD",), "slice:0:5", invalid=(domains.domain("sgg5").invalid,))
    assert not link.accepts(["41110"]) and not link.accepts(["41000"]) and link.accepts(["41111"])

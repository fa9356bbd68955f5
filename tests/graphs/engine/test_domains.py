"""Value domains: inference from names and providers, which domains join, echoes, the consistency check and
the two controls (graphs/engine/domains.py, graphs/engine/trials.py)."""

import random

import pytest

from graphs.engine import domains
from graphs.engine import trials as trial_engine
from graphs.engine.posterior import STRUCTURAL, SUCCESS

AIRKOREA = "apis.data.go.kr/B552584"
SEOUL_BUS = "ws.bus.go.kr"
TOUR = "apis.data.go.kr/B551011"


@pytest.mark.parametrize(
    ("name", "provider", "side", "tool", "domain"),
    [
        ("LAWD_CD", "apis.data.go.kr/1613000", "param", "get_rtms_data_svc_apt_trade", "sgg5"),
        ("sgg_cd", "apis.data.go.kr/1741000", "field", "get_stan_regin_cd_list", "ldong.sgg3"),
        ("sgguCd", "apis.data.go.kr/B551182", "param", "get_hosp_basis_list", "hira.sggu"),
        ("areaCode", TOUR, "param", "area_based_list2", "tour.area"),
        ("sigunguCode", TOUR, "param", "area_based_list2", "tour.sigungu"),
        # Misleading names: Seoul bus's tmX is a WGS84 longitude, AirKorea's tm a distance.
        ("tmX", SEOUL_BUS, "field", "get_station_by_name", "wgs84.lon"),
        ("tmX", AIRKOREA, "param", "get_nearby_msrstn_list", "tm.x"),
        ("tm", AIRKOREA, "field", "get_nearby_msrstn_list", "measure"),
        ("regId", "apis.data.go.kr/1360000", "param", "get_mid_ta", "kma.reg_ta"),
        ("regId", "apis.data.go.kr/1360000", "param", "get_mid_land_fcst", "kma.reg_land"),
        ("businesses[].start_dt", "api.odcloud.kr", "param", "validate", "date.ymd"),
        (
            "cond[HOUSE_MANAGE_NO::EQ]",
            "api.odcloud.kr",
            "param",
            "get_apt_lttot_pblanc_mdl",
            "applyhome.house_manage_no",
        ),
        ("taMax4", "apis.data.go.kr/1360000", "field", "get_mid_ta", "measure"),
        ("pageNo", "apis.data.go.kr/1613000", "param", "get_br_title_info", "option"),
        ("mysteryField", "example.org", "field", "x", domains.UNKNOWN),
    ],
)
def test_inference_reads_names_in_the_light_of_the_provider(name, provider, side, tool, domain):
    assert domains.infer(name, provider=provider, side=side, tool=tool) == domain


def test_domains_join_only_when_a_value_of_one_is_a_value_of_the_other():
    assert domains.match("sgg5", "sgg5").transforms == ("identity",)
    assert domains.match("bjd10", "sgg5").transforms == ("slice:0:5",)
    assert domains.match("bjd10", "umd5").transforms == ("slice:5:10",)
    # The planted classes of the audit: never proposed, and the reason says why.
    for source, target in [("sgg5", "tour.area"), ("hira.sggu", "sgg5"), ("tour.sigungu", "tour.area")]:
        assert domains.match(source, target) is None
        assert "is not a" in domains.mismatch_reason(source, target)
    # Dates, measurements and coordinates one by one never join.
    assert domains.match("date.ymd", "date.ymd") is None and "identifies nothing" in domains.mismatch_reason(
        "date.ymd", "date.ymd"
    )
    assert domains.match("measure", "lot.ji4") is None
    assert domains.match("tm.x", "wgs84.lat") is None and "pairs" in domains.mismatch_reason("tm.x", "wgs84.lat")
    # Unknown is honest: a penalty, not a pass, and no pass into a context value.
    assert domains.match(domains.UNKNOWN, "sgg5").factor == domains.UNKNOWN_PENALTY
    assert domains.match(domains.UNKNOWN, domains.UNKNOWN).factor == domains.BOTH_UNKNOWN_PENALTY
    assert domains.match(domains.UNKNOWN, "date.ymd") is None


def test_every_domain_in_the_tables_is_defined():
    named = {rule.domain for rule in domains.RULES} | set(domains.TOOL_RULES.values())
    named |= {domain for entries in domains.REQUEST_DOMAINS.values() for _, _, domain in entries}
    named |= {d for pair in domains.LINKS for d in pair} | {
        d.confusable for d in domains.DOMAINS.values() if d.confusable
    }
    assert named <= set(domains.DOMAINS)


def test_a_field_whose_kind_depends_on_the_request():
    assert domains.request_domain("code", "tour.area", provider=TOUR, request={"areaCode": "1"}) == "tour.sigungu"
    assert domains.request_domain("code", "tour.area", provider=TOUR, request={"numOfRows": "10"}) == "tour.area"
    # AirKorea's dmX is a latitude or a longitude depending on ver: it is bound into nothing.
    assert domains.infer("dmX", provider=AIRKOREA, side="field", tool="get_msrstn_list") == "airkorea.dm"
    assert not domains.chainable("airkorea.dm")


def test_an_echo_is_the_input_or_a_known_projection_of_it():
    assert trial_engine.is_echo({"sggCd": "11680"}, {"LAWD_CD": "11680", "DEAL_YMD": "202610"})
    assert trial_engine.is_echo({"admCd": "1111010100"}, {"admCd": "1111010100", "rnMgtSn": "111103100012"})
    assert trial_engine.is_echo({"b_no": "2208162517"}, {"businesses": [{"b_no": "2208162517", "p_nm": "홍길동"}]})
    assert trial_engine.is_echo({"x": "11110"}, {"region": "1111010100"})  # a 5-digit slice of a 10-digit input
    assert not trial_engine.is_echo({"region_cd": "1111010100"}, {"locatadd_nm": "서울특별시 종로구"})
    assert not trial_engine.is_echo({"nodeid": "DJB8001793"}, {})


def test_a_bound_value_that_the_transform_gives_from_an_input_is_an_echo():
    # select_stdg listed the 동 of 종로구 (stdgCd=1111000000): their first 2 or 5 digits are what it was asked.
    request = {"stdgCd": "1111000000", "lv": "3", "srchFrYm": "202609"}
    dong = {"stdgCd": "1111010900"}
    assert trial_engine.is_echo(dong, request, "slice:0:2", {"lDongRegnCd": "11"})
    assert trial_engine.is_echo(dong, request, "slice:2:5", {"lDongSignguCd": "110"})
    assert trial_engine.is_echo(dong, request, "slice:0:5", {"LAWD_CD": "11110"})
    # ...but the 동 part is new: listing a 시군구's 동 and handing one on is a real hop.
    assert not trial_engine.is_echo(dong, request, "slice:5:10", {"bjdongCd": "10900"})
    # A page number is no input a record could echo: 부번 1 after pageNo=1 is a finding.
    assert not trial_engine.is_echo(
        {"lnbrSlno": "1"}, {"keyword": "종로", "currentPage": "1"}, "zero_pad:4", {"ji": "0001"}
    )


def test_consistency_needs_agreement_on_a_shared_domain_or_an_echo_of_the_bound_value():
    source = {"areacode": "1", "contentid": "195400"}
    source_domains = {"areacode": "tour.area", "contentid": "tour.content_id"}
    target_domains = {"contentid": "tour.content_id", "areacode": "tour.area"}
    bound_domains = {"contentId": "tour.content_id"}
    echo = trial_engine.consistency(
        {"contentId": "195400"}, bound_domains, source, source_domains, [{"contentid": "195400"}], target_domains
    )
    assert echo.verdict == trial_engine.CONSISTENT and "echoes" in echo.detail
    agree = trial_engine.consistency(
        {"contentId": "9"}, bound_domains, source, source_domains, [{"areacode": "1"}], target_domains
    )
    assert agree.verdict == trial_engine.CONSISTENT and "tour.area" in agree.detail
    wrong = trial_engine.consistency(
        {"contentId": "9"}, bound_domains, source, source_domains, [{"areacode": "7"}], target_domains
    )
    assert wrong.verdict == trial_engine.INCONSISTENT_CHECK and "tour.area 1 vs 7" in wrong.detail
    unknown = trial_engine.consistency(
        {"contentId": "9"}, bound_domains, source, source_domains, [{"x": "1"}], target_domains
    )
    assert unknown.verdict == trial_engine.UNCHECKED
    # A 10-digit 법정동 code on one side agrees with its 시군구 prefix on the other.
    sliced = trial_engine.consistency(
        {"LAWD_CD": "11110"},
        {},
        {"region_cd": "1111010100"},
        {"region_cd": "bjd10"},
        [{"sggCd": "11110"}],
        {"sggCd": "sgg5"},
    )
    assert sliced.verdict == trial_engine.CONSISTENT
    # One page of a longer answer that lacks A's value is no disagreement: 종로구 (23) is on a later page.
    page = trial_engine.consistency(
        {"areaCode": "1"},
        {"areaCode": "tour.area"},
        {"sigungucode": "23"},
        {"sigungucode": "tour.sigungu"},
        [{"code": str(n)} for n in range(1, 11)],
        {"code": "tour.sigungu"},
        complete=False,
    )
    assert page.verdict == trial_engine.UNCHECKED and "one page" in page.detail


def test_the_controls_bind_valid_values_of_the_same_and_of_the_most_confusable_domain():
    rng = random.Random(1)
    records = [{"region_cd": "1111010100"}, {"region_cd": "1168010100"}]
    value, origin = trial_engine.specificity_value(
        records, ["region_cd"], "slice:0:5", {"LAWD_CD": "11110"}, ["sgg5"], rng
    )
    assert value == ["11680"] and "A's records" in origin
    value, origin = trial_engine.specificity_value(
        records[:1], ["region_cd"], "slice:0:5", {"LAWD_CD": "11110"}, ["sgg5"], rng
    )
    assert value[0] in domains.DOMAINS["sgg5"].samples and value[0] != "11110"
    # A point's control is the point farthest off among A's records, whatever the dice: a hospital in the same
    # building answers "which stations are near" as the bound one does, which says nothing about the binding.
    points = [
        {"x": "235075.88", "y": "324819.83"},
        {"x": "235080.75", "y": "324821.34"},
        {"x": "170755.89", "y": "131405.97"},
    ]
    for seed in range(5):
        value, origin = trial_engine.specificity_value(
            points, ["x", "y"], "pair", {"tmX": "235075.88", "tmY": "324819.83"}, ["tm.x", "tm.y"], random.Random(seed)
        )
        assert value == ["170755.89", "131405.97"] and "farthest" in origin
    confusion, origin = trial_engine.confusion_value(["tour.area"], rng)
    assert confusion[0] in domains.DOMAINS["sgg5"].samples and "sgg5" in origin
    assert trial_engine.confusion_value(["tm.x", "tm.y"], rng) is None  # coordinates: pairs and frames guard them
    # A confusion control holds when B fails, finds nothing, says no, or answers about something else.
    assert trial_engine.confusion_outcome(True, None, [], None) == (SUCCESS, "")
    assert trial_engine.confusion_outcome(True, None, [{"valid": "02"}], None) == (SUCCESS, "")
    inconsistent = trial_engine.Check(trial_engine.INCONSISTENT_CHECK, "")
    assert trial_engine.confusion_outcome(True, None, [{"a": 1}], inconsistent) == (SUCCESS, "")
    assert trial_engine.confusion_outcome(True, None, [{"a": 1}], trial_engine.Check(trial_engine.UNCHECKED, "")) == (
        STRUCTURAL,
        trial_engine.CONFUSION_ACCEPTED,
    )


def test_a_record_that_says_no_is_a_failed_trial():
    assert trial_engine.target_outcome(True, None, [{"b_no": "1", "valid": "02"}]) == (
        STRUCTURAL,
        trial_engine.NEGATIVE_ANSWER,
    )
    assert trial_engine.target_outcome(True, None, [{"b_no": "1", "valid": "01"}]) == (SUCCESS, "")
    assert (
        trial_engine.target_outcome(True, None, [{"tax_type": "국세청에 등록되지 않은 사업자등록번호입니다."}])[0]
        == STRUCTURAL
    )


def test_a_flag_needs_the_key_it_qualifies_from_the_same_record():
    # 건축물대장's naUgrndCd=0 into Juso's udrtYn, the road code and building number from examples: nothing of A's.
    assert domains.missing_companions(["juso.udrt"], []) == ["juso.rn_mgt_sn"]
    assert domains.missing_companions(["juso.udrt"], ["juso.rn_mgt_sn", "juso.buld_mnnm"]) == []
    assert domains.missing_companions(["lot.ji4"], ["sgg5", "umd5"]) == ["lot.bun4"]
    assert domains.missing_companions(["bjd10"], []) == []
    # A TourAPI 시군구 code names a 시군구 only within its area; a 법정동 시군구 3자리 only within its 시도.
    assert domains.missing_companions(["tour.sigungu"], []) == ["tour.area"]
    assert domains.missing_companions(["ldong.sgg3"], ["ldong.sido2"]) == []
    # 중구 without its 시도 is six districts: the pharmacy list's Q1 needs Q0 from the same record.
    assert domains.missing_companions(["sigungu.name"], [], target_domains=["sido.full", "sigungu.name"]) == [
        "sido.full"
    ]
    # 신사동 is in 강남구 and in 관악구: HIRA's emdongNm needs its sgguCd, which no Juso record gives.
    assert domains.missing_companions(["emd.name"], [], target_domains=["hira.sido", "hira.sggu", "emd.name"]) == [
        "hira.sggu"
    ]
    # Only companions the target can take are asked for.
    assert domains.missing_companions(["umd5"], [], target_domains=["umd5", "lot.bun4"]) == []


def test_a_request_dependent_field_names_the_parameter_it_must_be_called_without():
    assert domains.request_condition("code", provider=TOUR) == {"areaCode": []}
    assert domains.request_condition("code", provider=TOUR, target="tour.area") == {"areaCode": []}
    assert domains.request_condition("contentid", provider=TOUR) == {}
    # select_stdg with lv=1 or 2 lists 시도 or 시군구 rows: their stdgCd gives a 시군구 slice, but no 동.
    mois = "apis.data.go.kr/1741000"
    assert domains.request_condition("stdgCd", provider=mois, target="umd5") == {"lv": ["1", "2"]}
    assert domains.request_condition("stdgCd", provider=mois, target="sgg5") == {}
    assert domains.request_domain("stdgCd", "bjd10", provider=mois, request={"lv": "2"}) == "bjd10.upper"
    assert domains.request_domain("stdgCd", "bjd10", provider=mois, request={"lv": "3"}) == "bjd10"


def test_values_of_the_right_shape_that_name_nothing_are_invalid():
    assert not domains.valid_value("umd5", "00000") and domains.valid_value("umd5", "10300")
    assert not domains.valid_value("sgg5", "11000") and domains.valid_value("sgg5", "11110")
    assert not domains.valid_value("ldong.sgg3", "000") and domains.valid_value("ldong.sgg3", "110")
    assert domains.valid_value("bjd10", "1100000000")  # a 시도's own 법정동 code is a real one


def test_tour_categories_need_their_parents_and_a_binding_states_its_conditions():
    # TourAPI filters cat2 only within its cat1 and cat3 within cat1 and cat2.
    assert domains.missing_companions(["tour.cat2"], [], ["tour.cat1", "tour.cat2"]) == ["tour.cat1"]
    assert domains.missing_companions(["tour.cat3"], ["tour.cat1"], ["tour.cat1", "tour.cat2"]) == ["tour.cat2"]
    params = {"cat1": "tour.cat1", "cat2": "tour.cat2", "areaCode": "tour.area"}
    assert domains.binding_conditions(["tour.cat3"], params) == {"companions": ["cat1", "cat2"], "invalid": [""]}
    conditions = domains.binding_conditions(["umd5"], {"sigunguCd": "sgg5"})
    assert conditions == {"companions": ["sigunguCd"], "invalid": ["0{5}"]}

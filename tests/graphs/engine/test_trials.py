"""The plain steps of a trial: inputs, binding values from records, target parameters, controls, outcomes."""

import pytest

from graphs.engine import trials as trial_engine
from graphs.engine.posterior import ENVIRONMENTAL, SKIPPED, STRUCTURAL, SUCCESS
from graphs.engine.sampling import rng_for

SCHEMA = {
    "properties": {
        "pageNo": {"example": "1"},
        "LAWD_CD": {"example": "11680"},
        "DEAL_YMD": {"example": "202610"},
        "sort": {"enum": ["A", "B", "C"]},
    },
    "required": ["LAWD_CD", "DEAL_YMD", "sort"],
}


def test_source_inputs_come_from_examples_then_recorded_calls_then_enum_variants():
    pool = trial_engine.source_inputs(SCHEMA, recorded=[{"LAWD_CD": "11110", "DEAL_YMD": "202609", "sort": "A"}])
    assert pool[0] == {"pageNo": "1", "LAWD_CD": "11680", "DEAL_YMD": "202610", "sort": "A"}
    assert pool[1] == {"LAWD_CD": "11680", "DEAL_YMD": "202610", "sort": "A"}
    assert pool[2]["LAWD_CD"] == "11110"
    assert {p["sort"] for p in pool[3:]} == {"B", "C"}


def test_a_required_parameter_without_example_has_no_example_input():
    assert trial_engine.example_params({"properties": {"ykiho": {}}, "required": ["ykiho"]}, required_only=True) is None
    assert trial_engine.source_inputs({"properties": {"ykiho": {}}, "required": ["ykiho"]}) == []


def test_binding_reads_a_record_applies_the_transform_and_reports_missing_fields():
    records = [{"region_cd": "1111000000", "name": "종로구"}, {"region_cd": "1168000000"}]
    binding = trial_engine.bind(records, ["region_cd"], ["LAWD_CD"], "slice:0:5", rng_for("t", 1))
    assert binding.bound["LAWD_CD"] == binding.source_values["region_cd"][:5]
    assert trial_engine.bind(records, ["nope"], ["LAWD_CD"], "identity", rng_for("t", 1)) == trial_engine.MISSING_FIELD
    assert (
        trial_engine.bind([{"region_cd": "11"}], ["region_cd"], ["LAWD_CD"], "slice:0:5", rng_for("t"))
        == trial_engine.TRANSFORM_FAILED
    )
    pair = trial_engine.bind(
        [{"x": "126.978", "y": "37.5665"}], ["x", "y"], ["nx", "ny"], "project:wgs84:kma", rng_for("t")
    )
    assert pair.bound == {"nx": "60", "ny": "127"}


def test_the_same_seed_picks_the_same_record():
    records = [{"v": str(i)} for i in range(20)]
    first = trial_engine.bind(records, ["v"], ["p"], "identity", rng_for("run", 7, 3))
    again = trial_engine.bind(records, ["v"], ["p"], "identity", rng_for("run", 7, 3))
    assert first == again


def test_target_parameters_prefer_bound_values_then_siblings_then_examples():
    params = trial_engine.target_params(SCHEMA, {"LAWD_CD": "11110"}, {"DEAL_YMD": "202609"})
    assert params == {"LAWD_CD": "11110", "DEAL_YMD": "202609", "sort": "A"}
    assert (
        trial_engine.target_params({"properties": {"x": {}}, "required": ["x"]}, {}, {})
        == trial_engine.MISSING_REQUIRED
    )


@pytest.mark.parametrize("value", ["11110", "0012", "DJB8001793", "종로구", "37.5665", "60"])
def test_a_control_value_keeps_the_shape_and_changes_the_value(value):
    from graphs.engine.shapes import kinds_of

    changed = trial_engine.perturb(value, rng_for("control", value))
    assert changed != value and len(changed) >= len(value) - 1
    assert kinds_of(changed) & kinds_of(value) or value == "종로구"


def test_outcome_classes():
    assert trial_engine.source_outcome(True, None, [{"a": 1}]) is None
    assert trial_engine.source_outcome(False, "env.timeout", []) == (ENVIRONMENTAL, "source:env.timeout")
    assert trial_engine.source_outcome(True, None, []) == (SKIPPED, trial_engine.SOURCE_NO_RECORDS)
    assert trial_engine.target_outcome(True, None, [{"a": 1}]) == (SUCCESS, "")
    assert trial_engine.target_outcome(False, "struct.no_data", []) == (STRUCTURAL, "struct.no_data")
    assert trial_engine.target_outcome(False, "env.http_5xx", []) == (ENVIRONMENTAL, "env.http_5xx")
    assert trial_engine.target_outcome(False, "internal.error", []) == (SKIPPED, "internal.error")
    same = [{"a": 1}]
    assert trial_engine.control_outcome(trial_engine.fingerprint(same), True, None, same) == (
        STRUCTURAL,
        trial_engine.UNINFORMATIVE,
    )
    assert trial_engine.control_outcome(trial_engine.fingerprint(same), True, None, [{"a": 2}]) == (SUCCESS, "")
    assert trial_engine.control_outcome(trial_engine.fingerprint(same), False, "struct.no_data", []) == (SUCCESS, "")


NTS_STATUS = {
    "properties": {"b_no": {"type": "array", "example": ["2208162517"], "items": {"type": "string"}}},
    "required": ["b_no"],
}


def test_an_array_example_stays_an_array_and_a_bound_value_becomes_a_one_item_array():
    # NTS's status takes {"b_no": ["2208162517"]}; the printed form "['2208162517']" is a malformed request.
    assert trial_engine.example_params(NTS_STATUS, required_only=True) == {"b_no": ["2208162517"]}
    assert trial_engine.source_inputs(NTS_STATUS) == [{"b_no": ["2208162517"]}]
    assert trial_engine.target_params(NTS_STATUS, {"b_no": "1048175237"}, {}) == {"b_no": ["1048175237"]}


def test_a_control_value_of_an_enum_parameter_is_another_allowed_value():
    # Juso's udrtYn takes 0 or 1: a control of "0" must ask for "1", not the invalid "5" the server rejects.
    assert {trial_engine.perturb("0", rng_for("c", i), ("0", "1")) for i in range(10)} == {"1"}
    assert trial_engine.perturb(["0", "1"], rng_for("c"), ("0", "1")) == ["1", "0"]
    assert trial_engine.perturb("0", rng_for("c"), ("0",)) != "0"  # no other allowed value: the shape rule


NTS_VALIDATE = {
    "properties": {
        "businesses": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "b_no": {"type": "string", "example": "2208162517"},
                    "start_dt": {"type": "string", "example": "20200131"},
                    "p_nm": {"type": "string", "example": "홍길동"},
                    "b_nm": {"type": "string"},
                },
                "required": ["b_no", "start_dt", "p_nm"],
            },
        }
    },
    "required": ["businesses"],
}


def test_the_fields_of_an_array_of_objects_are_parameters_and_a_binding_fills_one_item():
    infos = {info.name: info for info in trial_engine.param_infos(NTS_VALIDATE)}
    assert set(infos) == {"businesses[].b_no", "businesses[].start_dt", "businesses[].p_nm", "businesses[].b_nm"}
    assert infos["businesses[].b_no"].required and not infos["businesses[].b_nm"].required
    assert trial_engine.required_names(NTS_VALIDATE) == {
        "businesses[].b_no",
        "businesses[].start_dt",
        "businesses[].p_nm",
    }
    # status.b_no -> validate: the bound number with the other required fields from their examples.
    params = trial_engine.target_params(NTS_VALIDATE, {"businesses[].b_no": "1048175237"}, {})
    assert params == {"businesses": [{"b_no": "1048175237", "start_dt": "20200131", "p_nm": "홍길동"}]}
    # As a source, validate is tried with one item made of the examples.
    assert trial_engine.example_params(NTS_VALIDATE, required_only=True) == {
        "businesses": [{"b_no": "2208162517", "start_dt": "20200131", "p_nm": "홍길동"}]
    }
    no_example = {"properties": {"rows": {"type": "array", "items": {"type": "object", "properties": {"id": {}},
                  "required": ["id"]}}}, "required": ["rows"]}  # fmt: skip
    assert trial_engine.target_params(no_example, {}, {}) == trial_engine.MISSING_REQUIRED


def test_coordinates_bound_into_hira_carry_the_radius_the_live_api_needs_for_them():
    schema = {
        "type": "object",
        "properties": {
            "xPos": {"type": "number"},
            "yPos": {"type": "number"},
            "radius": {"type": "integer", "example": "3000"},
        },
    }
    bound = {"xPos": "127.03", "yPos": "37.49"}
    hira = "apis.data.go.kr/B551182"
    assert trial_engine.target_params(schema, bound, {}, provider=hira) == {**bound, "radius": "3000"}
    assert trial_engine.target_params(schema, bound, {}, provider="apis.data.go.kr/B552657") == bound
    assert trial_engine.target_params(schema, {"radius": "500"}, {}, provider=hira) == {"radius": "500"}


def test_companion_siblings_are_sent_even_when_optional():
    schema = {
        "type": "object",
        "properties": {"lDongRegnCd": {"type": "string"}, "lDongSignguCd": {"type": "string"}},
    }
    bound, siblings = {"lDongSignguCd": "110"}, {"lDongRegnCd": "11"}
    assert trial_engine.target_params(schema, bound, siblings) == bound  # an optional sibling alone is not sent
    assert trial_engine.target_params(schema, bound, siblings, send=["lDongRegnCd"]) == {**bound, **siblings}


def test_a_binding_skips_rows_whose_value_names_nothing_of_the_target_kind():
    # select_stdg with lv=2 lists 시군구 rows: their 동 part 00000 is no bjdongCd; a 시도 row's 11000 no LAWD_CD.
    rows = [{"stdgCd": "1111000000"}, {"stdgCd": "1100000000"}]
    assert (
        trial_engine.bind(rows, ["stdgCd"], ["bjdongCd"], "slice:5:10", rng_for("t", 1), ["umd5"])
        == trial_engine.NO_VALID_VALUE
    )
    bound = trial_engine.bind(rows, ["stdgCd"], ["LAWD_CD"], "slice:0:5", rng_for("t", 2), ["sgg5"])
    assert bound.bound == {"LAWD_CD": "11110"}
    dong = trial_engine.bind(
        [*rows, {"stdgCd": "1111010300"}], ["stdgCd"], ["bjdongCd"], "slice:5:10", rng_for("t", 3), ["umd5"]
    )
    assert dong.bound == {"bjdongCd": "10300"}


def test_a_listing_input_lets_the_tool_list_instead_of_echoing_its_input():
    stdg = {"required": ["stdgCd", "srchFrYm", "lv"], "properties": {}}
    domains = {"stdgCd": "bjd10", "srchFrYm": "date.ym", "lv": "option"}
    dong = {"stdgCd": "1111010300", "srchFrYm": "202609", "lv": "3"}
    # A 동 slice is read from the 읍면동 of the 시군구 above; a 시군구 slice from the 시군구 of the 시도 above.
    assert trial_engine.listing_input(dong, stdg, domains, "slice:5:10") == {**dong, "stdgCd": "1111000000"}
    assert trial_engine.listing_input(dong, stdg, domains, "slice:0:5") == {**dong, "stdgCd": "1100000000", "lv": "2"}
    assert trial_engine.listing_input(dong, stdg, domains, "slice:2:5")["lv"] == "2"
    assert trial_engine.listing_input({**dong, "stdgCd": "1111000000"}, stdg, domains, "slice:5:10") is None
    # A 10-digit code is raised only where the request names the level to list (Juso's admCd looks one up).
    assert (
        trial_engine.listing_input({"admCd": "1111010300"}, {"required": ["admCd"]}, {"admCd": "bjd10"}, "identity")
        is None
    )
    # KOSIS lists every item with ALL; an optional 청약 filter is dropped; paging and unknowns stay.
    kosis = {"orgId": "101", "tblId": "DT_1B040A3", "itmId": "T20", "objL1": "11"}
    kosis_domains = {"orgId": "kosis.org", "tblId": "kosis.tbl", "itmId": "kosis.itm", "objL1": "kosis.obj_value"}
    required = {"required": list(kosis)}
    assert trial_engine.listing_input(kosis, required, kosis_domains, "identity") == {
        **kosis,
        "itmId": "ALL",
        "objL1": "ALL",
    }
    mdl = {"cond[HOUSE_MANAGE_NO::EQ]": "2026011013", "perPage": "10", "x": "1"}
    mdl_domains = {"cond[HOUSE_MANAGE_NO::EQ]": "applyhome.house_manage_no"}
    assert trial_engine.listing_input(mdl, {}, mdl_domains, "identity") == {"perPage": "10", "x": "1"}

"""Name normalization, tokens and the alias table of Korean public-API codes."""

import pytest

from graphs.engine import names


@pytest.mark.parametrize(
    ("a", "b"), [("LAWD_CD", "lawdCd"), ("nodeid", "nodeId"), ("ORG_ID", "orgId"), ("b_no", "bNo")]
)
def test_it_folds_case_and_separators(a, b):
    assert names.normalize(a) == names.normalize(b)


def test_it_splits_camel_and_snake_case_and_folds_abbreviations():
    assert names.tokens("LAWD_CD") == ("lawd", "code")
    assert names.tokens("gpsLati") == ("gps", "lat")
    assert names.tokens("stationNm1") == ("station", "name", "1")


@pytest.mark.parametrize(
    ("source", "target", "transforms"),
    [
        ("region_cd", "LAWD_CD", ("slice:0:5",)),
        ("admCd", "sigunguCd", ("slice:0:5",)),
        ("region_cd", "bjdongCd", ("slice:5:10",)),
        ("region_cd", "stdgCd", ("identity",)),
        ("sggCd", "LAWD_CD", ("identity",)),
        ("lnbrMnnm", "bun", ("identity", "zero_pad:4")),
        ("nodeid", "nodeId", ("identity",)),
    ],
)
def test_it_knows_the_code_aliases_of_research_section_3(source, target, transforms):
    assert names.concept_transforms(source, target) == transforms


def test_unrelated_concepts_have_no_link():
    assert names.concept_transforms("LAWD_CD", "region_cd") == ()
    assert names.concept_transforms("ykiho", "nodeId") == ()


def test_name_similarity_ranks_same_name_alias_tokens_and_generic_words():
    assert names.name_similarity("nodeid", "nodeId") == 1.0
    assert names.name_similarity("region_cd", "LAWD_CD") == 0.95
    assert 0.3 < names.name_similarity("stationNm1", "stationName") < 0.8
    # Sharing only a generic word such as "code" is next to nothing.
    assert names.name_similarity("sidoCd", "clCd") < 0.1


def test_odcloud_filter_parameters_are_named_after_the_field_they_filter():
    assert names.normalize("cond[HOUSE_MANAGE_NO::EQ]") == names.normalize("HOUSE_MANAGE_NO")
    assert names.name_similarity("PBLANC_NO", "cond[PBLANC_NO::EQ]") == 1.0


def test_paging_and_format_parameters_are_never_targets():
    assert names.is_control_param("pageNo") and names.is_control_param("numOfRows")
    assert names.is_control_param("MobileOS") and not names.is_control_param("LAWD_CD")


def test_a_target_is_filed_under_the_concepts_that_feed_it():
    assert "c:bjd10" in names.target_keys("LAWD_CD")
    assert "c:bjd10" in names.blocking_keys("region_cd")
    assert "p:name|station" in names.blocking_keys("stationNm1") & names.blocking_keys("stationName")
    # In a longer name, a word paired with a generic one ("code") is too common to block on.
    assert {k for k in names.blocking_keys("sido_sggu_cd") if k.startswith("p:")} == {"p:sggu|sido"}

"""Value shapes: kinds of single values, profiles of samples, compatibility and overlap."""

from graphs.engine import shapes


def test_kinds_of_typical_korean_api_values():
    assert {"digits", "int"} <= shapes.kinds_of("11680")
    assert "int" not in shapes.kinds_of("0012") and "digits" in shapes.kinds_of("0012")
    assert "date_ymd" in shapes.kinds_of("20261118")
    assert "date_ym" in shapes.kinds_of("202611")
    assert "time_hm" in shapes.kinds_of("1400") and "time_hm" not in shapes.kinds_of("1490")
    assert shapes.kinds_of("DJB8001793") == {"prefixed_code"}
    assert shapes.kinds_of("37.5665") == {"decimal"}
    assert shapes.kinds_of("종로구") == {"hangul"}
    assert shapes.kinds_of("") == {"empty"}


def test_a_profile_keeps_the_kinds_every_sample_shares():
    shape = shapes.profile(["11110", "11680", "", None])
    assert shape.samples == 2 and shape.lengths == {5} and {"digits", "int"} <= shape.kinds
    assert shape.signature().endswith("len=5")
    assert shapes.profile([]) is shapes.UNKNOWN


def test_compatible_shapes_score_high_and_mismatches_low():
    lawd = shapes.profile(["11680"])
    assert shapes.compatibility(shapes.profile(["11110"]), lawd) >= 0.7
    assert shapes.compatibility(shapes.profile(["1111010100"]), lawd) <= 0.1  # a 10-digit code is no LAWD_CD
    assert shapes.compatibility(shapes.profile(["종로구"]), lawd) == 0.0
    node = shapes.profile(["DJB8001793"])
    assert shapes.compatibility(shapes.profile(["DJB8002001"]), node) == 1.0
    assert shapes.compatibility(shapes.profile(["GGB1234567"]), node) < 0.8


def test_disjoint_coordinate_ranges_are_penalised():
    latitudes = shapes.profile(["37.5665", "36.35"])
    longitudes = shapes.profile(["126.978", "127.38"])
    assert shapes.compatibility(latitudes, shapes.profile(["37.1", "35.2"])) > shapes.compatibility(
        latitudes, longitudes
    )


def test_unknown_shapes_are_neutral():
    assert shapes.compatibility(shapes.UNKNOWN, shapes.profile(["1"])) == 0.5


def test_overlap_is_the_shared_share_of_the_smaller_set():
    assert shapes.overlap(["1", "2", "3"], ["2", "3"]) == 1.0
    assert shapes.overlap(["1", "2"], ["2", "9"]) == 0.5
    assert shapes.overlap([], ["1"]) == 0.0

"""The transform registry: specs, one-value transforms, coordinate projections and bad input."""

import pytest

from graphs.engine import transforms


@pytest.mark.parametrize(
    ("spec", "values", "expected"),
    [
        ("identity", ["1111010100"], ("1111010100",)),
        ("slice:0:5", ["1111010100"], ("11110",)),
        ("slice:5:10", ["1168010300"], ("10300",)),
        ("zero_pad:4", ["12"], ("0012",)),
        ("upper", ["djb8001793"], ("DJB8001793",)),
        ("lower", ["Y"], ("y",)),
        ("strip", ["  245,000"], ("245,000",)),
        ("ymd_to_ym", ["20261118"], ("202611",)),
    ],
)
def test_one_value_transforms(spec, values, expected):
    assert transforms.apply(spec, values) == expected


def test_utmk_to_kma_grid_lands_seoul_city_hall_on_60_127():
    from apis.engine import geo

    x, y = geo.wgs84_to_utmk(37.5665, 126.9780)
    assert transforms.apply("project:utmk:kma", [str(x), str(y)]) == ("60", "127")


def test_wgs84_to_kma_grid_and_to_tm_and_back():
    assert transforms.apply("project:wgs84:kma", ["126.9780", "37.5665"]) == ("60", "127")
    tm_x, tm_y = transforms.apply("project:wgs84:tm", ["126.9780", "37.5665"])
    assert 195_000 < float(tm_x) < 200_000 and 450_000 < float(tm_y) < 455_000
    lon, lat = transforms.apply("project:tm:wgs84", [tm_x, tm_y])
    assert abs(float(lon) - 126.978) < 1e-5 and abs(float(lat) - 37.5665) < 1e-5


def test_kma_grid_to_wgs84_gives_the_cell_centre():
    lon, lat = transforms.apply("project:kma:wgs84", ["60", "127"])
    assert transforms.apply("project:wgs84:kma", [lon, lat]) == ("60", "127")


@pytest.mark.parametrize(
    ("spec", "values", "message"),
    [
        ("slice:0:5", ["111"], "shorter than 5"),
        ("zero_pad:4", ["12a"], "not digits"),
        ("zero_pad:4", ["12345"], "longer than 4"),
        ("ymd_to_ym", ["20261331"], "not a YYYYMMDD"),
        ("project:utmk:kma", ["126.97", "37.56"], "outside Korea"),
        ("project:wgs84:kma", ["x", "37.5"], "not a number"),
        ("identity", ["a", "b"], "takes 1 value"),
    ],
)
def test_values_a_transform_cannot_take_raise_a_clear_error(spec, values, message):
    with pytest.raises(transforms.TransformError, match=message):
        transforms.apply(spec, values)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "malformed"),
        ("reverse", "unknown transform"),
        ("slice:0", "needs 2 argument"),
        ("slice:a:b", "whole numbers"),
        ("project:utmk:mars", "frames must be"),
        ("zero pad", "malformed"),
    ],
)
def test_bad_specs_are_refused(spec, message):
    with pytest.raises(transforms.TransformError, match=message):
        transforms.parse(spec)


def test_every_registered_transform_is_described():
    for name, transform in transforms.TRANSFORMS.items():
        assert transform.description, name
    assert transforms.describe("slice:0:5").endswith("(0, 5)")
    assert transforms.arity("project:utmk:kma") == 2

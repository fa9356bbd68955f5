import pytest

from apis.engine import geo


def test_it_maps_seoul_city_hall_to_kma_grid_60_127():
    assert geo.wgs84_to_kma_grid(37.5665, 126.9780) == (60, 127)


@pytest.mark.parametrize(
    ("lat", "lon", "grid"),
    [
        (35.1796, 129.0756, (98, 76)),  # 부산시청
        (33.4996, 126.5312, (53, 38)),  # 제주시
        (37.4563, 126.7052, (55, 124)),  # 인천시청
    ],
)
def test_it_matches_kma_published_grid_points(lat, lon, grid):
    assert geo.wgs84_to_kma_grid(lat, lon) == grid


def test_grid_inverse_lands_in_the_same_cell():
    lat, lon = geo.kma_grid_to_wgs84(60, 127)
    assert geo.wgs84_to_kma_grid(lat, lon) == (60, 127)


def test_utmk_round_trip_and_known_scale():
    x, y = geo.wgs84_to_utmk(37.5665, 126.9780)
    assert 953000 < x < 955000 and 1951000 < y < 1953000
    lat, lon = geo.utmk_to_wgs84(x, y)
    assert lat == pytest.approx(37.5665, abs=1e-7) and lon == pytest.approx(126.9780, abs=1e-7)


def test_tm_round_trip():
    x, y = geo.wgs84_to_tm(37.5665, 126.9780)
    assert 197000 < x < 199000 and 451000 < y < 453000
    lat, lon = geo.tm_to_wgs84(x, y)
    assert lat == pytest.approx(37.5665, abs=1e-7) and lon == pytest.approx(126.9780, abs=1e-7)

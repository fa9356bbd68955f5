"""Coordinate systems that Korean public APIs use, and conversions between them.

- WGS84 latitude/longitude (TourAPI mapx/mapy, TAGO gpslati/gpslong, HIRA XPos/YPos, NMC wgs84Lat/Lon).
- UTM-K, EPSG:5179 (Juso 좌표제공 entX/entY).
- Korea 2000 Central Belt TM, EPSG:5181 (AirKorea tmX/tmY; the live projection is unconfirmed,
  see docs/sandbox.md).
- The KMA forecast grid (nx, ny): KMA's Lambert conformal conic "DFS" grid of 5 km cells.
"""

from __future__ import annotations

import math
from functools import cache

from pyproj import Transformer

WGS84 = 4326
UTMK = 5179
KOREA_TM_CENTRAL = 5181


@cache
def _transformer(source: int, target: int) -> Transformer:
    return Transformer.from_crs(source, target, always_xy=True)


def project(x: float, y: float, *, source: int, target: int) -> tuple[float, float]:
    """(x, y) in EPSG:source -> (x, y) in EPSG:target; for WGS84, x is longitude and y latitude."""
    return _transformer(source, target).transform(x, y)


def wgs84_to_utmk(lat: float, lon: float) -> tuple[float, float]:
    return project(lon, lat, source=WGS84, target=UTMK)


def utmk_to_wgs84(x: float, y: float) -> tuple[float, float]:
    lon, lat = project(x, y, source=UTMK, target=WGS84)
    return lat, lon


def wgs84_to_tm(lat: float, lon: float) -> tuple[float, float]:
    return project(lon, lat, source=WGS84, target=KOREA_TM_CENTRAL)


def tm_to_wgs84(x: float, y: float) -> tuple[float, float]:
    lon, lat = project(x, y, source=KOREA_TM_CENTRAL, target=WGS84)
    return lat, lon


# KMA DFS grid: earth radius 6371.00877 km, 5 km cells, standard parallels 30N/60N,
# origin 126E/38N at grid (43, 136).
_RE_KM, _GRID_KM = 6371.00877, 5.0
_SLAT1, _SLAT2, _OLON, _OLAT = 30.0, 60.0, 126.0, 38.0
_XO, _YO = 43, 136


@cache
def _lcc_constants() -> tuple[float, float, float, float]:
    rad = math.pi / 180.0
    re = _RE_KM / _GRID_KM
    slat1, slat2, olat = _SLAT1 * rad, _SLAT2 * rad, _OLAT * rad
    sn = math.tan(math.pi * 0.25 + slat2 * 0.5) / math.tan(math.pi * 0.25 + slat1 * 0.5)
    sn = math.log(math.cos(slat1) / math.cos(slat2)) / math.log(sn)
    sf = math.tan(math.pi * 0.25 + slat1 * 0.5)
    sf = math.pow(sf, sn) * math.cos(slat1) / sn
    ro = math.tan(math.pi * 0.25 + olat * 0.5)
    ro = re * sf / math.pow(ro, sn)
    return re, sn, sf, ro


def wgs84_to_kma_grid(lat: float, lon: float) -> tuple[int, int]:
    """(lat, lon) -> KMA forecast grid (nx, ny); Seoul City Hall (37.5665, 126.9780) -> (60, 127)."""
    rad = math.pi / 180.0
    re, sn, sf, ro = _lcc_constants()
    ra = math.tan(math.pi * 0.25 + lat * rad * 0.5)
    ra = re * sf / math.pow(ra, sn)
    theta = lon * rad - _OLON * rad
    if theta > math.pi:
        theta -= 2.0 * math.pi
    if theta < -math.pi:
        theta += 2.0 * math.pi
    theta *= sn
    nx = math.floor(ra * math.sin(theta) + _XO + 0.5)
    ny = math.floor(ro - ra * math.cos(theta) + _YO + 0.5)
    return nx, ny


def kma_grid_to_wgs84(nx: int, ny: int) -> tuple[float, float]:
    """Centre (lat, lon) of a KMA grid cell; the inverse of wgs84_to_kma_grid."""
    deg = 180.0 / math.pi
    re, sn, sf, ro = _lcc_constants()
    xn = nx - _XO
    yn = ro - ny + _YO
    ra = math.copysign(math.sqrt(xn * xn + yn * yn), sn)
    alat = math.pow(re * sf / ra, 1.0 / sn)
    alat = 2.0 * math.atan(alat) - math.pi * 0.5
    if abs(xn) <= 0.0:
        theta = 0.0
    elif abs(yn) <= 0.0:
        theta = math.pi * 0.5 * (1 if xn > 0 else -1)
    else:
        theta = math.atan2(xn, yn)
    alon = theta / sn + _OLON / deg
    return alat * deg, alon * deg

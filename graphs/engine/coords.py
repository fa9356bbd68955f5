"""Coordinate pairs among a tool's fields or parameters, and the frame each pair is written in.

Korean APIs write positions as (entX, entY) in UTM-K, (mapx, mapy) or (gpsLati, gpsLong) in WGS84, (tmX, tmY)
in Korea TM, (nx, ny) on the KMA grid. A pair is found by name (x/y twins, lat/lon twins) and its frame by the
values seen (ranges), with the names as a fallback. Pairs are always returned x first (longitude first).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from graphs.engine.names import normalize
from graphs.engine.transforms import BOUNDS

_LON_LAT_SUFFIXES = (("longitude", "latitude"), ("long", "lati"), ("lon", "lat"), ("lng", "lat"))


@dataclass(frozen=True)
class CoordPair:
    x: str  # the name as written (longitude or easting)
    y: str
    frame: str | None  # wgs84 | utmk | tm | kma, None when unknown

    @property
    def names(self) -> str:
        return f"{self.x},{self.y}"


def find_pairs(names: Iterable[str]) -> list[tuple[str, str]]:
    """(x, y) name pairs: twins that differ only by x/y or lon/lat at the start or the end."""
    by_normal = {}
    for name in names:
        by_normal.setdefault(normalize(name), name)
    pairs: list[tuple[str, str]] = []
    used: set[str] = set()
    for norm, name in by_normal.items():
        if norm in used:
            continue
        partner = None
        if norm.endswith("x") and norm[:-1] + "y" in by_normal:
            partner = norm[:-1] + "y"
        elif norm.startswith("x") and "y" + norm[1:] in by_normal:
            partner = "y" + norm[1:]
        else:
            for lon, lat in _LON_LAT_SUFFIXES:
                if norm.endswith(lon) and norm[: -len(lon)] + lat in by_normal:
                    partner = norm[: -len(lon)] + lat
                    break
        if partner and partner not in used:
            pairs.append((name, by_normal[partner]))
            used.update({norm, partner})
    return pairs


def _numbers(values: Iterable[object]) -> list[float]:
    out = []
    for value in values:
        try:
            out.append(float(str(value).strip()))
        except ValueError:
            continue
    return out


def _within(frame: str, xs: Sequence[float], ys: Sequence[float]) -> bool:
    (x0, x1), (y0, y1) = BOUNDS[frame]
    return all(x0 <= x <= x1 for x in xs) and all(y0 <= y <= y1 for y in ys)


def frame_of(
    x_name: str, y_name: str, x_values: Iterable[object], y_values: Iterable[object]
) -> tuple[str | None, bool]:
    """(frame, swapped): swapped means the "x" name holds latitudes (AirKorea's dmX before ver 1.1)."""
    xs, ys = _numbers(x_values), _numbers(y_values)
    if xs and ys:
        integers = all(v == int(v) for v in (*xs, *ys))
        if _within("wgs84", xs, ys):
            return "wgs84", False
        if _within("wgs84", ys, xs):
            return "wgs84", True
        if integers and _within("kma", xs, ys) and max(*xs, *ys) <= 253:
            return "kma", False
        if _within("utmk", xs, ys):
            return "utmk", False
        if min(*xs, *ys) > 1000 and _within("tm", xs, ys):
            return "tm", False
    x, y = normalize(x_name), normalize(y_name)
    if (x, y) == ("nx", "ny"):
        return "kma", False
    if any(x.endswith(lon) for lon, _ in _LON_LAT_SUFFIXES):
        return "wgs84", False
    if x.startswith("ent"):
        return "utmk", False
    if x.startswith("tm"):
        return "tm", False
    return None, False


def coordinate_pairs(examples: Mapping[str, Sequence[object]]) -> list[CoordPair]:
    """The coordinate pairs among names with their sample values, each oriented x (longitude) first."""
    pairs = []
    for x_name, y_name in find_pairs(examples):
        frame, swapped = frame_of(x_name, y_name, examples.get(x_name, ()), examples.get(y_name, ()))
        if frame is None:
            continue
        if swapped:
            x_name, y_name = y_name, x_name
        pairs.append(CoordPair(x_name, y_name, frame))
    return pairs

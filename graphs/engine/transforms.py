"""The binding transforms an edge may apply between a source field's value and a target parameter.

A transform is written as a spec string, `name` or `name:arg:arg` (`slice:0:5`, `zero_pad:4`,
`project:utmk:kma`), which is also how an edge stores it. Most map one value to one value; the coordinate
projections map a pair to a pair: the edge then names two source fields and two target parameters, each
written x first ("entX,entY" -> "nx,ny"; "mapx,mapy" -> "gpsLong,gpsLati"). See docs/edge.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from apis.engine import geo


class TransformError(ValueError):
    """A value the transform cannot take (too short, not digits, off the map)."""


@dataclass(frozen=True)
class Transform:
    name: str
    arity: int  # values in and out
    params: tuple[str, ...]  # names of the spec's arguments
    description: str
    func: Callable[..., tuple[str, ...]]


FRAMES = {
    "wgs84": "WGS84 longitude, latitude (EPSG:4326)",
    "utmk": "UTM-K x, y (EPSG:5179; Juso entX/entY)",
    "tm": "Korea 2000 central belt TM x, y (EPSG:5181; AirKorea tmX/tmY)",
    "kma": "KMA forecast grid nx, ny",
}
_EPSG = {"wgs84": geo.WGS84, "utmk": geo.UTMK, "tm": geo.KOREA_TM_CENTRAL}
# Plausible bounds of South Korea in each frame: a projected point outside them is a wrong binding.
BOUNDS = {
    "wgs84": ((124.0, 132.0), (33.0, 39.0)),
    "utmk": ((700_000.0, 1_400_000.0), (1_400_000.0, 2_200_000.0)),
    "tm": ((-100_000.0, 600_000.0), (-100_000.0, 800_000.0)),
    "kma": ((1.0, 149.0), (1.0, 253.0)),
}


def _number(value: str) -> float:
    try:
        return float(str(value).strip())
    except ValueError:
        raise TransformError(f"{value!r} is not a number") from None


def _identity(value: str) -> tuple[str, ...]:
    return (value,)


def _slice(value: str, start: str, stop: str) -> tuple[str, ...]:
    a, b = int(start), int(stop)
    if len(value) < b:
        raise TransformError(f"{value!r} is shorter than {b} characters")
    return (value[a:b],)


def _zero_pad(value: str, width: str) -> tuple[str, ...]:
    text = value.strip()
    if not text.isdigit():
        raise TransformError(f"{value!r} is not digits")
    if len(text) > int(width):
        raise TransformError(f"{value!r} is longer than {width} digits")
    return (text.zfill(int(width)),)


def _upper(value: str) -> tuple[str, ...]:
    return (value.upper(),)


def _lower(value: str) -> tuple[str, ...]:
    return (value.lower(),)


def _pair(x_value: str, y_value: str) -> tuple[str, ...]:
    return (x_value, y_value)


def _strip(value: str) -> tuple[str, ...]:
    return (value.strip(),)


def _ymd_to_ym(value: str) -> tuple[str, ...]:
    text = value.strip().replace("-", "")
    try:
        datetime.strptime(text[:8], "%Y%m%d")
    except ValueError:
        raise TransformError(f"{value!r} is not a YYYYMMDD date") from None
    return (text[:6],)


def _in_bounds(frame: str, x: float, y: float) -> None:
    (x0, x1), (y0, y1) = BOUNDS[frame]
    if not (x0 <= x <= x1 and y0 <= y <= y1):
        raise TransformError(f"({x:g}, {y:g}) is outside Korea in {frame}")


def _format(frame: str, x: float, y: float) -> tuple[str, ...]:
    if frame == "kma":
        return (str(int(x)), str(int(y)))
    if frame == "wgs84":
        return (f"{x:.7f}", f"{y:.7f}")
    return (f"{x:.6f}", f"{y:.6f}")


def _project(x_value: str, y_value: str, source: str, target: str) -> tuple[str, ...]:
    if source not in FRAMES or target not in FRAMES:
        raise TransformError(f"unknown frame in {source}->{target}; known: {', '.join(FRAMES)}")
    x, y = _number(x_value), _number(y_value)
    _in_bounds(source, x, y)
    if source == "kma":
        lat, lon = geo.kma_grid_to_wgs84(round(x), round(y))
        x, y, source = lon, lat, "wgs84"
    if target == "kma":
        if source != "wgs84":
            x, y = geo.project(x, y, source=_EPSG[source], target=geo.WGS84)
        nx, ny = geo.wgs84_to_kma_grid(y, x)
        _in_bounds("kma", nx, ny)
        return _format("kma", nx, ny)
    if source != target:
        x, y = geo.project(x, y, source=_EPSG[source], target=_EPSG[target])
    _in_bounds(target, x, y)
    return _format(target, x, y)


TRANSFORMS: dict[str, Transform] = {
    t.name: t
    for t in (
        Transform("identity", 1, (), "the value as it is", _identity),
        Transform("slice", 1, ("start", "stop"), "characters [start:stop], e.g. slice:0:5 for a 시군구 prefix", _slice),
        Transform("zero_pad", 1, ("width",), "left-pad digits with zeros to width, e.g. 12 -> 0012", _zero_pad),
        Transform("upper", 1, (), "upper case", _upper),
        Transform("lower", 1, (), "lower case", _lower),
        Transform("strip", 1, (), "without surrounding whitespace", _strip),
        Transform("ymd_to_ym", 1, (), "YYYYMMDD -> YYYYMM", _ymd_to_ym),
        Transform("pair", 2, (), "a coordinate pair as it is, both values from one record (same frame)", _pair),
        Transform(
            "project",
            2,
            ("source", "target"),
            "a coordinate pair from one frame to another (wgs84, utmk, tm, kma grid), e.g. project:utmk:kma",
            _project,
        ),
    )
}

_SPEC = re.compile(r"^[a-z_0-9]+(:[A-Za-z0-9_.-]+)*$")


def parse(spec: str) -> tuple[Transform, tuple[str, ...]]:
    """The transform and arguments of a spec string; TransformError when the spec is not well formed."""
    if not spec or not _SPEC.match(spec):
        raise TransformError(f"malformed transform spec {spec!r}; expected name or name:arg:...")
    name, *args = spec.split(":")
    transform = TRANSFORMS.get(name)
    if transform is None:
        raise TransformError(f"unknown transform {name!r}; known: {', '.join(TRANSFORMS)}")
    if len(args) != len(transform.params):
        expected = ":".join((name, *transform.params))
        raise TransformError(f"transform {spec!r} needs {len(transform.params)} argument(s): {expected}")
    if name == "slice" and not all(arg.isdigit() for arg in args):
        raise TransformError(f"slice bounds must be whole numbers: {spec!r}")
    if name == "zero_pad" and not args[0].isdigit():
        raise TransformError(f"zero_pad width must be a whole number: {spec!r}")
    if name == "project" and not set(args) <= set(FRAMES):
        raise TransformError(f"project frames must be among {', '.join(FRAMES)}: {spec!r}")
    return transform, tuple(args)


def arity(spec: str) -> int:
    return parse(spec)[0].arity


def apply(spec: str, values: Sequence[str]) -> tuple[str, ...]:
    """Apply a transform to a source value (or a pair); raises TransformError on a value it cannot take."""
    transform, args = parse(spec)
    if len(values) != transform.arity:
        raise TransformError(f"{spec} takes {transform.arity} value(s), got {len(values)}")
    return transform.func(*(str(v) for v in values), *args)


def describe(spec: str) -> str:
    transform, args = parse(spec)
    return transform.description if not args else f"{transform.description} ({', '.join(args)})"

"""Synthetic bus routes over real stops, and the clock-driven arrivals they give (TAGO and Seoul bus).

A route is a chain of geographically near stops walked out from a seed stop in a steady direction, then
back along the opposite-side twins (same name, across the street). Every stop lists exactly the routes
whose station lists contain it, and arrivals at a stop come only from those routes, from a timetable
(first bus, headway, last bus) and deterministic traffic, so chains across operations stay consistent.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

from apis.sandbox.rand import rng

EARTH_M_PER_DEG = 111_320.0
CELL_M = 500.0  # grid cell for neighbour search
_SLACK = 1e-6  # numpy's prefilter keeps borderline stops; the exact test decides


@dataclass(frozen=True)
class Stop:
    id: str  # TAGO nodeid / Seoul stId
    name: str
    lat: float
    lon: float
    number: str = ""  # TAGO nodeno / Seoul arsId
    kind: str = ""  # Seoul stop_type (일반차로, 중앙차로, 마을버스 …)


@dataclass(frozen=True)
class RouteStyle:
    """What a route factory decides for one new route: identity, length and timetable."""

    id: str
    number: str
    kind: str
    outbound: tuple[int, int]  # min/max stops one way
    headway_min: int
    first_min: int  # first departure from the origin, minutes after midnight
    last_min: int  # last departure from the origin
    avoid: tuple[str, ...] = ()  # stop kinds the route never uses (Seoul 마을버스 stay off 중앙차로)


@dataclass(frozen=True)
class Route:
    id: str
    number: str
    kind: str
    stops: tuple[int, ...]  # stop indexes in running order: outbound, then the way back
    turn: int  # position in stops where the way back starts (TAGO updowncd 1)
    seconds: tuple[int, ...]  # scheduled running seconds from the origin to each position
    headway_min: int
    first_min: int
    last_min: int

    @property
    def departures(self) -> range:
        """Departure times from the origin, in seconds after midnight."""
        return range(self.first_min * 60, self.last_min * 60 + 1, self.headway_min * 60)


@dataclass(frozen=True)
class Approach:
    """One bus on its way to a stop (or waiting at the origin)."""

    route: Route
    position: int  # the stop's position in route.stops
    departure: int  # seconds after midnight it left (or leaves) the origin
    seconds: int  # seconds until it reaches the stop
    stops_away: int  # stops still to pass (0 = it is at the previous stop's doorstep)
    at_position: int  # position of the last stop it passed
    started: bool  # False: still waiting at the origin
    last: bool  # the day's last bus


def distance_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Equirectangular distance: plenty for stops a few km apart, and fast."""
    x = (lon2 - lon1) * math.cos(math.radians((lat1 + lat2) / 2))
    return math.hypot(x, lat2 - lat1) * EARTH_M_PER_DEG


class Network:
    """Stops of one city and the routes laid over them (build once per process and cache)."""

    def __init__(self, stops: Sequence[Stop], *, longest_hop_m: float = 1300):
        # numpy speeds up the stop search of build(); imported here, not at module level, so the processes
        # that never lay out a network (most) do not pay its 0.15 s import.
        import numpy

        self._np = numpy
        self.stops: tuple[Stop, ...] = tuple(stops)
        # (radius, sharpest turn in degrees) tried in turn when looking for the next stop; rural lines need long hops.
        self._reaches = tuple(
            dict.fromkeys((m, t) for m, t in ((900, 100), (1300, 150), (longest_hop_m, 150)) if m <= longest_hop_m)
        )
        self.index_of = {stop.id: i for i, stop in enumerate(self.stops)}
        # A local flat projection (metres) of the city: distances and bearings without trigonometry per pair.
        lat0 = sum(stop.lat for stop in self.stops) / max(1, len(self.stops))
        self._kx = EARTH_M_PER_DEG * math.cos(math.radians(lat0))
        self._x = [stop.lon * self._kx for stop in self.stops]
        self._y = [stop.lat * EARTH_M_PER_DEG for stop in self.stops]
        # Grid cell -> (stop index, x, y) of the stops in it, in index order.
        self._grid: dict[tuple[int, int], list[tuple[int, float, float]]] = {}
        for i, (x, y) in enumerate(zip(self._x, self._y, strict=True)):
            self._grid.setdefault((int(x // CELL_M), int(y // CELL_M)), []).append((i, x, y))
        self.routes: tuple[Route, ...] = ()
        self._by_stop: dict[int, tuple[int, ...]] = {}
        self._blocks: dict[tuple[int, int, int], tuple] = {}
        self._names = [stop.name for stop in self.stops]
        self._kinds = [stop.kind for stop in self.stops]

    def _around(self, x: float, y: float, radius_m: float) -> list[tuple[float, int]]:
        reach = int(math.ceil(radius_m / CELL_M))
        cx, cy = int(x // CELL_M), int(y // CELL_M)
        limit = radius_m * radius_m
        grid = self._grid
        found = []
        for gx in range(cx - reach, cx + reach + 1):
            for gy in range(cy - reach, cy + reach + 1):
                for i, xi, yi in grid.get((gx, gy), ()):
                    d2 = (xi - x) ** 2 + (yi - y) ** 2
                    if d2 <= limit:
                        found.append((math.sqrt(d2), i))
        return found

    def near(self, lat: float, lon: float, radius_m: float) -> list[tuple[float, int]]:
        """(distance, stop index) of stops within radius_m, nearest first."""
        return sorted(self._around(lon * self._kx, lat * EARTH_M_PER_DEG, radius_m))

    @cached_property
    def twins(self) -> dict[int, int]:
        """Each stop's opposite-side partner: the nearest other stop of the same name within 250 m."""
        pairs: dict[int, int] = {}
        for i, stop in enumerate(self.stops):
            for _, j in sorted(self._around(self._x[i], self._y[i], 250)):
                if j != i and self.stops[j].name == stop.name:
                    pairs[i] = j
                    break
        return pairs

    def routes_at(self, stop_index: int) -> list[Route]:
        return [self.routes[r] for r in self._by_stop.get(stop_index, ())]

    def build(self, key: str, count: int, style: Callable[[int, int], RouteStyle]) -> Network:
        """Lay out up to `count` routes; style(route_number, seed_stop) names and times each one."""
        r = rng("bus-network", key)
        order = list(range(len(self.stops)))
        r.shuffle(order)
        cover = [0] * len(self.stops)
        routes: list[Route] = []
        for sweep in range(3):
            for seed in order:
                if len(routes) >= count:
                    break
                if cover[seed] > sweep:
                    continue
                made = self._walk(key, len(routes), seed, cover, style(len(routes), seed))
                if made is None:
                    cover[seed] += 1  # a dead end: do not try this seed again in this sweep
                    continue
                routes.append(made)
                for i in set(made.stops):
                    cover[i] += 1
        self.routes = tuple(routes)
        self._blocks.clear()  # only the layout needs them
        by_stop: dict[int, list[int]] = {}
        for n, route in enumerate(self.routes):
            for i in dict.fromkeys(route.stops):
                by_stop.setdefault(i, []).append(n)
        self._by_stop = {i: tuple(ns) for i, ns in by_stop.items()}
        return self

    def _walk(self, key: str, n: int, seed: int, cover: list[int], style: RouteStyle) -> Route | None:
        r = rng("bus-route", key, n, seed)
        twins = self.twins
        length = r.randint(*style.outbound)
        heading = r.random() * 2 * math.pi
        used = {seed, twins.get(seed, seed)}
        names = {self.stops[seed].name}
        chain = self._extend([seed], heading, length, used, names, cover, r, style.avoid)
        if len(chain) < length:
            # A dead end ahead: grow the route backwards from the seed instead, so corridors reach their ends.
            behind = self._extend(
                [seed], heading + math.pi, length - len(chain) + 1, used, names, cover, r, style.avoid
            )
            chain = behind[:0:-1] + chain
        if len(chain) < style.outbound[0]:
            return None
        back = [twins.get(i, i) for i in reversed(chain)]
        if back[0] == chain[-1]:
            back = back[1:]
        stops = tuple(chain + back)
        return Route(
            id=style.id,
            number=style.number,
            kind=style.kind,
            stops=stops,
            turn=len(chain),
            seconds=self._schedule(stops),
            headway_min=style.headway_min,
            first_min=style.first_min,
            last_min=style.last_min,
        )

    def _extend(self, chain, heading, length, used, names, cover, r, avoid) -> list[int]:
        """Walk on from the chain's last stop until it holds `length` stops or runs out of road."""
        twins = self.twins
        while len(chain) < length:
            here = chain[-1]
            best = self._next_stop(here, heading, used, names, cover, r, avoid)
            if best is None:
                break
            step = math.atan2(self._x[best] - self._x[here], self._y[best] - self._y[here])
            heading = math.atan2(
                0.6 * math.sin(heading) + 0.4 * math.sin(step), 0.6 * math.cos(heading) + 0.4 * math.cos(step)
            )
            chain.append(best)
            used.update((best, twins.get(best, best)))
            names.add(self.stops[best].name)
        return chain

    def _block(self, cx: int, cy: int, reach: int):
        """(stop indexes, x, y) of the square of cells around (cx, cy), in _around's scan order, as arrays."""
        key = (cx, cy, reach)
        found = self._blocks.get(key)
        if found is None:
            np = self._np
            rows = [
                entry
                for gx in range(cx - reach, cx + reach + 1)
                for gy in range(cy - reach, cy + reach + 1)
                for entry in self._grid.get((gx, gy), ())
            ]
            found = (
                [entry[0] for entry in rows],
                np.array([entry[1] for entry in rows], dtype=float),
                np.array([entry[2] for entry in rows], dtype=float),
            )
            self._blocks[key] = found
        return found

    def _next_stop(
        self, here: int, heading: float, used: set[int], names: set[str], cover: list[int], r, avoid: tuple[str, ...]
    ) -> int | None:
        """The next stop ahead: about 400 m on, close to the heading, preferring stops no route serves yet.

        This is the network builder's inner loop, so numpy first drops the stops of the surrounding cells that
        are too near, too far or too far off the heading, with a little slack. The rest are checked and scored
        in _around's order with the plain float arithmetic (r.random() once per candidate that passes), so the
        routes do not depend on numpy's rounding."""
        np = self._np
        x, y = self._x[here], self._y[here]
        xs, ys, stop_names, kinds = self._x, self._y, self._names, self._kinds
        sqrt, atan2, pi, tau = math.sqrt, math.atan2, math.pi, 2 * math.pi
        for radius, max_turn in self._reaches:
            best, best_score = None, math.inf
            limit = math.radians(max_turn)
            limit2 = radius * radius
            index, bx, by = self._block(int(x // CELL_M), int(y // CELL_M), int(math.ceil(radius / CELL_M)))
            dx, dy = bx - x, by - y
            d2 = dx * dx + dy * dy
            turns = np.abs((heading - np.arctan2(dx, dy) + pi) % tau - pi)
            maybe = np.flatnonzero((d2 <= limit2 + _SLACK) & (d2 >= 120 * 120 - _SLACK) & (turns <= limit + _SLACK))
            for k in maybe.tolist():
                j = index[k]
                if j in used or stop_names[j] in names or kinds[j] in avoid:
                    continue
                ddx, ddy = xs[j] - x, ys[j] - y
                d2_exact = ddx**2 + ddy**2
                if d2_exact > limit2:
                    continue
                d = sqrt(d2_exact)
                if d < 120:
                    continue
                turn = abs((heading - atan2(ddx, ddy) + pi) % tau - pi)
                if turn > limit:
                    continue
                score = abs(d - 400) / 400 + turn / 0.9 + 0.8 * min(cover[j], 3) + r.random() * 0.4
                if score < best_score:
                    best, best_score = j, score
            if best is not None:
                return best
        return None

    def _schedule(self, stops: tuple[int, ...]) -> tuple[int, ...]:
        """Cumulative running seconds: about 20 km/h between stops plus 20 s at each stop."""
        seconds, total = [0], 0
        for a, b in zip(stops, stops[1:], strict=False):
            metres = math.hypot(self._x[a] - self._x[b], self._y[a] - self._y[b])
            total += max(40, int(metres / 5.6) + 20)
            seconds.append(total)
        return tuple(seconds)


_SLOWEST = 1.18 * 1.12 + 0.01  # _traffic's highest factor, with a margin for rounding


def _traffic(route: Route, day: str, departure: int) -> float:
    """How much slower than scheduled one trip runs: rush hours and a little day-to-day noise."""
    hour = departure // 3600
    rush = 1.18 if hour in (7, 8, 17, 18, 19) else 1.06 if hour in (9, 12, 13, 16) else 1.0
    return rush * rng("bus-trip", route.id, day, departure).uniform(0.94, 1.12)


def approaches(route: Route, position: int, now: datetime, *, limit: int = 2) -> list[Approach]:
    """The next buses of a route to reach the stop at `position`, soonest first (at most `limit`)."""
    clock = now.hour * 3600 + now.minute * 60 + now.second
    day = now.strftime("%Y%m%d")
    found: list[Approach] = []
    departures = route.departures
    # No trip runs slower than _SLOWEST times its schedule, so a bus that would be here by now even at that
    # pace has passed: skip it without drawing its traffic.
    slowest = route.seconds[position] * _SLOWEST
    for departure in departures:
        if departure + slowest <= clock:
            continue
        factor = _traffic(route, day, departure)
        arrival = departure + int(route.seconds[position] * factor)
        if arrival <= clock:
            continue
        started = departure <= clock
        passed = 0
        if started:
            passed = max(i for i in range(position + 1) if departure + route.seconds[i] * factor <= clock)
        found.append(
            Approach(
                route=route,
                position=position,
                departure=departure,
                seconds=arrival - clock,
                stops_away=position - passed if started else position,
                at_position=passed,
                started=started,
                last=departure == departures[-1],
            )
        )
        if len(found) >= limit:
            break
    return found

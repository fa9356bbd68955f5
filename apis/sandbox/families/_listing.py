"""Indexes for list operations over large synthetic sets (HIRA facilities, pharmacies, tourism places): the
items already in the answer's order, positions by value and by text fragment, and a filter that starts from
the narrowest index. Filtering keeps the items' order, so a filtered answer needs no sort of its own."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")


class TextIndex:
    """Which texts of a fixed list contain a fragment: positions by character and by pair of characters, so a
    one- or two-character fragment is a lookup and a longer one checks only the texts holding its rarest pair."""

    def __init__(self, texts: Sequence[str]):
        self.texts = tuple(texts)
        grams: dict[str, list[int]] = {}
        for position, text in enumerate(self.texts):
            for gram in {*text, *(text[k : k + 2] for k in range(len(text) - 1))}:
                grams.setdefault(gram, []).append(position)
        self._grams = {gram: tuple(found) for gram, found in grams.items()}

    def containing(self, fragment: str) -> Sequence[int]:
        """Positions (ascending) of the texts that contain fragment."""
        if not fragment:
            return range(len(self.texts))
        if len(fragment) <= 2:
            return self._grams.get(fragment, ())
        pairs = {fragment[k : k + 2] for k in range(len(fragment) - 1)}
        rarest = min((self._grams.get(pair, ()) for pair in pairs), key=len)
        texts = self.texts
        return [p for p in rarest if fragment in texts[p]]


def positions_by(values: Iterable[Hashable]) -> dict[Hashable, tuple[int, ...]]:
    """value -> positions (ascending) of the items that have it; values[i] is the value of item i."""
    found: dict[Hashable, list[int]] = {}
    for position, value in enumerate(values):
        found.setdefault(value, []).append(position)
    return {value: tuple(positions) for value, positions in found.items()}


def positions_by_each(value_sets: Iterable[Iterable[Hashable]]) -> dict[Hashable, tuple[int, ...]]:
    """Like positions_by, for items with several values each (a facility's 진료과목)."""
    found: dict[Hashable, list[int]] = {}
    for position, values in enumerate(value_sets):
        for value in values:
            found.setdefault(value, []).append(position)
    return {value: tuple(positions) for value, positions in found.items()}


class Filter:
    """One condition of a query: the positions that pass it (ascending) and the same test for one position."""

    __slots__ = ("positions", "test")

    def __init__(self, positions: Sequence[int], test: Callable[[int], bool]):
        self.positions = positions
        self.test = test


def select(size: int, filters: Sequence[Filter]) -> Sequence[int]:
    """Positions (ascending) of the items passing every filter: the narrowest filter's positions, checked
    against the others. With no filter, every position."""
    if not filters:
        return range(size)
    driver = min(filters, key=lambda f: len(f.positions))
    others = [f.test for f in filters if f is not driver]
    if not others:
        return driver.positions
    if len(others) == 1:
        test = others[0]
        return [p for p in driver.positions if test(p)]
    return [p for p in driver.positions if all(test(p) for test in others)]


class Picked(Sequence, Generic[T]):
    """The items at some positions of a sequence, looked up only when read (a LazyRecords source)."""

    def __init__(self, items: Sequence[T], positions: Sequence[int]):
        self._items = items
        self._positions = positions

    def __len__(self) -> int:
        return len(self._positions)

    def __getitem__(self, index):
        if isinstance(index, slice):
            items = self._items
            return [items[p] for p in self._positions[index]]
        return self._items[self._positions[index]]

"""Sample values for the slots of the catalog's request templates, for the tests that fill every template: the
values both the naturalness and the word-finding checks use; each test adds the slots it varies."""

from __future__ import annotations

REQUEST_SLOT_VALUES = {
    "city": "서울",
    "site": "낙산공원",
    "kind": "관광지",
    "month": 10,
    "budget": "5억 원",
    "apt": "벽산봉천",
    "station": "혜화",
    "hospital": "봉천연세의원",
    "hour": "밤 10시",
    "date": "12월 25일",
    "year": 2027,
    "drug": "타이레놀",
    "region": "서울",
    "house": "염곡역 포레나 2차",
    "address": "관악구 봉천대로 123-15",
    "radius": "500m",
}

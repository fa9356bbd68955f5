"""기상청 단기예보 (VilageFcstInfoService_2.0) and 중기예보 (MidFcstInfoService): envelopes, issuance and clock
rules, paging, value formats, a coherent November weather field, and research §5 chains 4 (tail) and 15."""

from __future__ import annotations

import json
import statistics
from datetime import datetime

import httpx
import pytest

from apis.engine import geo
from apis.sandbox.config import DEMO_KEY, KST, SandboxConfig
from apis.sandbox.families import kma

from .conftest import parse

VILAGE = "apis.data.go.kr/1360000/VilageFcstInfoService_2.0/"
MID = "apis.data.go.kr/1360000/MidFcstInfoService/"
SEOUL = {"nx": 60, "ny": 127}
PCP_FORMS = ("강수없음", "1.0mm 미만", "30.0~50.0mm", "50.0mm 이상")


def kma_json(sandbox_get, op: str, *, now: str | None = None, config=None, **params) -> dict:
    headers = {"X-Sandbox-Now": now} if now else None
    response = sandbox_get(op, {"dataType": "JSON", **params}, headers=headers, config=config)
    assert response.status == 200
    return json.loads(response.text())["response"]


def items_of(body: dict) -> list[dict]:
    return body["body"]["items"]["item"]


def ncst(sandbox_get, base_date="20261118", base_time="1400", **kwargs) -> dict:
    params = {"base_date": base_date, "base_time": base_time, **SEOUL, **kwargs}
    return kma_json(sandbox_get, VILAGE + "getUltraSrtNcst", **params)


def vilage(sandbox_get, base_date="20261118", base_time="1400", **kwargs) -> dict:
    params = {"base_date": base_date, "base_time": base_time, **SEOUL, **kwargs}
    return kma_json(sandbox_get, VILAGE + "getVilageFcst", **params)


def all_vilage_rows(sandbox_get, **kwargs) -> list[dict]:
    return items_of(vilage(sandbox_get, numOfRows=1000, **kwargs))


# --- 초단기실황 -------------------------------------------------------------------------------


def test_it_answers_a_nowcast_with_eight_categories_and_kma_typing(sandbox_get):
    body = ncst(sandbox_get)
    assert body["header"] == {"resultCode": "00", "resultMsg": "NORMAL_SERVICE"}
    assert body["body"]["dataType"] == "JSON"
    rows = items_of(body)
    assert [r["category"] for r in rows] == ["PTY", "REH", "RN1", "T1H", "UUU", "VEC", "VVV", "WSD"]
    assert body["body"]["totalCount"] == 8 and body["body"]["numOfRows"] == 10
    first = rows[0]
    assert (first["baseDate"], first["baseTime"], first["nx"], first["ny"]) == ("20261118", "1400", 60, 127)
    assert all(isinstance(r["obsrValue"], str) for r in rows)
    values = {r["category"]: r["obsrValue"] for r in rows}
    assert -5 < float(values["T1H"]) < 20  # a November afternoon in Seoul
    assert 0 <= int(values["VEC"]) < 360 and 0 < float(values["WSD"]) < 15


def test_it_answers_the_xml_form_with_its_data_type_and_declaration(sandbox_get):
    response = sandbox_get(VILAGE + "getUltraSrtNcst", {"base_date": "20261118", "base_time": "1400", **SEOUL})
    text = response.text()
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\r\n<response>')
    body = parse(response)["response"]["body"]
    assert body["dataType"] == "XML" and body["totalCount"] == "8"
    assert body["items"]["item"][3]["category"] == "T1H"


def test_it_keeps_a_single_item_in_a_list_as_kma_does(sandbox_get):
    body = ncst(sandbox_get, numOfRows=1)
    assert isinstance(body["body"]["items"]["item"], list) and len(items_of(body)) == 1


def test_it_serves_a_nowcast_from_ten_past_the_hour(sandbox_get):
    early = kma_json(sandbox_get, VILAGE + "getUltraSrtNcst", now="2026-11-18T14:09", base_date="20261118",
                     base_time="1400", **SEOUL)  # fmt: skip
    on_time = kma_json(sandbox_get, VILAGE + "getUltraSrtNcst", now="2026-11-18T14:10", base_date="20261118",
                       base_time="1400", **SEOUL)  # fmt: skip
    assert early == {"header": {"resultCode": "03", "resultMsg": "NO_DATA"}}
    assert on_time["header"]["resultCode"] == "00"


def test_it_takes_the_nowcast_availability_minute_from_the_settings(sandbox_get):
    config = SandboxConfig(extra={"kma_ncst_available_minute": 40})
    body = ncst(sandbox_get, config=config)
    assert body["header"]["resultCode"] == "03"
    assert ncst(sandbox_get, base_time="1300", config=config)["header"]["resultCode"] == "00"


def test_it_refuses_an_availability_minute_setting_that_is_not_a_minute(sandbox_get):
    with pytest.raises(ValueError, match="kma_ncst_available_minute"):
        ncst(sandbox_get, config=SandboxConfig(extra={"kma_ncst_available_minute": "ten"}))


@pytest.mark.parametrize(
    ("now", "ncst_base", "ultra_base", "vilage_base"),
    [
        ("2026-11-18T14:20", "202611181400", "202611181330", "202611181400"),
        ("2026-11-18T14:09", "202611181300", "202611181330", "202611181100"),
        ("2026-11-18T14:50", "202611181400", "202611181430", "202611181400"),
        ("2026-11-19T02:05", "202611190100", "202611190130", "202611182300"),
    ],
)
def test_it_names_the_newest_bases_a_client_may_ask_for(now, ncst_base, ultra_base, vilage_base):
    moment = datetime.fromisoformat(now + "+09:00")
    assert kma.latest_ncst_base(moment).strftime("%Y%m%d%H%M") == ncst_base
    assert kma.latest_ultra_fcst_base(moment).strftime("%Y%m%d%H%M") == ultra_base
    assert kma.latest_vilage_base(moment).strftime("%Y%m%d%H%M") == vilage_base


@pytest.mark.parametrize(
    ("base_date", "base_time"),
    [("20261118", "1430"), ("20261118", "1500"), ("20261119", "0000"), ("20261117", "1300")],
    ids=["not-on-the-hour", "future", "tomorrow", "older-than-a-day"],
)
def test_it_answers_no_data_for_a_base_it_does_not_serve(sandbox_get, base_date, base_time):
    assert ncst(sandbox_get, base_date, base_time) == {"header": {"resultCode": "03", "resultMsg": "NO_DATA"}}


@pytest.mark.parametrize(
    "params",
    [{"base_time": "14"}, {"base_time": "2500"}, {"base_date": "20261131"}, {"base_date": "2026-11-18"}, {"nx": "x"}],
    ids=["short-time", "hour-25", "no-such-day", "dashed-date", "text-nx"],
)
def test_it_answers_10_to_a_malformed_parameter(sandbox_get, params):
    assert ncst(sandbox_get, **params)["header"] == {"resultCode": "10", "resultMsg": "INVALID_REQUEST_PARAMETER_ERROR"}


def test_it_answers_10_to_a_missing_parameter_and_no_data_off_the_grid(sandbox_get):
    missing = kma_json(sandbox_get, VILAGE + "getUltraSrtNcst", base_date="20261118", base_time="1400", nx=60)
    assert missing["header"]["resultCode"] == "10"
    assert ncst(sandbox_get, nx=150)["header"]["resultCode"] == "03"


# --- 초단기예보 -------------------------------------------------------------------------------


def test_it_forecasts_six_hours_grouped_by_category(sandbox_get):
    body = kma_json(sandbox_get, VILAGE + "getUltraSrtFcst", base_date="20261118", base_time="1330", numOfRows=60,
                    **SEOUL)  # fmt: skip
    rows = items_of(body)
    assert body["body"]["totalCount"] == 60
    categories = [r["category"] for r in rows[::6]]
    assert categories == ["LGT", "PTY", "RN1", "SKY", "T1H", "REH", "UUU", "VVV", "VEC", "WSD"]
    assert [r["fcstTime"] for r in rows[:6]] == ["1400", "1500", "1600", "1700", "1800", "1900"]
    assert all(r["baseTime"] == "1330" for r in rows)
    assert all(r["fcstValue"] in ("1", "3", "4") for r in rows if r["category"] == "SKY")
    assert all(r["fcstValue"] in PCP_FORMS or r["fcstValue"].endswith("mm") for r in rows if r["category"] == "RN1")


def test_it_serves_the_ultra_short_forecast_from_quarter_to(sandbox_get):
    params = {"base_date": "20261118", "base_time": "1430", **SEOUL}
    early = kma_json(sandbox_get, VILAGE + "getUltraSrtFcst", now="2026-11-18T14:44", **params)
    on_time = kma_json(sandbox_get, VILAGE + "getUltraSrtFcst", now="2026-11-18T14:45", **params)
    on_the_hour = kma_json(sandbox_get, VILAGE + "getUltraSrtFcst", **{**params, "base_time": "1400"})
    assert early["header"]["resultCode"] == "03" and on_time["header"]["resultCode"] == "00"
    assert on_the_hour["header"]["resultCode"] == "03"


# --- 단기예보 ---------------------------------------------------------------------------------


def test_it_pages_a_full_issuance_ten_rows_at_a_time_by_default(sandbox_get):
    first = vilage(sandbox_get)
    total = first["body"]["totalCount"]
    assert first["body"]["numOfRows"] == 10 and len(items_of(first)) == 10
    assert 650 <= total <= 1000
    pages = [items_of(vilage(sandbox_get, numOfRows=300, pageNo=n)) for n in (1, 2, 3)]
    keys = [(r["category"], r["fcstDate"], r["fcstTime"]) for page in pages for r in page]
    assert len(keys) == total == len(set(keys))
    past_the_end = vilage(sandbox_get, numOfRows=300, pageNo=4)
    assert past_the_end == {"header": {"resultCode": "03", "resultMsg": "NO_DATA"}}


def test_it_covers_three_days_from_the_hour_after_the_base_and_more_in_the_evening(sandbox_get):
    afternoon = all_vilage_rows(sandbox_get)
    assert (afternoon[0]["fcstDate"], afternoon[0]["fcstTime"]) == ("20261118", "1500")
    assert (afternoon[-1]["fcstDate"], afternoon[-1]["fcstTime"]) == ("20261121", "0000")
    evening = vilage(sandbox_get, base_date="20261117", base_time="2300", numOfRows=1)
    assert evening["body"]["totalCount"] > vilage(sandbox_get, numOfRows=1)["body"]["totalCount"]
    late = items_of(vilage(sandbox_get, base_date="20261117", base_time="2300", numOfRows=1000))
    assert (late[-1]["fcstDate"], late[-1]["fcstTime"]) == ("20261121", "0000")


def test_it_writes_each_category_in_kma_formats(sandbox_get):
    rows = all_vilage_rows(sandbox_get)
    by_category: dict[str, list[str]] = {}
    for row in rows:
        by_category.setdefault(row["category"], []).append(row["fcstValue"])
    assert set(by_category) == {"TMP", "UUU", "VVV", "VEC", "WSD", "SKY", "PTY", "POP", "WAV", "PCP", "REH", "SNO",
                                "TMN", "TMX"}  # fmt: skip
    hour = [r["category"] for r in rows[:12]]
    assert hour == ["TMP", "UUU", "VVV", "VEC", "WSD", "SKY", "PTY", "POP", "WAV", "PCP", "REH", "SNO"]
    assert all(v in ("1", "3", "4") for v in by_category["SKY"])
    assert all(v in ("0", "1", "2", "3", "4") for v in by_category["PTY"])
    assert all(int(v) % 10 == 0 for v in by_category["POP"]) and all(int(v) % 5 == 0 for v in by_category["REH"])
    assert all(v in PCP_FORMS or (v.endswith("mm") and float(v[:-2]) >= 1.0) for v in by_category["PCP"])
    assert all(v == "적설없음" or v.endswith("cm") or v.endswith("이상") for v in by_category["SNO"])
    assert set(by_category["WAV"]) == {"0"}  # Seoul is on land
    assert all(v.endswith(".0") for v in by_category["TMN"] + by_category["TMX"])
    assert all(float(v) == int(float(v)) for v in by_category["TMP"])


def test_it_puts_daily_extremes_on_six_and_fifteen_hundred(sandbox_get):
    rows = all_vilage_rows(sandbox_get)
    tmn = {r["fcstDate"]: r for r in rows if r["category"] == "TMN"}
    tmx = {r["fcstDate"]: r for r in rows if r["category"] == "TMX"}
    assert set(tmn) == set(tmx) == {"20261119", "20261120"}
    assert {r["fcstTime"] for r in tmn.values()} == {"0600"} and {r["fcstTime"] for r in tmx.values()} == {"1500"}
    for day in tmn:
        temps = [int(r["fcstValue"]) for r in rows if r["category"] == "TMP" and r["fcstDate"] == day]
        assert float(tmn[day]["fcstValue"]) >= min(temps) - 0.5 and float(tmx[day]["fcstValue"]) <= max(temps) + 0.5
        assert float(tmn[day]["fcstValue"]) < float(tmx[day]["fcstValue"])


def test_it_keeps_rain_type_amount_and_chance_consistent(sandbox_get):
    seen_rain = False
    for nx, ny in ((60, 127), (98, 76), (52, 38), (89, 130), (73, 134)):
        rows = items_of(vilage(sandbox_get, nx=nx, ny=ny, numOfRows=1000))
        hours: dict[tuple[str, str], dict[str, str]] = {}
        for row in rows:
            hours.setdefault((row["fcstDate"], row["fcstTime"]), {})[row["category"]] = row["fcstValue"]
        for values in hours.values():
            if "PTY" not in values:
                continue
            wet = values["PTY"] != "0"
            seen_rain |= wet
            assert (values["PCP"] != "강수없음") == wet
            assert (int(values["POP"]) >= 60) == wet
    assert seen_rain, "three days over five places should have some rain in November"


def test_it_serves_a_forecast_ten_minutes_after_issuance_for_three_days(sandbox_get):
    assert vilage(sandbox_get, now="2026-11-18T14:09")["header"]["resultCode"] == "03"
    assert vilage(sandbox_get, now="2026-11-18T14:10")["header"]["resultCode"] == "00"
    assert vilage(sandbox_get, base_time="1300")["header"]["resultCode"] == "03"
    assert vilage(sandbox_get, base_date="20261115", base_time="1700")["header"]["resultCode"] == "00"
    assert vilage(sandbox_get, base_date="20261115", base_time="1100")["header"]["resultCode"] == "03"


def test_it_gives_the_same_bytes_for_the_same_forecast(sandbox_get):
    params = {"base_date": "20261118", "base_time": "1400", "nx": 55, "ny": 124, "numOfRows": 1000}
    assert sandbox_get(VILAGE + "getVilageFcst", params).body == sandbox_get(VILAGE + "getVilageFcst", params).body


# --- one coherent weather field ---------------------------------------------------------------


def test_it_agrees_between_nowcast_and_forecasts_of_the_same_hour(sandbox_get):
    observed = {r["category"]: r["obsrValue"] for r in items_of(ncst(sandbox_get, base_time="1500",
                                                                      now="2026-11-18T15:20"))}  # fmt: skip
    ultra = items_of(kma_json(sandbox_get, VILAGE + "getUltraSrtFcst", base_date="20261118", base_time="1330",
                              numOfRows=60, **SEOUL))  # fmt: skip
    ultra_t1h = next(r["fcstValue"] for r in ultra if r["category"] == "T1H" and r["fcstTime"] == "1500")
    short = all_vilage_rows(sandbox_get)
    short_tmp = next(r["fcstValue"] for r in short if r["category"] == "TMP" and r["fcstTime"] == "1500")
    assert abs(float(observed["T1H"]) - int(ultra_t1h)) <= 1
    assert abs(float(observed["T1H"]) - int(short_tmp)) <= 1


def test_it_varies_smoothly_between_neighbouring_cells_and_follows_the_climate():
    hour = kma.hour_index(datetime(2026, 11, 18, 14, tzinfo=KST))
    row = [kma.observed(nx, 127, hour).temp for nx in range(50, 71)]
    assert max(abs(a - b) for a, b in zip(row, row[1:], strict=False)) < 1.0

    def daily_mean(lat, lon):
        nx, ny = geo.wgs84_to_kma_grid(lat, lon)
        return statistics.mean(kma.observed(nx, ny, hour + h).temp for h in range(-14, 10 * 24))

    seoul, jeju, daegwallyeong = daily_mean(37.57, 126.98), daily_mean(33.50, 126.53), daily_mean(37.68, 128.72)
    assert 3 < seoul < 12 and jeju > seoul + 2 and daegwallyeong < seoul - 2


def test_it_rains_on_a_plausible_share_of_november_hours():
    start = kma.hour_index(datetime(2026, 11, 1, tzinfo=KST))
    cells = [(60, 127), (98, 76), (52, 38), (89, 130), (73, 134), (55, 124)]
    wet = sum(1 for nx, ny in cells for h in range(start, start + 30 * 24) if kma.observed(nx, ny, h).precip > 0)
    assert 0.03 < wet / (len(cells) * 30 * 24) < 0.2


# --- 중기예보 ---------------------------------------------------------------------------------


def mid(sandbox_get, op: str, reg_id: str, tm_fc: str = "202611180600", **kwargs) -> dict:
    return kma_json(sandbox_get, MID + op, regId=reg_id, tmFc=tm_fc, **kwargs)


def test_it_answers_the_morning_land_forecast_for_days_four_to_ten(sandbox_get):
    body = mid(sandbox_get, "getMidLandFcst", "11B00000")
    item = items_of(body)[0]
    assert body["body"]["totalCount"] == 1 and isinstance(body["body"]["items"]["item"], list)
    expected = ["regId"]
    expected += [f"rnSt{d}{h}" for d in range(4, 8) for h in ("Am", "Pm")] + [f"rnSt{d}" for d in (8, 9, 10)]
    expected += [f"wf{d}{h}" for d in range(4, 8) for h in ("Am", "Pm")] + [f"wf{d}" for d in (8, 9, 10)]
    assert list(item) == expected
    chances = [v for k, v in item.items() if k.startswith("rnSt")]
    assert all(isinstance(v, int) and v % 10 == 0 and 0 <= v <= 80 for v in chances)
    skies = {"맑음", "구름많음", "흐림"}
    wet = {f"{a} {b}" for a in ("구름많고", "흐리고") for b in ("비", "눈", "비/눈", "소나기")}
    assert all(v in skies | wet for k, v in item.items() if k.startswith("wf"))


def test_it_starts_the_evening_issuance_at_day_five(sandbox_get):
    land = items_of(mid(sandbox_get, "getMidLandFcst", "11B00000", "202611171800"))[0]
    temps = items_of(mid(sandbox_get, "getMidTa", "11B10101", "202611171800"))[0]
    assert "rnSt4Am" not in land and "wf4Pm" not in land and "rnSt5Am" in land
    assert "taMin4" not in temps and list(temps)[1:4] == ["taMin5", "taMin5Low", "taMin5High"]


def test_it_answers_mid_term_temperatures_as_numbers_with_bands(sandbox_get):
    item = items_of(mid(sandbox_get, "getMidTa", "11B10101"))[0]
    assert item["regId"] == "11B10101" and len(item) == 1 + 7 * 6
    for day in range(4, 11):
        low, high = item[f"taMin{day}"], item[f"taMax{day}"]
        assert isinstance(low, int) and isinstance(high, int) and -8 <= low < high <= 22
        assert all(0 <= item[f"ta{k}{day}{b}"] <= 3 for k in ("Min", "Max") for b in ("Low", "High"))
    jeju = items_of(mid(sandbox_get, "getMidTa", "11G00201"))[0]
    assert statistics.mean(jeju[f"taMin{d}"] for d in range(4, 11)) > statistics.mean(
        item[f"taMin{d}"] for d in range(4, 11)
    )


@pytest.mark.parametrize(
    ("op", "reg_id", "tm_fc"),
    [
        ("getMidTa", "11H10603", "202611180600"),  # 군위's abolished code (captured NO_DATA)
        ("getMidTa", "11B00000", "202611180600"),  # a land region asked for temperatures
        ("getMidLandFcst", "11B10101", "202611180600"),
        ("getMidLandFcst", "11B00000", "202611181200"),  # not an issuance hour
        ("getMidLandFcst", "11B00000", "202611181800"),  # later than the clock
        ("getMidLandFcst", "11B00000", "202611170600"),  # more than 24 hours old
    ],
)
def test_it_answers_no_data_for_regions_and_issuances_it_does_not_have(sandbox_get, op, reg_id, tm_fc):
    assert mid(sandbox_get, op, reg_id, tm_fc) == {"header": {"resultCode": "03", "resultMsg": "NO_DATA"}}


def test_it_answers_10_to_a_malformed_issuance_time(sandbox_get):
    assert mid(sandbox_get, "getMidTa", "11B10101", "2026111806")["header"]["resultCode"] == "10"


@pytest.mark.parametrize(
    ("address", "land", "temperature"),
    [
        ("서울특별시 종로구 세종대로 209", "11B00000", "11B10101"),
        ("경기도 수원시 장안구 정자동", "11B00000", "11B20601"),
        ("강원특별자치도 강릉시 교동", "11D20000", "11D20501"),
        ("강원특별자치도 춘천시", "11D10000", "11D10301"),
        ("경상남도 고성군 고성읍", "11H20000", "11H20404"),
        ("강원특별자치도 고성군 간성읍", "11D20000", "11D20402"),
        ("광주광역시 북구", "11F20000", "11F20501"),
        ("전라남도 순천시", "11F20000", "11F20405"),
        ("제주특별자치도 서귀포시", "11G00000", "11G00401"),
        ("세종특별자치시 한누리대로", "11C20000", "11C20404"),
    ],
)
def test_it_maps_an_address_to_mid_term_regions(address, land, temperature):
    assert kma.mid_region_ids(address) == (land, temperature)


def test_it_refuses_an_address_outside_the_table():
    with pytest.raises(ValueError):
        kma.mid_region_ids("Tokyo Chiyoda")


# --- chains over a real socket ----------------------------------------------------------------


@pytest.fixture
def live(sandbox_server):
    with httpx.Client(timeout=10) as http:

        def get(live_url: str, now: str | None = None, **params) -> dict:
            url = f"{sandbox_server.url}/sandbox/{live_url.split('://', 1)[1]}"
            headers = {"X-Sandbox-Now": now} if now else {}
            response = http.get(url, params={"serviceKey": DEMO_KEY, "dataType": "JSON", **params}, headers=headers)
            response.raise_for_status()
            return response.json()["response"]

        yield get


@pytest.mark.slow
@pytest.mark.parametrize(
    ("now", "ncst_base", "vilage_base"),
    [("2026-11-18T14:20", ("20261118", "1400"), ("20261118", "1400")),
     ("2026-11-19T00:05", ("20261118", "2300"), ("20261118", "2300"))],
)  # fmt: skip
def test_chain_4_point_to_grid_to_nowcast_and_short_term_forecast(live, now, ncst_base, vilage_base):
    nx, ny = geo.wgs84_to_kma_grid(37.5796, 126.9770)  # 경복궁
    assert (nx, ny) == (60, 127)
    # A client's clock rules: 실황 is served from HH:10, 단기예보 from 02:10, 05:10, … 23:10.
    moment = datetime.fromisoformat(now + "+09:00")
    assert kma.latest_ncst_base(moment).strftime("%Y%m%d %H%M") == " ".join(ncst_base)
    assert kma.latest_vilage_base(moment).strftime("%Y%m%d %H%M") == " ".join(vilage_base)
    observed = live("http://apis.data.go.kr/1360000/VilageFcstInfoService_2.0/getUltraSrtNcst", now=now,
                    base_date=ncst_base[0], base_time=ncst_base[1], nx=nx, ny=ny)  # fmt: skip
    forecast = live("http://apis.data.go.kr/1360000/VilageFcstInfoService_2.0/getVilageFcst", now=now,
                    base_date=vilage_base[0], base_time=vilage_base[1], nx=nx, ny=ny, numOfRows=1000)  # fmt: skip
    assert observed["header"]["resultCode"] == forecast["header"]["resultCode"] == "00"
    temperature = float(next(r["obsrValue"] for r in items_of(observed) if r["category"] == "T1H"))
    first_tmp = next(r for r in items_of(forecast) if r["category"] == "TMP")
    assert abs(temperature - int(first_tmp["fcstValue"])) <= 3
    assert forecast["body"]["totalCount"] == len(items_of(forecast))


@pytest.mark.slow
def test_chain_15_address_to_mid_term_land_and_temperature_forecasts(live):
    land_id, ta_id = kma.mid_region_ids("경기도 수원시 팔달구 인계동")
    tm_fc = "202611180600"  # the newest issuance at 14:20
    land = live("https://apis.data.go.kr/1360000/MidFcstInfoService/getMidLandFcst", regId=land_id, tmFc=tm_fc)
    temps = live("https://apis.data.go.kr/1360000/MidFcstInfoService/getMidTa", regId=ta_id, tmFc=tm_fc)
    land_item, ta_item = items_of(land)[0], items_of(temps)[0]
    assert (land_item["regId"], ta_item["regId"]) == ("11B00000", "11B20601")
    assert set(range(4, 11)) == {int(k[5:]) for k in ta_item if k.startswith("taMax") and k[5:].isdigit()}
    assert {k[2:].removesuffix("Am").removesuffix("Pm") for k in land_item if k.startswith("wf")} == {
        str(d) for d in range(4, 11)
    }

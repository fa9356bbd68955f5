"""Candidate generation on synthetic catalogs: time, peak memory and growth with the number of tools.

Each size runs in a fresh process, so peak RSS is that size's own. A synthetic catalog mimics data.go.kr:
providers with a few dozen services each, tools with 2-5 data parameters and 8-25 record fields drawn from a
shared pool of code concepts (names spelled per provider: camelCase, snake_case, upper case; Korean
descriptions; value shapes such as 5- or 10-digit codes, prefixed ids, dates, coordinates), plus noise
fields. Growth is reported as the exponent b in time ~ tools^b between consecutive sizes (1 = linear).

    .venv/bin/python -m tests.perf.edge_candidates                  # 1,000 and 10,000 tools
    .venv/bin/python -m tests.perf.edge_candidates --sizes 1000 3000 10000 --json out.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SYLLABLES = (
    "가나다라마바사아자차카타파하거너더러머버서어저처커터퍼허고노도로모보소오조초코토포호구누두루무부수우주추쿠투푸후"
)
WORDS = [
    "코드",
    "번호",
    "명칭",
    "일자",
    "좌표",
    "지역",
    "정류소",
    "측정소",
    "기관",
    "시설",
    "건물",
    "면적",
    "금액",
    "인구",
    "세대",
]


def _word(rng: random.Random, length: int) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(length))


def _spell(name: str, style: int) -> str:
    parts = name.split("_")
    if style == 0:
        return parts[0] + "".join(p.title() for p in parts[1:])
    if style == 1:
        return name
    return name.upper()


def _value(rng: random.Random, shape: tuple) -> str:
    kind = shape[0]
    if kind == "digits":
        return "".join(rng.choice("0123456789") for _ in range(shape[1]))
    if kind == "prefixed":
        return shape[1] + "".join(rng.choice("0123456789") for _ in range(7))
    if kind == "date":
        return f"20{rng.randint(10, 26)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}"
    if kind == "lat":
        return f"{rng.uniform(33.5, 38.5):.6f}"
    if kind == "lon":
        return f"{rng.uniform(126.0, 129.5):.6f}"
    return _word(rng, 3)


def synthetic_catalog(n_tools: int, seed: int = 7):
    from graphs.engine.candidates import FieldInfo, ParamInfo, ToolInfo

    rng = random.Random(seed)
    shapes = [
        ("digits", 5),
        ("digits", 10),
        ("digits", 2),
        ("digits", 8),
        ("prefixed", "DJB"),
        ("prefixed", "GGB"),
        ("date",),
        ("text",),
    ]
    # Enough word stems that a bigger catalog does not simply reuse the same few names.
    stems = [
        "sido",
        "sgg",
        "umd",
        "node",
        "city",
        "route",
        "stn",
        "bld",
        "hosp",
        "stat",
        "area",
        "cntnt",
        "org",
        "tbl",
        "item",
        "fclt",
        "law",
        "corp",
        "prdlst",
        "rcept",
        "mtst",
        "ctpv",
        "dong",
        "lot",
        "plan",
        "sply",
        "pblanc",
        "house",
        "apt",
        "trade",
        "rent",
        "drug",
        "entp",
        "school",
        "univ",
        "court",
        "case",
        "bill",
        "assembly",
        "member",
        "vote",
        "elect",
        "park",
        "road",
        "bridge",
        "river",
        "dam",
        "port",
        "ship",
        "air",
        "flight",
        "train",
        "bus",
        "taxi",
        "bike",
        "fuel",
        "power",
        "water",
        "waste",
        "forest",
    ]
    combos = [(a, b, c) for a in stems for b in stems if a != b for c in ("cd", "id", "no", "nm", "code")]
    rng.shuffle(combos)
    concepts = []
    for a, b, suffix in combos[: max(60, n_tools // 8)]:
        description = f"{_word(rng, 2)} {rng.choice(WORDS)} {_word(rng, 3)}"
        concepts.append((f"{a}_{b}_{suffix}", description, rng.choice(shapes)))
    providers = [f"apis.data.go.kr/{1000000 + i}" for i in range(max(5, n_tools // 40))]
    tools = []
    for t in range(n_tools):
        provider = rng.choice(providers)
        style = providers.index(provider) % 3
        used = rng.sample(concepts, rng.randint(6, 18))
        params = [ParamInfo("pageNo", False, "페이지 번호", ("1",)), ParamInfo("numOfRows", False, "행 수", ("10",))]
        for name, description, shape in used[: rng.randint(2, 5)]:
            params.append(ParamInfo(_spell(name, style), rng.random() < 0.7, description, (_value(rng, shape),)))
        fields = [
            FieldInfo(_spell(name, (style + 1) % 3), description, (_value(rng, shape),))
            for name, description, shape in used
        ]
        for k in range(rng.randint(2, 7)):
            fields.append(
                FieldInfo(
                    f"{rng.choice(['value', 'amount', 'count', 'rate'])}{k}",
                    f"{_word(rng, 2)} {rng.choice(WORDS)}",
                    (str(rng.randint(0, 9999)),),
                )
            )
        if rng.random() < 0.15:
            fields += [
                FieldInfo("mapx", "경도", (_value(rng, ("lon",)),)),
                FieldInfo("mapy", "위도", (_value(rng, ("lat",)),)),
            ]
        tools.append(
            ToolInfo(
                id=t,
                name=f"tool_{t}",
                provider=provider,
                title=_word(rng, 4),
                params=tuple(params),
                fields=tuple(fields),
            )
        )
    return tools


def measure_one(n_tools: int) -> dict:
    """Run in a fresh process: build the catalog, then time generate_candidates and read the peak RSS."""
    from graphs.engine.candidates import generate_candidates

    tools = synthetic_catalog(n_tools)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    candidates = generate_candidates(tools)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "tools": n_tools,
        "fields": sum(len(t.fields) for t in tools),
        "params": sum(len(t.params) for t in tools),
        "candidates": len(candidates),
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(peak / 1024, 1),
        "added_rss_mb": round((peak - before) / 1024, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure_one(args.one)))
        return 0
    results = []
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for size in args.sizes:
        out = subprocess.run(
            [sys.executable, "-m", "tests.perf.edge_candidates", "--one", str(size)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        row = json.loads(out.stdout.strip().splitlines()[-1])
        results.append(row)
        print(
            f"{row['tools']:>6} tools  {row['fields']:>7} fields  {row['params']:>6} params  "
            f"{row['candidates']:>7} candidates  {row['seconds']:>7.2f} s  peak RSS {row['peak_rss_mb']:>7.1f} MB "
            f"(+{row['added_rss_mb']} MB for matching)"
        )
    for small, large in zip(results, results[1:], strict=False):
        exponent = math.log(large["seconds"] / small["seconds"]) / math.log(large["tools"] / small["tools"])
        print(f"growth {small['tools']} -> {large['tools']} tools: time ~ tools^{exponent:.2f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

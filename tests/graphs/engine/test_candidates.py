"""The candidate matcher on a small hand-made catalog: aliases with transforms, descriptions, shapes,
coordinate pairs with projections, per-target limits and provider diversity."""

from graphs.engine.candidates import FieldInfo, MatchConfig, ParamInfo, ToolInfo, generate_candidates


def regions(tool_id="regions", provider="mois"):
    return ToolInfo(
        id=tool_id,
        name="get_stan_regin_cd_list",
        provider=provider,
        fields=(
            FieldInfo("region_cd", "지역코드 (법정동코드 10자리)", ("1111000000",), ("1111010100", "1168010300")),
            FieldInfo("locallow_nm", "최하위 지역명", ("청운동",)),
        ),
        params=(ParamInfo("locatadd_nm", False, "지역주소명", ("서울특별시 종로구",)),),
    )


def trades(tool_id="trades", provider="molit"):
    return ToolInfo(
        id=tool_id,
        name="get_rtms_data_svc_apt_trade",
        provider=provider,
        fields=(
            FieldInfo("sggCd", "법정동시군구코드", ("11680",)),
            FieldInfo("dealAmount", "거래금액(만원)", ("  82,500",)),
        ),
        params=(
            ParamInfo("pageNo", False, "페이지 번호", ("1",)),
            ParamInfo("LAWD_CD", True, "지역코드 (법정동코드 앞 5자리)", ("11680",)),
            ParamInfo("DEAL_YMD", True, "계약월 (YYYYMM)", ("202610",)),
        ),
    )


def by_key(candidates):
    return {(c.source_tool, c.source_field, c.target_tool, c.target_param): c for c in candidates}


def test_it_links_the_legal_dong_code_to_lawd_cd_with_a_five_digit_slice():
    found = by_key(generate_candidates([regions(), trades()]))
    link = found[("regions", "region_cd", "trades", "LAWD_CD")]
    assert link.transform == "slice:0:5" and link.proposer == "rules"
    assert link.signals["name"] == 0.95 and link.signals["shape"] >= 0.7 and link.score >= 0.5
    assert link.score == link.signals["total"]
    # Paging parameters are never targets, and no tool links to itself.
    assert not [c for c in found.values() if c.target_param == "pageNo" or c.source_tool == c.target_tool]


def test_it_drops_pairs_below_the_threshold():
    found = by_key(generate_candidates([regions(), trades()]))
    assert ("trades", "dealAmount", "regions", "locatadd_nm") not in found
    assert all(c.score >= 0.3 for c in found.values())


def test_observed_overlap_raises_a_score():
    plain = trades()
    seen = ToolInfo(
        id="trades",
        name=plain.name,
        provider=plain.provider,
        fields=plain.fields,
        params=(ParamInfo("LAWD_CD", True, "지역코드", ("11680",), ("11110", "11680")),),
    )
    without = by_key(generate_candidates([regions(), plain]))[("regions", "region_cd", "trades", "LAWD_CD")]
    with_overlap = by_key(generate_candidates([regions(), seen]))[("regions", "region_cd", "trades", "LAWD_CD")]
    assert with_overlap.signals["overlap"] > 0 and with_overlap.score > without.score


def test_it_pairs_coordinates_and_projects_between_frames():
    juso = ToolInfo(
        id="coord",
        name="addr_coord_api",
        provider="juso",
        fields=(FieldInfo("entX", "X좌표", ("953901.8",)), FieldInfo("entY", "Y좌표", ("1952031.5",))),
    )
    kma = ToolInfo(
        id="kma",
        name="get_vilage_fcst",
        provider="kma",
        params=(ParamInfo("nx", True, "예보지점 X 좌표", ("60",)), ParamInfo("ny", True, "예보지점 Y 좌표", ("127",))),
    )
    found = by_key(generate_candidates([juso, kma]))
    pair = found[("coord", "entX,entY", "kma", "nx,ny")]
    assert pair.transform == "project:utmk:kma" and pair.signals["shape"] == 1.0


def test_an_easting_never_fills_a_northing():
    # Korea TM in, Korea TM out: tmX -> tmX is a link, tmX -> tmY a swap (AirKorea would still answer).
    tm_source = ToolInfo(
        id="tm",
        name="get_tm_stdr_crdnt",
        provider="airkorea",
        fields=(FieldInfo("tmX", "TM X 좌표", ("198056.0",)), FieldInfo("tmY", "TM Y 좌표", ("451853.8",))),
    )
    nearby = ToolInfo(
        id="nearby",
        name="get_nearby_msrstn_list",
        provider="airkorea",
        params=(ParamInfo("tmX", True, "TM X 좌표", ("198056.0",)), ParamInfo("tmY", True, "TM Y 좌표", ("451853.8",))),
    )
    found = by_key(generate_candidates([tm_source, nearby]))
    # Values that only mean something together bind together: one two-field edge, never tmX alone.
    pair = found[("tm", "tmX,tmY", "nearby", "tmX,tmY")]
    assert pair.transform == "pair" and pair.signals["domains"] == [["tm.x", "tm.y"], ["tm.x", "tm.y"]]
    assert not [key for key in found if "," not in key[1]]


def test_a_target_keeps_its_best_candidates_with_at_most_three_from_one_provider():
    sources = [trades(tool_id=f"molit{i}", provider="molit") for i in range(6)] + [regions()]
    target = ToolInfo(
        id="title",
        name="get_br_title_info",
        provider="hub",
        params=(ParamInfo("sigunguCd", True, "시군구코드", ("11680",)),),
    )
    found = [c for c in generate_candidates([*sources, target]) if c.target_tool == "title"]
    molit = [c for c in found if str(c.source_tool).startswith("molit")]
    assert len(molit) == 3 and any(c.source_tool == "regions" for c in found)
    narrow = [
        c
        for c in generate_candidates([*sources, target], config=MatchConfig(per_target=2, per_provider=1))
        if c.target_tool == "title"
    ]
    assert len(narrow) == 2 and {c.source_tool for c in narrow} == {"molit0", "regions"}

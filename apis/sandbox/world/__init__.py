"""The shared sandbox world: real regions and deterministic buildings that every family draws from,
so values chain across APIs (a LAWD_CD from 법정동코드 finds trades, a trade's 지번 finds its building)."""

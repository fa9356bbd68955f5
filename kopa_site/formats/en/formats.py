# One format for every page in every language (issue 18): Django's own locale formats would print
# "2026년 12월 3일 4:16 오후" in Korean and "Dec. 3, 2026, 4:16 p.m." in English.
from kopa_site.formats.shared import *  # noqa: F403

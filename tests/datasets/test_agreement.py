"""The agreement engine: percent agreement, Cohen's kappa and Krippendorff's alpha against worked examples."""

import pytest

from datasets.engine.agreement import cohens_kappa, krippendorff_alpha, percent_agreement
from datasets.engine.jsondiff import json_diff


def test_percent_agreement_counts_agreeing_pairs():
    assert percent_agreement([["a", "a"], ["a", "r"], ["r", "r"], ["a", "a", "r"]]) == pytest.approx(3 / 6)
    assert percent_agreement([["a"]]) is None


def test_cohens_kappa_matches_the_textbook_example():
    # Wikipedia's example: 50 items, yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> kappa 0.4.
    pairs = [("y", "y")] * 20 + [("y", "n")] * 5 + [("n", "y")] * 10 + [("n", "n")] * 15
    assert cohens_kappa(pairs) == pytest.approx(0.4)


def test_cohens_kappa_edge_cases():
    assert cohens_kappa([]) is None
    assert cohens_kappa([("a", "a")] * 5) == 1.0
    assert cohens_kappa([("a", "r"), ("r", "a")]) == pytest.approx(-1.0)


def test_krippendorff_alpha_reproduces_the_papers_nominal_example():
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 observers, 12 units, missing values;
    # nominal alpha = 0.743. The last unit has one rating and carries no information.
    units = [
        ["1", "1", "1"],
        ["2", "2", "3", "2"],
        ["3", "3", "3", "3"],
        ["3", "3", "3", "3"],
        ["2", "2", "2", "2"],
        ["1", "2", "3", "4"],
        ["4", "4", "4", "4"],
        ["1", "1", "2", "1"],
        ["2", "2", "2", "2"],
        ["5", "5", "5"],
        ["1", "1"],
        ["3"],
    ]
    assert krippendorff_alpha(units) == pytest.approx(0.743, abs=5e-4)
    assert krippendorff_alpha([["a", "a"], ["r", "r"]]) == 1.0
    assert krippendorff_alpha([["a", "a"]]) is None
    assert krippendorff_alpha([["a", "r"], ["r", "a"]]) < 0


def test_json_diff_names_changed_added_and_removed_paths():
    changes = json_diff({"records": [{"n": 1}], "ok": True}, {"records": [{"n": 2}, {"n": 3}], "ok": True, "x": 1})
    assert [(c.path, c.kind) for c in changes] == [("records[0].n", "changed"), ("records[1]", "added"), ("x", "added")]
    assert json_diff({"a": 1}, {"a": 1}) == []

"""benchmarks/report.py: the README's performance table from the recorded result files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarks import report
from tests.conftest import ROOT

RESULTS = ROOT / "benchmarks" / "results"
# recorded runs: every benchmark at 4b016a9, then W2 and W4 again at 30a897f (share and
# transactions with --only), and one run on a dirty tree at 876b83c
RECORDED = [
    "produce-4b016a9",
    "read-4b016a9",
    "restart-4b016a9",
    "memory-4b016a9",
    "share-4b016a9",
    "transactions-4b016a9",
    "share-30a897f",
    "transactions-30a897f",
    "produce-876b83c",
    "all-4b016a9",
]


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    for name in RECORDED:
        shutil.copy(RESULTS / f"{name}.json", tmp_path / f"{name}.json")
    return tmp_path


def test_each_row_comes_from_the_newest_file_that_measured_it(recorded: Path) -> None:
    lines = report.lines(report.load(recorded))
    assert len(lines) == len(report.ROWS)
    by_row = {line.workload: line for line in lines}
    w2 = next(w for w in by_row if w.startswith("W2 share groups"))
    assert by_row[w2].commit == "30a897f"
    assert by_row[w2].measured == "58,800 records/s"
    assert by_row[w2].target == "≥ 60,000 records/s (missed)"
    w4 = next(w for w in by_row if w.startswith("W4 transactions"))
    assert by_row[w4].commit == "30a897f"
    assert by_row[w4].measured == "177 commits/s, commit p99 16 ms"
    assert by_row[w4].target == "≥ 1,000 commits/s (missed); ≤ 25 ms"
    # the 30a897f share run measured W2 only: W3 and memory come from the older full run
    w3 = next(w for w in by_row if w.startswith("W3 redelivery"))
    assert by_row[w3].commit == "4b016a9"
    assert by_row[w3].measured == "0.005 s, 0 lost, 5,000 redeliveries = releases"
    memory = next(w for w in by_row if w.startswith("share memory"))
    assert (by_row[memory].commit, by_row[memory].measured) == ("4b016a9", "79 / 350 MB")
    # the dirty 876b83c produce run is newer in nothing and ignored anyway
    produce = next(w for w in by_row if w.startswith("produce, 1 / 4 partitions"))
    assert by_row[produce].commit == "4b016a9"
    assert by_row[produce].measured == "156,000 / 118,000 records/s"
    read = next(w for w in by_row if w.startswith("read by offset"))
    assert by_row[read].target == "≥ 200,000 records/s (missed)"


def test_dirty_and_quick_runs_and_the_aggregate_are_passed_over(recorded: Path) -> None:
    newer = json.loads((recorded / "produce-4b016a9.json").read_text())
    newer["date"] = "2099-01-01T00:00:00+00:00"
    newer["commit"] = "f" * 40
    newer["dirty"] = True
    (recorded / "produce-fffffff.json").write_text(json.dumps(newer))
    newer["dirty"], newer["parameters"]["quick"] = False, True
    (recorded / "produce-eeeeeee.json").write_text(json.dumps(newer))
    results = report.load(recorded)
    assert "all" not in results
    assert [d["commit"][:7] for d in results["produce"]] == ["4b016a9"]


def test_the_markdown_names_every_commit_it_uses(recorded: Path) -> None:
    text = report.markdown(report.load(recorded))
    assert text.startswith("Measured on 4b016a9 and 30a897f")
    table = [line for line in text.splitlines() if line.startswith("| ")]
    assert table[0] == "| Workload | Measured | Target | Commit |"
    assert len(table) == 1 + len(report.ROWS)
    assert all(line.endswith(("| 4b016a9 |", "| 30a897f |")) for line in table[1:])


def test_no_results_is_said_plainly(tmp_path: Path) -> None:
    assert report.markdown(report.load(tmp_path)) == "No benchmark results recorded yet."


def test_the_readme_block_is_replaced_between_its_markers() -> None:
    text = f"# A\n\nbefore\n{report.BEGIN}\nold table\n{report.END}\nafter\n"
    assert report.replace_block(text, "new") == (
        f"# A\n\nbefore\n{report.BEGIN}\nnew\n{report.END}\nafter\n"
    )
    with pytest.raises(ValueError, match="markers"):
        report.replace_block("no markers", "new")


def test_the_readme_table_is_the_report_of_the_recorded_results() -> None:
    readme = (ROOT / "README.md").read_text()
    expected = report.replace_block(readme, report.markdown(report.load()))
    assert readme == expected, (
        "the README's performance table is not the report of benchmarks/results: run "
        "python -m benchmarks.report --readme README.md"
    )

"""The example pipeline of the README (examples/spark_running_totals.py), run as written:
running totals per customer, exactly once across a failed run and a restart."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.spark.conftest import Sluice

# the sink's driver commits every task's transaction at once (commit-all), which Kafka cannot
pytestmark = pytest.mark.embedded_only("commit_all")


def _example() -> Any:
    spec = importlib.util.spec_from_file_location(
        "spark_running_totals", ROOT / "examples" / "spark_running_totals.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _latest_totals(sluice: Sluice, topic: str) -> dict[str, dict[str, Any]]:
    """The last update of each customer, in offset order per partition (a key's partition)."""
    latest: dict[str, dict[str, Any]] = {}
    for r in sorted(sluice.read_all(topic), key=lambda r: (r["partition"], r["offset"])):
        latest[r["key"]] = json.loads(r["value"])
    return latest


def test_the_example_pipeline_keeps_running_totals_exactly_once(
    spark: Any, sluice: Sluice, tmp_path: Path
) -> None:
    example = _example()
    orders, totals = sluice.topic(2), sluice.topic(2)
    checkpoint = str(tmp_path / "ck")

    def run() -> None:
        q = example.running_totals(spark, sluice.url, orders, totals, checkpoint, once=True)
        q.awaitTermination(120)
        assert q.exception() is None

    sluice.produce(
        orders,
        [
            {"key": c, "value": json.dumps({"customer": c, "amount": a})}
            for c, a in [("ada", 10.0), ("bob", 2.5), ("ada", 5.25), ("cy", 1.0)]
        ],
    )
    run()
    assert _latest_totals(sluice, totals) == {
        "ada": {"customer": "ada", "orders": 2, "total": 15.25},
        "bob": {"customer": "bob", "orders": 1, "total": 2.5},
        "cy": {"customer": "cy", "orders": 1, "total": 1.0},
    }
    first = len(sluice.read_all(totals))
    sluice.produce(
        orders,
        [
            {"key": "bob", "value": json.dumps({"customer": "bob", "amount": 7.5})},
            {"key": "x", "value": "not json"},
        ],
    )
    run()
    assert len(sluice.read_all(totals)) == first + 3  # the whole table again, once
    latest = _latest_totals(sluice, totals)
    assert latest["bob"] == {"customer": "bob", "orders": 2, "total": 10.0}  # bad record skipped
    assert latest["ada"]["total"] == 15.25 and set(latest) == {"ada", "bob", "cy"}
    run()  # nothing new: no micro-batch, nothing written
    assert len(sluice.read_all(totals)) == first + 3

"""The README's Spark examples, run as written (the server's address and the checkpoint
directory replaced by the test's)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.spark.conftest import Sluice

# the sink's driver commits every task's transaction at once (commit-all), which Kafka cannot
pytestmark = pytest.mark.embedded_only("commit_all")


def _blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("\n## Spark\n") :]
    section = section[: section.index("\n## ", 1)]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_readme_batch_read_and_streaming_pipeline(
    spark: Any, sluice: Sluice, tmp_path: Path, capsys: Any
) -> None:
    read, stream = _blocks()
    for name in ("orders", "orders-upper"):
        sluice.http.delete(f"/v1/topics/{name}")
        sluice.topic(2, name=name)
    sluice.produce("orders", [{"key": f"k{i}", "value": f"order {i}"} for i in range(20)])

    env: dict[str, Any] = {"spark": spark}
    exec(read.replace("http://127.0.0.1:8080", sluice.url), env)
    assert env["df"].count() == 20
    assert "order 1" in capsys.readouterr().out  # df...show() printed the values

    checkpoint = str(tmp_path / "ck")
    exec(
        stream.replace("/var/lib/jobs/orders-upper", checkpoint),
        {"spark": spark, "url": sluice.url},
    )
    (query,) = spark.streams.active
    try:
        query.processAllAvailable()
    finally:
        query.stop()
    out = sorted(r["value"] for r in sluice.read_all("orders-upper"))
    assert out == sorted(f"ORDER {i}" for i in range(20))

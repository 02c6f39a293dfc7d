"""The sink's driver-side abort, called as Spark calls it, against the real server: it ends every
transaction its tasks opened even when none of them reported (all failed, or were still running
when the job failed), for a batch job and for a stream."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest
from sluice_spark import writer
from sluice_spark.options import parse

from tests.spark.conftest import Sluice


def _rows() -> pa.RecordBatch:
    return pa.RecordBatch.from_arrays([pa.array([f"v{i}" for i in range(10)])], names=["value"])


@pytest.mark.parametrize("kind", ["batch", "stream"])
def test_an_abort_without_any_task_message_ends_the_tasks_transactions(
    sluice: Sluice, kind: str
) -> None:
    dst = sluice.topic(2)
    opts = parse({"url": sluice.url, "topic": dst})
    w: Any = (
        writer.BatchWriter(opts, "utf8") if kind == "batch" else writer.StreamWriter(opts, "utf8")
    )
    # a task that wrote and whose message never reached the driver (outside Spark: task 0)
    writer.write_task(opts, w.prefix, "utf8", iter([_rows()]), "query-1")
    assert sluice.open_transactions(w.prefix) == [f"{w.prefix}-0"]
    if kind == "batch":
        w.abort([None, None])
    else:
        w.abort([None, None], 0)
    assert sluice.open_transactions(w.prefix) == []
    assert sluice.read_all(dst, committed=False) != []
    assert sluice.read_all(dst) == []

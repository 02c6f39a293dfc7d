"""A follower that cannot read its topic (a node down) says so once, without a traceback, and
once more when reading works again; the records read are applied in order."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from app.clock import SystemClock
from app.errors import ErrorCode, SluiceError
from app.kafka.cluster import Cluster
from app.kafka.follower import Follower
from app.kafka.protocol.errors import ConnectionClosedError
from app.reads import ReadAnswer
from app.storage.log import ReadResult
from app.storage.record import StoredRecord


class Reads:
    """Fails ``failures`` reads, then answers one record a read."""

    def __init__(self, failures: list[Exception]) -> None:
        self.failures = failures
        self.reads = 0

    async def read(self, topic: str, partition: int, offset: int, **_: Any) -> ReadAnswer:
        self.reads += 1
        if self.failures:
            raise self.failures.pop(0)
        await asyncio.sleep(0)
        rec = StoredRecord(offset, 0, b"k", b"v%d" % offset, ())
        return ReadAnswer(ReadResult([rec], offset + 1), offset + 1, offset + 1, 0)


async def test_a_run_of_failed_reads_is_logged_once_and_its_end_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    taken: list[bytes | None] = []
    cluster = Cluster("127.0.0.1:9", retry_backoff=0.0)
    follower = Follower(cluster, SystemClock(), "__sluice_test", 0, lambda k, v: taken.append(v))
    failures: list[Exception] = [
        ConnectionClosedError(f"127.0.0.1:9 refused ({i})") for i in range(5)
    ]
    failures.append(SluiceError(ErrorCode.CLUSTER_UNAVAILABLE, "no leader"))
    reads = Reads(failures)
    follower._reads = reads  # type: ignore[assignment]
    caplog.set_level(logging.DEBUG, logger="sluice.kafka.follower")
    task = asyncio.create_task(follower._follow())
    try:
        await asyncio.wait_for(follower.applied(2), 5)
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert taken[:3] == [b"v0", b"v1", b"v2"]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and warnings[0].exc_info is None
    assert "reading __sluice_test failed" in warnings[0].getMessage()
    assert "refused (0)" in warnings[0].getMessage()
    again = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert again == ["reading __sluice_test again, after 6 failed reads"]
    assert all(r.exc_info is None for r in caplog.records)

"""The data source's options: read once, checked once, kept as one frozen value.

Spark hands options over as strings under case-insensitive names; every option is parsed here,
so a typo in a value fails when the query is planned, naming the option, and not later in a
task. Names are the ones in the README's options table.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

ISOLATION_LEVELS = ("read_committed", "read_uncommitted")
WIRES = ("batches", "json")  # how the sink sends records (the option wire)
DEFAULT_WIRE = "batches"
_ID_CHARS = re.compile(r"^[A-Za-z0-9._-]+$")


class OptionError(ValueError):
    """An option is missing or malformed; the message names it."""


@dataclass(frozen=True, slots=True)
class Options:
    url: str
    topic: str
    partitions: tuple[int, ...] | None = None
    starting_offsets: str = "earliest"
    ending_offsets: str = "latest"
    starting_timestamp: int | None = None
    ending_timestamp: int | None = None
    isolation_level: str = "read_committed"
    fetch_max_records: int = 5000
    fetch_max_bytes: int = 16 * 1024 * 1024
    max_records_per_partition: int | None = None
    max_records_per_trigger: int | None = None
    fail_on_data_loss: bool = True
    share_group: str | None = None
    share_consumers: int = 2
    share_max_records: int = 5000
    share_wait_ms: int = 500
    share_flush_batch: bool = True
    share_release_on_stop: bool = False
    transactional_id_prefix: str = "spark"
    transaction_timeout_ms: int = 300_000
    produce_batch_records: int = 5000
    wire: str = DEFAULT_WIRE
    write_id: str | None = None
    api_key: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    request_timeout_ms: int = 30_000
    retries: int = 5
    # test hooks, leading underscore: fail a write task on purpose (tests of retries and aborts)
    fail_partition: int | None = None
    fail_attempts: int = 0
    fail_after_commit: bool = False

    @property
    def http_headers(self) -> dict[str, str]:
        out = dict(self.headers)
        if self.api_key:
            out["Authorization"] = f"Bearer {self.api_key}"
        return out


def parse(raw: Mapping[str, str], *, need_topic: bool = True) -> Options:
    """``raw`` as Spark gives it (names in any case)."""
    opts = {k.lower(): v for k, v in raw.items()}

    def get(name: str) -> str | None:
        v = opts.get(name.lower())
        return None if v is None or v == "" else str(v)

    def integer(name: str, default: int | None, lo: int, hi: int = 2**62) -> int | None:
        v = get(name)
        if v is None:
            return default
        try:
            n = int(v)
        except ValueError:
            raise OptionError(f"option {name}: {v!r} is not an integer") from None
        if not lo <= n <= hi:
            raise OptionError(f"option {name}: {n} is not from {lo} to {hi}")
        return n

    def boolean(name: str, default: bool) -> bool:
        v = get(name)
        if v is None:
            return default
        if v.lower() in ("true", "1", "yes"):
            return True
        if v.lower() in ("false", "0", "no"):
            return False
        raise OptionError(f"option {name}: {v!r} is not true or false")

    def required_int(name: str, default: int, lo: int, hi: int = 2**62) -> int:
        n = integer(name, default, lo, hi)
        assert n is not None
        return n

    url = get("url")
    if url is None:
        raise OptionError(
            "option url is required (the server's base URL, e.g. http://127.0.0.1:8080)"
        )
    if not url.startswith(("http://", "https://")):
        raise OptionError(f"option url: {url!r} must start with http:// or https://")
    topic = get("topic") or ""
    if need_topic and not topic:
        raise OptionError("option topic is required")
    partitions = None
    if (ps := get("partitions")) is not None:
        try:
            partitions = tuple(sorted({int(p) for p in ps.split(",") if p.strip()}))
        except ValueError:
            raise OptionError(f"option partitions: {ps!r} is not a list like 0,2") from None
        if not partitions or partitions[0] < 0:
            raise OptionError(f"option partitions: {ps!r} names no partition")
    isolation = (get("isolationLevel") or "read_committed").lower()
    if isolation not in ISOLATION_LEVELS:
        raise OptionError(f"option isolationLevel: {isolation!r} is not one of {ISOLATION_LEVELS}")
    prefix = get("transactionalIdPrefix") or "spark"
    if not _ID_CHARS.match(prefix) or len(prefix) > 120:
        raise OptionError(
            f"option transactionalIdPrefix: {prefix!r} must be 1 to 120 of A-Z a-z 0-9 . _ -"
        )
    wire = (get("wire") or DEFAULT_WIRE).lower()
    if wire not in WIRES:
        raise OptionError(f"option wire: {wire!r} is not one of {WIRES}")
    write_id = get("writeId")
    if write_id is not None and len(write_id) > 200:
        raise OptionError("option writeId: at most 200 characters")
    headers = {
        k.removeprefix("header."): str(v) for k, v in raw.items() if k.lower().startswith("header.")
    }
    fail_partition = integer("_failPartition", None, 0)
    return Options(
        url=url.rstrip("/"),
        topic=topic,
        partitions=partitions,
        starting_offsets=(get("startingOffsets") or "earliest").strip(),
        ending_offsets=(get("endingOffsets") or "latest").strip(),
        starting_timestamp=integer("startingTimestamp", None, 0),
        ending_timestamp=integer("endingTimestamp", None, 0),
        isolation_level=isolation,
        fetch_max_records=required_int("fetchMaxRecords", 5000, 1, 1_000_000),
        fetch_max_bytes=required_int("fetchMaxBytes", 16 * 1024 * 1024, 1024, 64 * 1024 * 1024),
        max_records_per_partition=integer("maxRecordsPerPartition", None, 1),
        max_records_per_trigger=integer("maxRecordsPerTrigger", None, 1),
        fail_on_data_loss=boolean("failOnDataLoss", True),
        share_group=get("shareGroup"),
        share_consumers=required_int("shareConsumers", 2, 1, 10_000),
        share_max_records=required_int("shareMaxRecords", 5000, 1, 1_000_000),
        share_wait_ms=required_int("shareWaitMs", 500, 0, 60_000),
        share_flush_batch=boolean("shareFlushBatch", True),
        share_release_on_stop=boolean("shareReleaseOnStop", False),
        transactional_id_prefix=prefix,
        transaction_timeout_ms=required_int("transactionTimeoutMs", 300_000, 1000),
        produce_batch_records=required_int("produceBatchRecords", 5000, 1, 10_000),
        wire=wire,
        write_id=write_id,
        api_key=get("apiKey"),
        headers=headers,
        request_timeout_ms=required_int("requestTimeoutMs", 30_000, 100),
        retries=required_int("retries", 5, 0, 100),
        fail_partition=fail_partition,
        fail_attempts=required_int("_failAttempts", 0, 0),
        fail_after_commit=boolean("_failAfterCommit", False),
    )

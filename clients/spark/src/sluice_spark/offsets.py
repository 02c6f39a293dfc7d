"""Offsets: the JSON a user writes in ``startingOffsets``/``endingOffsets``, the JSON a stream
checkpoints, and the ranges a read is split into. No I/O: the partitions' bounds come in.

The contract, the same in both places (Spark stores it in ``<checkpoint>/offsets/<batch>``, so
it must stay readable by later versions):

    {"<topic>": {"<partition>": <offset>, ...}}

In a user's option, ``-2`` stands for the earliest offset and ``-1`` for the latest; a
checkpointed offset is always the next offset to read (never negative).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import orjson

from sluice_spark.options import OptionError

EARLIEST = -2
LATEST = -1


@dataclass(frozen=True, slots=True)
class Bounds:
    """One partition's offsets as the server describes it."""

    log_start: int
    high_watermark: int
    last_stable: int

    def end(self, isolation_level: str) -> int:
        """The end a reader may read to: the LSO under read_committed, else the HW."""
        return self.last_stable if isolation_level == "read_committed" else self.high_watermark


@dataclass(frozen=True, slots=True)
class Range:
    """Offsets ``[start, end)`` of one partition: one Spark input partition."""

    topic: str
    partition: int
    start: int
    end: int
    # the start is a guess (a partition the stream had not seen, or a topic created again):
    # offsets gone below the log start are skipped, not data loss
    from_log_start: bool = False


def parse_spec(spec: str, topic: str, option: str) -> str | dict[int, int]:
    """``earliest``, ``latest``, or partition → offset (-2 earliest, -1 latest)."""
    if spec.lower() in ("earliest", "latest"):
        return spec.lower()
    try:
        doc = orjson.loads(spec)
    except orjson.JSONDecodeError:
        example = f'{{"{topic}": {{"0": 5}}}}'
        raise OptionError(
            f"option {option}: {spec!r} is not earliest, latest or JSON like {example}"
        ) from None
    if not isinstance(doc, dict):
        raise OptionError(f"option {option}: the JSON must be an object")
    per = doc.get(topic) if topic in doc else doc
    if not isinstance(per, dict) or any(not isinstance(v, int) for v in per.values()):
        raise OptionError(
            f'option {option}: expected {{"{topic}": {{"<partition>": <offset>}}}}, got {spec!r}'
        )
    try:
        out = {int(p): int(o) for p, o in per.items()}
    except ValueError:
        raise OptionError(f"option {option}: partition numbers must be integers") from None
    if any(o < EARLIEST for o in out.values()) or any(p < 0 for p in out):
        raise OptionError(f"option {option}: offsets are ≥ 0, or -2 (earliest) or -1 (latest)")
    return out


def resolve(
    spec: str | dict[int, int],
    bounds: Mapping[int, Bounds],
    isolation_level: str,
    *,
    default: str,
) -> dict[int, int]:
    """The offset of every partition in ``bounds`` (partitions a JSON spec leaves out take
    ``default``)."""
    out: dict[int, int] = {}
    for p, b in bounds.items():
        if isinstance(spec, str):
            o = EARLIEST if spec == "earliest" else LATEST
        else:
            o = spec.get(p, EARLIEST if default == "earliest" else LATEST)
        if o == EARLIEST:
            o = b.log_start
        elif o == LATEST:
            o = b.end(isolation_level)
        out[p] = o
    return out


def to_json(topic: str, offsets: Mapping[int, int]) -> dict[str, dict[str, int]]:
    return {topic: {str(p): o for p, o in sorted(offsets.items())}}


def from_json(doc: Mapping[str, object], topic: str) -> dict[int, int]:
    per = doc.get(topic)
    if not isinstance(per, dict):
        raise ValueError(
            f"checkpointed offsets {dict(doc)!r} are not of topic {topic!r}: a checkpoint "
            "belongs to the query that wrote it"
        )
    return {int(p): int(o) for p, o in per.items()}


def split(
    topic: str,
    start: Mapping[int, int],
    end: Mapping[int, int],
    max_records: int | None,
) -> list[Range]:
    """One range per partition with records between ``start`` and ``end``, cut into pieces of
    at most ``max_records`` offsets when given. A partition ``start`` does not name, or whose
    end lies below its start (the topic was deleted and created again, read on under
    ``failOnDataLoss=false``), is read from its log start."""
    out: list[Range] = []
    for p in sorted(end):
        hi = end[p]
        lo = start.get(p, 0)
        guess = p not in start or hi < lo
        lo = 0 if guess else lo
        if hi <= lo:
            continue
        step = max_records or hi - lo
        for s in range(lo, hi, step):
            out.append(Range(topic, p, s, min(s + step, hi), guess))
    return out


def limit(start: Mapping[int, int], latest: Mapping[int, int], max_records: int) -> dict[int, int]:
    """The end of a micro-batch of at most ``max_records`` offsets: every partition with records
    waiting gets one first (while the limit allows), the rest is shared in proportion to what
    each has waiting (rounding leftovers to those with the most), so no partition starves."""
    waiting = {p: max(0, latest[p] - start.get(p, 0)) for p in latest}
    total = sum(waiting.values())
    if total <= max_records:
        return dict(latest)
    share = dict.fromkeys(waiting, 0)
    for p in sorted((p for p in waiting if waiting[p]), key=lambda p: (-waiting[p], p)):
        if sum(share.values()) < max_records:
            share[p] = 1
    left = max_records - sum(share.values())
    rest = {p: waiting[p] - share[p] for p in waiting}
    rest_total = sum(rest.values())
    if left > 0 and rest_total > 0:
        extra = {p: r * left // rest_total for p, r in rest.items()}
        for p in extra:
            share[p] += extra[p]
        left -= sum(extra.values())
        for p in sorted(waiting, key=lambda p: (-(waiting[p] - share[p]), p)):
            if left <= 0:
                break
            if share[p] < waiting[p]:
                share[p] += 1
                left -= 1
    return {p: start.get(p, 0) + share[p] for p in latest}

"""A stream from a share group: queue semantics across Spark tasks, at least once.

Each micro-batch has ``shareConsumers`` tasks; task ``i`` of batch ``n`` of run ``r`` acquires
under the acquisition ids ``r:n:i:<page>``. A retried task fetches with the same ids, and the
server answers the records those ids still hold: the same records, not new ones (pages an
earlier attempt reached and this one did not are released). A batch of an earlier run that
Spark runs again after a restart takes back only what its ids still hold, never new records:
if the sink had committed it already, it drops the replay, and new records would be accepted
unwritten. The records are accepted once Spark commits the batch,
which it tells the source when it plans the next one (``commit``). So that the last batch does
not wait for more data to be accepted, the source plans one more batch, usually empty, while
the previous one still holds records (``shareFlushBatch``).

Offsets, as checkpointed: ``{"run": "<uuid>", "batch": <n>}``. A restarted query starts a new
run; the batch Spark replays still names the old one.

At least once, not exactly once: records the sink committed are delivered again if the query
stops or dies before they are accepted and their locks (the group's
``record_lock_duration_ms``) run out first, or if the server restarts (acquisitions are not
kept across a restart). Exactly once needs the offset source.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from pyspark import TaskContext
from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadLimit
from sluice.errors import GroupIdNotFoundError

from sluice_spark._http import Connection
from sluice_spark.options import Options
from sluice_spark.reader import bounds_of
from sluice_spark.rows import share_batch

if TYPE_CHECKING:
    import pyarrow as pa

log = logging.getLogger("sluice_spark")


class ShareSlot(InputPartition):
    """One task of a micro-batch; ``replay``: a batch of an earlier run that Spark runs again,
    which takes back only what its ids still hold."""

    def __init__(self, acquisition_id: str, replay_pages: tuple[int, ...] = ()) -> None:
        super().__init__(acquisition_id)
        self.acquisition_id = acquisition_id
        self.replay_pages = replay_pages

    @property
    def replay(self) -> bool:
        return bool(self.replay_pages)


def group_path(group: str) -> str:
    return f"/v1/share-groups/{quote(group, safe='')}"


def _check_offset(offset: dict[str, Any]) -> None:
    if "run" not in offset or "batch" not in offset:
        raise ValueError(
            f"the checkpoint holds {offset!r}, the offsets of a stream by offsets, not of a "
            "share group: a checkpoint belongs to the query that wrote it"
        )


def _page(acquisition_id: str) -> tuple[str, int]:
    """``<run>:<batch>:<task>:<page>`` → (``<run>:<batch>:<task>``, page)."""
    slot, page = acquisition_id.rsplit(":", 1)
    return slot, int(page)


def _batch(acquisition_id: str) -> int:
    return int(acquisition_id.split(":")[1])


def _held(conn: Connection, group: str, prefix: str) -> dict[str, int]:
    """Acquisition id → records it holds, of the ids starting with ``prefix``."""
    got = conn.get(f"{group_path(group)}/acquisitions", prefix=prefix)
    return {a["acquisition_id"]: a["records"] for a in got["acquisitions"]}


def _settle(conn: Connection, group: str, kind: str, **which: Any) -> Any:
    """Acknowledge (``kind``) all that ``acquisition_ids=`` or ``prefix=`` hold."""
    return conn.post(f"{group_path(group)}/acquisitions/acknowledge", {**which, "type": kind})


def _release_pages_from(conn: Connection, group: str, slot: str, first: int) -> None:
    """Release what an earlier attempt of this task acquired on pages this attempt did not
    reach (its first pages took new records): the batch's commit would accept them unread."""
    extra = [i for i in _held(conn, group, f"{slot}:") if _page(i)[1] >= first]
    if extra:
        _settle(conn, group, "release", acquisition_ids=extra)


class ShareStreamReader(DataSourceStreamReader):
    def __init__(self, opts: Options) -> None:
        assert opts.share_group is not None
        self.opts = opts
        self.group = opts.share_group
        self.run = uuid.uuid4().hex
        self.conn = Connection(opts)  # connects on first use

    def initialOffset(self) -> dict[str, Any]:
        return {"run": self.run, "batch": -1}

    def _work_waiting(self) -> bool:
        """Whether the group has records no one holds (or has not started on the topic)."""
        try:
            desc = self.conn.get(group_path(self.group))
        except GroupIdNotFoundError:
            return True  # the first batch creates it
        seen = {
            p["partition"]: p for p in desc.get("partitions", []) if p["topic"] == self.opts.topic
        }
        if any(sp["lag"] - sp["acquired"] > 0 for sp in seen.values()):
            return True
        # partitions the group has not started on, if they hold records
        return any(
            b.high_watermark > b.log_start
            for p, b in bounds_of(self.conn, self.opts).items()
            if p not in seen
        )

    def latestOffset(self, start: dict[str, Any], limit: ReadLimit) -> dict[str, Any]:
        _check_offset(start)
        nxt = {"run": self.run, "batch": start["batch"] + 1 if start["run"] == self.run else 0}
        if self._work_waiting():
            return nxt
        if (
            self.opts.share_flush_batch
            and start["batch"] >= 0
            and any(_held(self.conn, self.group, f"{start['run']}:{start['batch']}:").values())
        ):
            return nxt  # one more batch, so that Spark commits the last one (its records accepted)
        return start

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> list[ShareSlot]:
        _check_offset(end)
        batch = f"{end['run']}:{end['batch']}"
        if end["run"] == self.run:
            return [ShareSlot(f"{batch}:{i}") for i in range(self.opts.share_consumers)]
        # a batch of an earlier run, run again after a restart: its tasks as they were (whatever
        # shareConsumers says now), each taking back only what it still holds. New records
        # would be lost if the sink had committed this batch already (it drops the replay).
        pages: dict[str, list[int]] = {}
        for acquisition_id in _held(self.conn, self.group, f"{batch}:"):
            slot, page = _page(acquisition_id)
            pages.setdefault(slot, []).append(page)
        return [ShareSlot(slot, tuple(sorted(ps))) for slot, ps in sorted(pages.items())]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, ShareSlot)
        opts = self.opts
        path = group_path(self.group)
        left = opts.share_max_records
        page = 0
        with Connection(opts) as conn:
            if partition.replay:
                for n in partition.replay_pages:  # only what they still hold, never new records
                    got = conn.post(
                        f"{path}/fetch",
                        {
                            "acquisition_id": f"{partition.acquisition_id}:{n}",
                            "subscribed_topics": [opts.topic],
                            "encoding": "base64",
                            "held_only": True,
                        },
                    )
                    if got["records"]:
                        yield share_batch(got["records"])
                return
            while left > 0:
                got = conn.post(
                    f"{path}/fetch",
                    {
                        "acquisition_id": f"{partition.acquisition_id}:{page}",
                        "subscribed_topics": [opts.topic],
                        "max_records": min(left, opts.fetch_max_records),
                        "acquire_mode": "record_limit",  # shareMaxRecords is exact
                        "max_wait_ms": opts.share_wait_ms if page == 0 else 0,
                        "max_bytes": opts.fetch_max_bytes,
                        "encoding": "base64",
                    },
                )
                records = got["records"]
                if not records:
                    break
                yield share_batch(records)
                left -= len(records)
                page += 1
            ctx = TaskContext.get()
            if ctx is not None and ctx.attemptNumber() > 0:
                _release_pages_from(conn, self.group, partition.acquisition_id, page)

    def commit(self, end: dict[str, Any]) -> None:
        """Spark committed every batch up to ``end``: accept what they hold. Only those: after
        a restart the batch Spark replays next holds records of the same run."""
        _check_offset(end)
        if end["batch"] < 0:
            return
        held = _held(self.conn, self.group, f"{end['run']}:")
        done = [i for i in held if _batch(i) <= end["batch"]]
        if done:
            got = _settle(self.conn, self.group, "accept", acquisition_ids=done)
            log.debug("accepted %s records up to %s", got.get("acknowledged"), end)

    def stop(self) -> None:
        """Give back what this run still holds (records of a batch not committed yet are
        delivered again, at once instead of when their locks run out)."""
        try:
            if self.opts.share_release_on_stop:
                _settle(self.conn, self.group, "release", prefix=f"{self.run}:")
        except Exception as exc:
            log.warning("could not release the records of run %s: %s", self.run, exc)
        finally:
            self.conn.close()

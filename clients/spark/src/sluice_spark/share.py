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

from sluice_spark._http import Connection, code_of
from sluice_spark.options import Options
from sluice_spark.reader import bounds_of
from sluice_spark.rows import record_batch

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


def _release_pages_from(conn: Connection, path: str, slot: str, first: int) -> None:
    """Release what an earlier attempt of this task acquired on pages this attempt did not
    reach (its first pages took new records): the batch's commit would accept them unread."""
    held = conn.get(f"{path}/acquisitions", prefix=f"{slot}:")["acquisitions"]
    extra = [
        a["acquisition_id"] for a in held if int(a["acquisition_id"].rsplit(":", 1)[1]) >= first
    ]
    if extra:
        conn.post(f"{path}/acquisitions/acknowledge", {"acquisition_ids": extra, "type": "release"})


class ShareStreamReader(DataSourceStreamReader):
    def __init__(self, opts: Options) -> None:
        assert opts.share_group is not None
        self.opts = opts
        self.group = opts.share_group
        self.run = uuid.uuid4().hex
        self._conn: Connection | None = None

    @property
    def conn(self) -> Connection:
        if self._conn is None:
            self._conn = Connection(self.opts)
        return self._conn

    def initialOffset(self) -> dict[str, Any]:
        return {"run": self.run, "batch": -1}

    def _held(self, prefix: str) -> int:
        got = self.conn.get(f"{group_path(self.group)}/acquisitions", prefix=prefix)
        return int(got["records"])

    def _work_waiting(self) -> bool:
        """Whether the group has records no one holds (or has not started on the topic)."""
        try:
            desc = self.conn.get(group_path(self.group))
        except Exception as exc:
            if code_of(exc) == "GROUP_ID_NOT_FOUND":
                return True  # the first batch creates it
            raise
        seen = {
            p["partition"]: p for p in desc.get("partitions", []) if p["topic"] == self.opts.topic
        }
        for p, b in bounds_of(self.conn, self.opts).items():
            sp = seen.get(p)
            if sp is None:
                if b.high_watermark > b.log_start:
                    return True
            elif sp["lag"] - sp["acquired"] > 0:
                return True
        return False

    def latestOffset(self, start: dict[str, Any], limit: ReadLimit) -> dict[str, Any]:
        _check_offset(start)
        nxt = {"run": self.run, "batch": start["batch"] + 1 if start["run"] == self.run else 0}
        if self._work_waiting():
            return nxt
        if (
            self.opts.share_flush_batch
            and start["batch"] >= 0
            and self._held(f"{start['run']}:{start['batch']}:") > 0
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
        held = self.conn.get(f"{group_path(self.group)}/acquisitions", prefix=f"{batch}:")
        pages: dict[str, list[int]] = {}
        for a in held["acquisitions"]:
            slot, page = a["acquisition_id"].rsplit(":", 1)
            pages.setdefault(slot, []).append(int(page))
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
                        yield record_batch(got["records"], share=True)
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
                yield record_batch(records, share=True)
                left -= len(records)
                page += 1
            ctx = TaskContext.get()
            if ctx is not None and ctx.attemptNumber() > 0:
                _release_pages_from(conn, path, partition.acquisition_id, page)

    def commit(self, end: dict[str, Any]) -> None:
        """Spark committed every batch up to ``end``: accept what they hold. Only those: after
        a restart the batch Spark replays next holds records of the same run."""
        _check_offset(end)
        if end["batch"] < 0:
            return
        path = group_path(self.group)
        held = self.conn.get(f"{path}/acquisitions", prefix=f"{end['run']}:")["acquisitions"]
        done = [
            a["acquisition_id"]
            for a in held
            if int(a["acquisition_id"].split(":")[1]) <= end["batch"]
        ]
        if done:
            got = self.conn.post(
                f"{path}/acquisitions/acknowledge", {"acquisition_ids": done, "type": "accept"}
            )
            log.debug("accepted %s records up to %s", got.get("acknowledged"), end)

    def stop(self) -> None:
        """Give back what this run still holds (records of a batch not committed yet are
        delivered again, at once instead of when their locks run out)."""
        try:
            if self.opts.share_release_on_stop:
                self.conn.post(
                    f"{group_path(self.group)}/acquisitions/acknowledge",
                    {"prefix": f"{self.run}:", "type": "release"},
                )
        except Exception as exc:
            log.warning("could not release the records of run %s: %s", self.run, exc)
        finally:
            if self._conn is not None:
                self._conn.close()

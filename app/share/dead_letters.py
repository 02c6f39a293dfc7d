"""Dead-letter copies (docs/semantics.md#dead-letter-topic). Records rejected, or archived at
the delivery limit, are copied to the group's ``dead_letter_topic`` with their key, value and
headers plus ``sluice.dlq.topic``, ``.partition``, ``.offset``, ``.group``, ``.delivery_count`` and
``.reason``; partition = source partition mod the dead-letter topic's partitions.

The ``StateWriter`` (and a transaction's ending) calls ``copy`` before it commits the share state
that archives the records: the copies are appended and fsynced first, so an archive is never
durable without its copy.

A copy is made once per record and delivery: its identity is the source (group, topic,
partition, offset) and the delivery count it names. A crash (or a failed write) after the copy
and before the archive makes the record deliverable again with the same delivery count, and
when that delivery fails too, its copy is already there: it is not appended again. To find such
copies after a restart, each share partition has a durable *mark* (``ShareStore``): the offset of
its dead-letter partition from which copies may lie whose archive is not durable. The mark is
written before the copies, whenever the partition has no such copy known; the first copy of a
share partition after a restart reads the copies from its mark on. Copies whose record is done
(archived, durable) are forgotten.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from app.metadata.share_store import DeadLetterMark, ShareStore
from app.producers.appender import Appender
from app.share.partition import DlqItem, SharePartition, Staged
from app.storage.log import PartitionLog
from app.storage.record import Header, Record, StoredRecord
from app.topics import TopicRegistry

log = logging.getLogger("sluice.share")

_READ_BYTES = 16 * 1024 * 1024


_IDENTITY = (
    "sluice.dlq.group",
    "sluice.dlq.topic",
    "sluice.dlq.partition",
    "sluice.dlq.offset",
    "sluice.dlq.delivery_count",
)


@dataclass(slots=True)
class _Copies:
    """Copies of one share partition whose archive may not be durable, in one dead-letter
    partition: (source offset, delivery count)."""

    target: tuple[int, int]  # dead-letter topic id, partition
    made: set[tuple[int, int]] = field(default_factory=set)


class DeadLetters:
    def __init__(
        self, topics: TopicRegistry, appender: Appender, store: ShareStore | None = None
    ) -> None:
        self.topics = topics
        self.appender = appender
        self.store = store  # None: no marks, copies are not checked (tests of other parts)
        self.copied = 0
        self.skipped = 0  # copies found already made (after a crash or a failed write)
        self._copies: dict[SharePartition, _Copies] = {}

    async def copy(self, staged: Sequence[Staged], topic_of: Callable[[str], str | None]) -> None:
        """Append the copies of the dead-letter items of each staged change to its group's
        dead-letter topic (``topic_of(group_id)``, None for none); return once durable. Changes
        of retired share partitions are left out."""
        copies: list[tuple[PartitionLog, list[Record]]] = []
        marks: list[DeadLetterMark] = []
        made: list[tuple[set[tuple[int, int]], list[tuple[int, int]]]] = []
        for sp in [sp for sp in self._copies if sp.retired]:
            del self._copies[sp]
        for s in staged:
            sp = s.partition
            if not s.dlq or sp.retired or (name := topic_of(sp.group_id)) is None:
                continue
            dlq = self.topics.topics.get(name)
            source = self.topics.topics.get(sp.topic)
            if dlq is None or dlq.deleting or source is None or source.deleting:
                log.warning(
                    "dead-letter topic %r of share group %r is missing; %d ranges "
                    "archived without a copy",
                    name,
                    sp.group_id,
                    len(s.dlq),
                )
                continue
            src = source.log(sp.partition)
            target = (dlq.topic_id, sp.partition % dlq.partitions)
            dl = dlq.log(target[1])
            known = await self._known(sp, target)
            ids: list[tuple[int, int]] = []
            records = []
            for item in s.dlq:
                for r in _read(src, item):
                    if (r.offset, item.delivery_count) in known.made:
                        self.skipped += 1
                        continue
                    ids.append((r.offset, item.delivery_count))
                    records.append(self._copy_of(sp, item, r))
            if records:
                if not known.made and self.store is not None:
                    key = (sp.group_id, sp.topic_id, sp.partition)
                    marks.append(DeadLetterMark(key, *target, dl.log_end_offset))
                copies.append((dl, records))
                made.append((known.made, ids))
        if marks and self.store is not None:
            await self.store.write_dead_letter_marks(marks)  # before the copies it covers
        if copies:
            self.copied += await self.appender.append_copies(copies)
        if self.store is not None:
            for known_ids, ids in made:
                known_ids.update(ids)

    async def _known(self, sp: SharePartition, target: tuple[int, int]) -> _Copies:
        """The copies of ``sp`` whose record is not done yet: from memory, or (the first time
        after a start) read back from the partition's mark on."""
        known = self._copies.get(sp)
        if known is None:
            known = _Copies(target)
            if self.store is not None:
                mark = await self.store.load_dead_letter_mark(
                    (sp.group_id, sp.topic_id, sp.partition)
                )
                if mark is not None:
                    known = _Copies(
                        (mark.dlq_topic_id, mark.dlq_partition), self._read_back(sp, mark)
                    )
            self._copies[sp] = known
        if known.target != target:  # another dead-letter topic now: a new mark
            known = self._copies[sp] = _Copies(target)
        known.made = {(o, dc) for o, dc in known.made if not sp.is_done(o)}
        return known

    def _read_back(self, sp: SharePartition, mark: DeadLetterMark) -> set[tuple[int, int]]:
        """(offset, delivery count) of every copy of ``sp`` in the marked dead-letter partition
        from the mark on."""
        topic = next(
            (t for t in self.topics.topics.values() if t.topic_id == mark.dlq_topic_id), None
        )
        if topic is None or topic.deleting or mark.dlq_partition >= topic.partitions:
            return set()
        lg = topic.log(mark.dlq_partition)
        wanted = (sp.group_id.encode(), sp.topic.encode(), str(sp.partition).encode())
        out: set[tuple[int, int]] = set()
        at = max(mark.from_offset, lg.log_start_offset)
        while at < lg.log_end_offset:
            got = lg.read(at, 10_000, _READ_BYTES, upto=lg.log_end_offset)
            for r in got.records:
                # the last of each header: a redriven record may carry an older copy's
                h = {x.key: x.value for x in r.headers}
                ident = [h.get(k) for k in _IDENTITY]
                if tuple(ident[:3]) == wanted and ident[3] is not None and ident[4] is not None:
                    out.add((int(ident[3]), int(ident[4])))
            if got.next_offset <= at:
                break
            at = got.next_offset
        return out

    @staticmethod
    def _copy_of(sp: SharePartition, item: DlqItem, r: StoredRecord) -> Record:
        headers = (
            *r.headers,
            Header("sluice.dlq.topic", sp.topic.encode()),
            Header("sluice.dlq.partition", str(sp.partition).encode()),
            Header("sluice.dlq.offset", str(r.offset).encode()),
            Header("sluice.dlq.group", sp.group_id.encode()),
            Header("sluice.dlq.delivery_count", str(item.delivery_count).encode()),
            Header("sluice.dlq.reason", item.reason.encode()),
        )
        return Record(r.timestamp, r.key, r.value, headers)


def _read(lg: PartitionLog, item: DlqItem) -> list[StoredRecord]:
    """Every record of the item's range the log still holds (reads as often as needed)."""
    out: list[StoredRecord] = []
    at = item.first
    while at <= item.last:
        got = lg.read(at, item.last - at + 1, _READ_BYTES, upto=item.last + 1)
        out.extend(got.records)
        if got.next_offset <= at:
            break
        at = got.next_offset
    return out

"""Dead-letter copies (docs/semantics.md#dead-letter-topic). Records rejected, or archived at
the delivery limit, are copied to the group's ``dead_letter_topic`` with their key, value and
headers plus ``sluice.dlq.topic``, ``.partition``, ``.offset``, ``.group``, ``.delivery_count`` and
``.reason``; partition = source partition mod the dead-letter topic's partitions.

The ``StateWriter`` (and a transaction's ending) calls ``copy`` before it commits the share state
that archives the records: the copies are appended and fsynced first, so an archive is never
durable without its copy. A crash after the copy and
before the state commit makes the record deliverable again, and a second failure copies it
again: copies are at-least-once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from app.producers.appender import Appender
from app.share.partition import DlqItem, SharePartition, Staged
from app.storage.log import PartitionLog
from app.storage.record import Header, Record, StoredRecord
from app.topics import TopicRegistry

log = logging.getLogger("sluice.share")

_READ_BYTES = 16 * 1024 * 1024


class DeadLetters:
    def __init__(self, topics: TopicRegistry, appender: Appender) -> None:
        self.topics = topics
        self.appender = appender
        self.copied = 0

    async def copy(self, staged: Sequence[Staged], topic_of: Callable[[str], str | None]) -> None:
        """Append the copies of the dead-letter items of each staged change to its group's
        dead-letter topic (``topic_of(group_id)``, None for none); return once durable. Changes
        of retired share partitions are left out."""
        copies: list[tuple[PartitionLog, list[Record]]] = []
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
            records = [self._copy_of(sp, item, r) for item in s.dlq for r in _read(src, item)]
            if records:
                copies.append((dlq.log(sp.partition % dlq.partitions), records))
        if copies:
            self.copied += await self.appender.append_copies(copies)

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

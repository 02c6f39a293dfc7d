"""The consumer groups' side of transactions (KIP-447): offsets committed only if the
transaction commits (docs/semantics.md#kip-447-offsets).

``GroupTxnParticipant`` is the transaction coordinator's ``OffsetParticipant``: it checks the
member that sends offsets (``check_txn_member``), stages them as pending for the producer
(``staging_txn_offsets``) and, when the transaction ends, makes them committed or discards them
(``ending_txn_offsets``). Each context holds the group's lock and yields a ``TxnWrite`` that the
coordinator writes in its own SQLite transaction and completes once that is durable.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from app.errors import Conflict, ErrorCode, InvalidRequest
from app.groups.coordinator import OFFSET_METADATA_MAX_CHARS, GroupCoordinator
from app.groups.group import Committed, Group, OffsetCommit, OffsetKey
from app.groups.membership import unknown_member
from app.metadata.db import Statements
from app.metadata.groups import GroupStore, OffsetRow
from app.topics import validate_name


class GroupTxnParticipant:
    def __init__(self, groups: GroupCoordinator) -> None:
        self.groups = groups

    def check_owner(self, group_id: str, member_id: str | None, principal: str | None) -> None:
        self.groups.check_owner(group_id, member_id, principal)

    def check_txn_member(
        self, group_id: str, member_id: str | None, member_epoch: int, group_instance_id: str | None
    ) -> None:
        """Fencing of a transactional offset commit (docs/semantics.md#kip-447-offsets,
        KIP-848 rules as reported for TxnOffsetCommit). Raises ``SluiceError``; changes nothing.

        - member epoch < 0 and the group has no live member (or does not exist): accepted;
        - a missing group with epoch ≥ 0: ``ILLEGAL_GENERATION``;
        - ``group_instance_id`` held by another member: ``FENCED_INSTANCE_ID``;
        - unknown member (including one past its session): ``UNKNOWN_MEMBER_ID``;
        - epoch ≠ the member's epoch: ``ILLEGAL_GENERATION``.
        """
        g = self.groups.groups.get(group_id)
        if g is None or g.dead:
            if member_epoch < 0:
                return
            raise Conflict(
                ErrorCode.ILLEGAL_GENERATION, f"consumer group {group_id!r} does not exist"
            )
        expired = set(g.expired(self.groups.clock.now_ms()))
        live = {mid: m for mid, m in g.members.items() if mid not in expired}
        if member_epoch < 0 and not live:
            return
        if group_instance_id is not None:
            holder = next((m for m in live.values() if m.instance_id == group_instance_id), None)
            if holder is not None and holder.member_id != member_id:
                raise Conflict(
                    ErrorCode.FENCED_INSTANCE_ID,
                    f"instance {group_instance_id!r} belongs to member {holder.member_id!r}",
                )
        m = live.get(member_id) if member_id is not None else None
        if m is None:
            raise unknown_member(group_id, member_id)
        if member_epoch != m.epoch:
            raise Conflict(
                ErrorCode.ILLEGAL_GENERATION,
                f"member epoch {member_epoch} is not the member's epoch {m.epoch}",
            )

    @asynccontextmanager
    async def staging_txn_offsets(
        self, group_id: str, producer_id: int, offsets: Sequence[OffsetCommit]
    ) -> AsyncIterator[_StageTxnOffsets | None]:
        """Stage the offsets as PENDING for ``producer_id``, with the group's commit sequence
        at staging time; invisible to plain offset fetch. The caller writes it in its SQLite
        transaction and completes it once durable, inside the context (the group's lock is
        held).

        Creates the group (Empty) when it does not exist. An unknown topic or partition, a
        negative offset or oversized metadata raises and stages nothing.
        """
        validate_name(group_id, "group")
        keyed = []
        for o in offsets:
            if o.offset < 0:
                raise InvalidRequest(
                    ErrorCode.INVALID_REQUEST,
                    f"offset {o.offset} of {o.topic}/{o.partition} is negative",
                )
            if o.metadata is not None and len(o.metadata) > OFFSET_METADATA_MAX_CHARS:
                raise InvalidRequest(
                    ErrorCode.INVALID_REQUEST,
                    f"offset metadata is longer than {OFFSET_METADATA_MAX_CHARS} characters",
                )
            keyed.append((self.groups.topic_key(o.topic, o.partition), o.offset, o.metadata))
        if not keyed:
            yield None
            return
        async with self.groups.locked(group_id, create=True) as g:
            seq = g.commit_seq + 1
            rows = {k: OffsetRow(k.topic_id, k.partition, o, md, seq) for k, o, md in keyed}
            yield _StageTxnOffsets(g, producer_id, seq, rows, self.groups.clock.now_ms())

    @asynccontextmanager
    async def ending_txn_offsets(
        self, group_id: str, producer_id: int, commit: bool
    ) -> AsyncIterator[_EndTxnOffsets | None]:
        """Commit: the producer's pending offsets become committed, except where a plain
        commit made after the staging is newer (compared by commit sequence). Abort: they are
        discarded. None when nothing is pending (a second end is a no-op). Written and
        completed by the caller like ``staging_txn_offsets``."""
        g = self.groups.groups.get(group_id)
        if g is None or producer_id not in g.pending:
            yield None
            return
        async with g.lock:
            staged = g.pending.get(producer_id)
            if g.dead or staged is None:
                yield None
                return
            winners: dict[OffsetKey, Committed] = {}
            if commit:
                for k, c in staged.items():
                    current = g.offsets.get(k)
                    if current is None or current.seq < c.seq:
                        winners[k] = c
            yield _EndTxnOffsets(g, producer_id, winners, self.groups.clock.now_ms())


@dataclass(slots=True)
class _StageTxnOffsets:
    group: Group
    producer_id: int
    seq: int
    rows: dict[OffsetKey, OffsetRow]
    now_ms: int

    def statements(self) -> Statements:
        return functools.partial(
            GroupStore.write_pending,
            group_id=self.group.group_id,
            producer_id=self.producer_id,
            commit_seq=self.seq,
            offsets=list(self.rows.values()),
            now_ms=self.now_ms,
        )

    def complete(self) -> None:
        g = self.group
        g.persisted = True
        g.commit_seq = self.seq
        staged = g.pending.setdefault(self.producer_id, {})
        for k, r in self.rows.items():
            staged[k] = Committed(r.offset, r.metadata, self.seq)


@dataclass(slots=True)
class _EndTxnOffsets:
    group: Group
    producer_id: int
    winners: dict[OffsetKey, Committed]
    now_ms: int

    def statements(self) -> Statements:
        return functools.partial(
            GroupStore.write_end_pending,
            group_id=self.group.group_id,
            producer_id=self.producer_id,
            materialise=[
                OffsetRow(k.topic_id, k.partition, c.offset, c.metadata, c.seq)
                for k, c in self.winners.items()
            ],
            now_ms=self.now_ms,
        )

    def complete(self) -> None:
        self.group.offsets.update(self.winners)
        del self.group.pending[self.producer_id]

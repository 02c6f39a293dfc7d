"""The seam's share groups (KIP-932): membership, fetch and acknowledge, acquisitions by id,
group administration, and what the HTTP routes read of a group.

Used by ``app/api/routes/share_groups.py`` (every handler, through ``deps.engine_of``),
``app/api/routes/consume.py`` (the push socket: ``open_push``, ``stopped``, ``stopping``,
and ``app.engine.push``).
Implemented today by four objects, one protocol each:

- ``ShareGroups``: ``app.share.coordinator.ShareGroupCoordinator`` (``Broker.share``);
- ``ShareMembership``: ``app.share.membership.Membership`` (``Broker.share.membership``);
- ``ShareAdmin``: ``app.share.admin.ShareGroupAdmin`` (``Broker.share_admin``; on Kafka
  ``app.kafka.share_admin.KafkaShareAdmin``);
- ``ShareAcquisitions``: ``app.share.acquisitions.Acquisitions`` (``Broker.acquisitions``).

On Kafka: ShareGroupHeartbeat, ShareFetch and ShareAcknowledge through share sessions held by
the gateway that opened them; ShareGroupDescribe, DescribeShareGroupOffsets,
AlterShareGroupOffsets, DeleteShareGroupOffsets, DeleteGroups and the group's configs
(docs/kafka.md, "Share groups"). ``ShareAcquisitions`` (all of it), ``ShareAdmin.record_views``
and a ``release`` with ``delay_ms`` above 0 answer ``UNSUPPORTED_ON_KAFKA_BACKEND``.

Acknowledgements (and the dead-letter copies they cause) are durable before they are answered
(docs/semantics.md#durability-order). Every method may raise ``INVALID_REQUEST`` for an
invalid group id and ``GROUP_ID_NOT_FOUND`` for a group that does not exist, where a request
does not create it.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

from app.errors import SluiceError
from app.share.acquisitions import AcquisitionView
from app.share.admin import PartitionSummary, ShareGroupListing, TopicReset
from app.share.coordinator import AckRequest, FetchAnswer, PartitionKey
from app.share.membership import Member, ShareGroup
from app.share.partition import AckType, RecordView

if TYPE_CHECKING:
    from app.engine.push import PushSession  # which imports this module


class ShareMembership(Protocol):
    """Members of share groups."""

    async def heartbeat(
        self,
        group_id: str,
        member_id: str | None,
        member_epoch: int,
        subscribed: list[str] | None,
        principal: str | None,
    ) -> tuple[Member, ShareGroup | None]:
        """Join (epoch 0, the group created), heartbeat, or leave (epoch -1, its records
        released); the group too where the engine holds it (None on Kafka). Raises
        ``UNKNOWN_MEMBER_ID`` (also another principal's member), ``FENCED_MEMBER_EPOCH``,
        ``GROUP_MAX_SIZE_REACHED``."""
        ...

    async def leave(self, group_id: str, member_id: str, principal: str | None) -> None:
        """``DELETE …/members/{member_id}``: the member's records released (their delivery
        counts lowered by one) and durable. Raises ``UNKNOWN_MEMBER_ID``."""
        ...

    async def subscription(self, group_id: str, member_id: str, principal: str | None) -> list[str]:
        """The topics ``principal``'s member subscribed to (a fetch without
        ``subscribed_topics`` checks READ on them); none for a member that is not
        ``principal``'s or not known (the fetch then answers ``UNKNOWN_MEMBER_ID``)."""
        ...


class ShareGroups(Protocol):
    """Fetch and acknowledge as a member."""

    @property
    def membership(self) -> ShareMembership: ...

    @property
    def stopping(self) -> bool:
        """The server is stopping: long polls return empty, push sessions end."""
        ...

    @property
    def stopped(self) -> asyncio.Event:
        """Set with ``stopping``: a push socket closes (1001) when it is."""
        ...

    def open_push(self, group_id: str, max_credits: int, principal: str | None) -> PushSession:
        """A push session of ``principal`` on ``group_id`` for one WebSocket, with a window
        of at most ``max_credits``; nothing is asked of the group until it subscribes (on
        Kafka, a member the gateway runs: docs/kafka.md, "Push over WebSocket")."""
        ...

    async def fetch(
        self,
        group_id: str,
        member_id: str | None,
        subscribed: list[str] | None,
        *,
        max_records: int,
        max_wait_ms: int,
        record_limit: bool,
        acks: AckRequest,
        principal: str | None,
        max_bytes: int = ...,
        batches: bool = ...,
    ) -> FetchAnswer:
        """ShareFetch as a member of ``principal`` (joined here when ``member_id`` is None):
        the piggy-backed ``acks`` first (durable before the answer; their errors in
        ``ack_errors``), then records acquired with a lock, waiting up to ``max_wait_ms`` for
        some. With ``batches``, the answer's ``batches`` are the stored batches that hold the
        acquired ranges, per partition (the embedded engine reads them once the fetch is done;
        on Kafka the ShareFetch answer carries them). Raises ``UNKNOWN_MEMBER_ID``,
        ``INVALID_REQUEST``, ``KAFKA_STORAGE_ERROR``."""
        ...

    async def acknowledge(
        self, group_id: str, member_id: str, acks: AckRequest, principal: str | None
    ) -> list[tuple[PartitionKey, SluiceError | None]]:
        """Accept, release (with an optional delay), reject or renew acquired records;
        per-partition errors (``INVALID_RECORD_STATE``) in the answer, which comes once the
        changes are durable. Raises ``UNKNOWN_MEMBER_ID``."""
        ...


class ShareAcquisitions(Protocol):
    """Acquisitions by id (docs/api.md): records held by an id, not by a member. On Kafka,
    every method answers ``UNSUPPORTED_ON_KAFKA_BACKEND`` (``share_acquisitions``)."""

    async def fetch(
        self,
        group_id: str,
        acquisition_id: str,
        subscribed: list[str],
        principal: str | None,
        *,
        max_records: int,
        max_wait_ms: int,
        record_limit: bool,
        max_bytes: int,
        held_only: bool = ...,
        check_topics: Callable[[Iterable[str]], None] = ...,
        batches: bool = ...,
    ) -> FetchAnswer:
        """The records the acquisition holds, again, or a fetch whose records it then holds;
        ``check_topics`` raises to refuse the topics of the records a replay answers; with
        ``batches``, the answer carries their stored batches, as ``ShareGroups.fetch``."""
        ...

    async def acknowledge(
        self,
        group_id: str,
        ids: list[str] | None,
        prefix: str | None,
        kind: AckType,
        principal: str | None,
        check_topics: Callable[[Iterable[str]], None] = ...,
    ) -> list[tuple[str, int]]:
        """Acknowledge every record the acquisitions named hold; answers ``(id, records)``
        once that is durable."""
        ...

    async def describe(
        self,
        group_id: str,
        prefix: str | None,
        principal: str | None,
        visible: Callable[[str], bool] = ...,
    ) -> list[AcquisitionView]:
        """What ``principal``'s acquisitions hold, of the topics ``visible`` shows."""
        ...


class ShareAdmin(Protocol):
    """Share-group administration."""

    async def configure(self, group_id: str, changes: dict[str, object]) -> ShareGroup:
        """``PATCH …/config`` (creates the group); durable before it returns. Raises
        ``INVALID_CONFIG``, ``UNKNOWN_TOPIC_OR_PARTITION`` (a dead-letter topic that does not
        exist)."""
        ...

    async def list(self) -> builtins.list[ShareGroupListing]:
        """Every share group by id, with its state and number of members (``GET
        /v1/share-groups`` keeps those the principal may see)."""
        ...

    async def describe(self, group_id: str) -> tuple[ShareGroup, builtins.list[PartitionSummary]]:
        """The group and its share partitions of live topics: start and end offsets, counts of
        records by state, lag (on Kafka the counts and the end offset are not known:
        docs/kafka.md). Raises ``GROUP_ID_NOT_FOUND``."""
        ...

    async def record_views(
        self, group_id: str, topic_name: str, p: int, lo: int | None, hi: int | None, limit: int
    ) -> tuple[int, int, builtins.list[RecordView]]:
        """The state of each record of one share partition between ``lo`` and ``hi`` (at most
        ``limit`` offsets past ``lo`` when both are given), at most ``limit`` records: the
        window's start and end and the records. Raises ``GROUP_ID_NOT_FOUND``,
        ``UNKNOWN_TOPIC_OR_PARTITION``. On Kafka: ``UNSUPPORTED_ON_KAFKA_BACKEND``
        (``share_record_view``)."""
        ...

    async def reset_offsets(
        self, group_id: str, targets: builtins.list[TopicReset], dry_run: bool
    ) -> builtins.list[tuple[str, builtins.list[tuple[int, int]]]]:
        """Move start offsets (empty group only); ``dry_run`` answers without moving. Raises
        ``NON_EMPTY_GROUP``, ``UNKNOWN_TOPIC_OR_PARTITION``."""
        ...

    async def delete_offsets(self, group_id: str, topic_name: str) -> None:
        """Forget a topic's start offsets (empty group only). Raises ``NON_EMPTY_GROUP``."""
        ...

    async def delete_group(self, group_id: str) -> None:
        """Delete an empty group. Raises ``NON_EMPTY_GROUP``."""
        ...

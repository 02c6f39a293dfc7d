"""Consumer groups on the Kafka backend (docs/kafka-protocol.md#consumer-groups): membership
by ConsumerGroupHeartbeat (KIP-848), OffsetCommit, OffsetFetch, OffsetDelete, ListGroups,
ConsumerGroupDescribe and DeleteGroups, sent to the coordinator of the group.

How the contract maps onto Kafka 4.4's protocol:

- The contract's member id is Kafka's member id. Kafka 4.4 has the client choose it; a join
  without one gets a new id from the gateway, prefixed with a digest of the principal that
  joined (docs/kafka.md#gateway-state), so any gateway can tell whose a member is.
- The contract's generation of a member is Kafka's member epoch, as is: join at 0, leave at
  -1, static leave at -2, and the epoch the broker answers is the one the client sends back
  in heartbeats and commits. A heartbeat at an epoch the member does not have is Kafka's
  FENCED_MEMBER_EPOCH, a commit at another epoch STALE_MEMBER_EPOCH (but Kafka takes an older
  epoch for a partition the member has held since), a member it does not know
  UNKNOWN_MEMBER_ID: each is the contract's code of the same name (app/kafka/errors_map.py).
- The assignment is Kafka's, by topic id; the names are resolved through the cluster's
  metadata. The broker sends an assignment only when it changed (or on a full request), so
  the module keeps the last one it answered each member and answers it again; a member it
  has not seen (another gateway's) is looked up with ConsumerGroupDescribe.
- A heartbeat without ``owned`` confirms that the member works on what it was last answered:
  that assignment is sent as Kafka's owned partitions, which is how the broker learns that a
  revocation is done.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar
from uuid import UUID

from app.errors import ErrorCode, NotFound, SluiceError
from app.groups.coordinator import HeartbeatAnswer, OffsetLag, OffsetView, check_heartbeat
from app.groups.group import Group, OffsetCommit
from app.groups.membership import unknown_member
from app.groups.state import GroupState, Member, MemberState, TopicPartition
from app.kafka.cluster import GROUP, Cluster
from app.kafka.errors_map import to_sluice
from app.kafka.protocol.errors import NONE, BrokerError
from app.kafka.protocol.message import Request, Response
from app.kafka.protocol.messages import (
    ConsumerGroupDescribeRequest,
    ConsumerGroupDescribeResponse,
    ConsumerGroupHeartbeatRequest,
    ConsumerGroupHeartbeatResponse,
    DeleteGroupsRequest,
    DeleteGroupsResponse,
    ListGroupsRequest,
    ListGroupsResponse,
    OffsetCommitRequest,
    OffsetCommitResponse,
    OffsetDeleteRequest,
    OffsetDeleteResponse,
    OffsetFetchRequest,
    OffsetFetchResponse,
)
from app.kafka.reads import KafkaReads
from app.topics import validate_name

R = TypeVar("R", bound=Response)

JOIN_EPOCH = 0
LEAVE_EPOCH = -1
STATIC_LEAVE_EPOCH = -2
# a join without rebalance_timeout_ms takes the embedded engine's default
DEFAULT_REBALANCE_TIMEOUT_MS = 300_000
GROUP_ID_NOT_FOUND = 69
UNKNOWN_MEMBER_ID = 25
# Kafka's fencing errors that refuse a whole commit, not one partition of it
_WHOLE_COMMIT = frozenset({22, 25, 110, 113})

Assignment = list[tuple[str, list[int]]]


def principal_digest(principal: str) -> str:
    """The prefix of the member ids joined by ``principal``."""
    return hashlib.sha256(principal.encode()).hexdigest()[:16]


def owned_by(member_id: str, principal: str | None) -> bool:
    """Whether ``member_id`` may be acted on by ``principal`` (any id on a server without
    keys; an id with the principal's digest in front otherwise)."""
    return principal is None or member_id.startswith(principal_digest(principal) + ".")


def _contract_group(g: ListGroupsResponse.ListedGroup) -> bool:
    """A consumer group of the new protocol, or a classic group without members (one that
    only holds offsets): the groups the contract lists."""
    return g.group_type == "consumer" or g.group_state == "Empty"


def _state(name: str) -> GroupState:
    try:
        return GroupState(name)
    except ValueError:
        raise SluiceError(
            ErrorCode.INTERNAL, f"the Kafka cluster answered a group state {name!r}"
        ) from None


class KafkaGroups:
    """The seam's consumer groups (app/engine/groups.py) on a Kafka cluster. ``reads`` gives
    the high watermarks the lag of ``describe`` is computed from."""

    def __init__(self, cluster: Cluster, reads: KafkaReads) -> None:
        self.cluster = cluster
        self.reads = reads
        # (group, member) → the assignment last answered, as Kafka's topic ids
        self._answered: dict[tuple[str, str], dict[UUID, list[int]]] = {}

    # -- membership ------------------------------------------------------------------------------

    async def heartbeat(
        self,
        group_id: str,
        member_id: str | None,
        member_epoch: int,
        instance_id: str | None,
        subscribed: Sequence[str] | None,
        rebalance_timeout_ms: int | None,
        owned: frozenset[TopicPartition] | None,
        principal: str | None,
    ) -> HeartbeatAnswer:
        """ConsumerGroupHeartbeat: join (epoch 0), heartbeat, or leave (-1, or -2 for a static
        member). Answers the member's epoch and its assignment by topic name."""
        validate_name(group_id, "group")
        check_heartbeat(member_id, member_epoch, instance_id, subscribed)
        if member_id is not None and not owned_by(member_id, principal):
            raise unknown_member(group_id, member_id)
        if member_id is None:
            prefix = "" if principal is None else principal_digest(principal) + "."
            member_id = prefix + uuid.uuid4().hex
        key = (group_id, member_id)
        joining = member_epoch == JOIN_EPOCH
        if owned is not None:
            owned_ids: dict[UUID, list[int]] | None = await self._ids(owned)
        elif joining:
            owned_ids = {}  # a join owns nothing yet
        else:
            owned_ids = self._answered.get(key)
        if joining and rebalance_timeout_ms is None:
            rebalance_timeout_ms = DEFAULT_REBALANCE_TIMEOUT_MS
        mid = member_id

        def build() -> ConsumerGroupHeartbeatRequest:
            return ConsumerGroupHeartbeatRequest(
                group_id=group_id,
                member_id=mid,
                member_epoch=member_epoch,
                instance_id=instance_id,
                rebalance_timeout_ms=-1 if rebalance_timeout_ms is None else rebalance_timeout_ms,
                subscribed_topic_names=None if subscribed is None else list(subscribed),
                topic_partitions=None
                if owned_ids is None
                else [
                    ConsumerGroupHeartbeatRequest.TopicPartitions(topic_id=t, partitions=ps)
                    for t, ps in owned_ids.items()
                ],
            )

        what = f"member {member_id!r} of group {group_id!r}"
        answer: ConsumerGroupHeartbeatResponse = await self._send(
            group_id, build, lambda a: a.error_code, what
        )
        if answer.error_code != NONE:
            self._answered.pop(key, None)
            raise to_sluice(answer.error_code, answer.error_message, what)
        if member_epoch in (LEAVE_EPOCH, STATIC_LEAVE_EPOCH):
            self._answered.pop(key, None)
            return HeartbeatAnswer(member_id, member_epoch, answer.heartbeat_interval_ms, [])
        if answer.assignment is not None:
            ids = {tp.topic_id: sorted(tp.partitions) for tp in answer.assignment.topic_partitions}
        elif key in self._answered:
            ids = self._answered[key]
        else:
            ids = await self._described_assignment(group_id, member_id)
        self._answered[key] = ids
        return HeartbeatAnswer(
            member_id, answer.member_epoch, answer.heartbeat_interval_ms, await self._names(ids)
        )

    def check_owner(self, group_id: str, member_id: str | None, principal: str | None) -> None:
        """``UNKNOWN_MEMBER_ID`` when ``member_id`` was joined by another principal."""
        if member_id is not None and not owned_by(member_id, principal):
            raise unknown_member(group_id, member_id)

    # -- offsets ---------------------------------------------------------------------------------

    async def commit_offsets(
        self,
        group_id: str,
        member_id: str | None,
        member_epoch: int,
        offsets: Sequence[OffsetCommit],
        principal: str | None,
    ) -> list[SluiceError | None]:
        """OffsetCommit with the member's id and epoch (none and -1: a simple commit, which
        Kafka takes only while the group has no members). One error or None per offset, in
        request order; Kafka's fencing errors refuse the whole request."""
        validate_name(group_id, "group")
        self.check_owner(group_id, member_id, principal)
        what = f"offsets of group {group_id!r}"
        results: list[SluiceError | None] = [None] * len(offsets)
        ids: dict[str, UUID] = {}
        by_topic: dict[str, list[int]] = {}  # topic → indexes into offsets
        for i, o in enumerate(offsets):
            if o.topic not in ids:
                try:
                    ids[o.topic] = (await self.cluster.topic(o.topic)).topic_id
                except BrokerError as exc:
                    results[i] = to_sluice(exc.code, None, f"{o.topic}/{o.partition}")
                    continue
            by_topic.setdefault(o.topic, []).append(i)
        if not by_topic:
            return results

        def build() -> OffsetCommitRequest:
            return OffsetCommitRequest(
                group_id=group_id,
                generation_id_or_member_epoch=member_epoch,
                member_id=member_id or "",
                topics=[
                    OffsetCommitRequest.OffsetCommitRequestTopic(
                        name=topic,
                        topic_id=ids[topic],
                        partitions=[
                            OffsetCommitRequest.OffsetCommitRequestPartition(
                                partition_index=offsets[i].partition,
                                committed_offset=offsets[i].offset,
                                committed_metadata=offsets[i].metadata,
                            )
                            for i in idx
                        ],
                    )
                    for topic, idx in by_topic.items()
                ],
            )

        answer: OffsetCommitResponse = await self._send(group_id, build, _first_commit_error, what)
        names = {v: k for k, v in ids.items()}
        errors: dict[TopicPartition, int] = {}
        for t in answer.topics:
            name = t.name or names.get(t.topic_id, "")
            for p in t.partitions:
                if p.error_code in _WHOLE_COMMIT:
                    raise to_sluice(p.error_code, None, what, answer.throttle_time_ms)
                errors[(name, p.partition_index)] = p.error_code
        for topic, idx in by_topic.items():
            for i in idx:
                code = errors.get((topic, offsets[i].partition), NONE)
                if code != NONE:
                    results[i] = to_sluice(code, None, f"{topic}/{offsets[i].partition}")
        return results

    async def fetch_offsets(
        self, group_id: str, topic: str | None, require_stable: bool
    ) -> list[OffsetView]:
        """OffsetFetch of the group's committed offsets (of ``topic``, or all), sorted by
        topic and partition; a group Kafka does not know has none."""
        validate_name(group_id, "group")
        topics: list[OffsetFetchRequest.OffsetFetchRequestTopics] | None = None
        if topic is not None:
            try:
                info = await self.cluster.topic(topic)
            except BrokerError:
                return []
            topics = [
                OffsetFetchRequest.OffsetFetchRequestTopics(
                    name=topic, topic_id=info.topic_id, partition_indexes=sorted(info.partitions)
                )
            ]
        what = f"offsets of group {group_id!r}"

        def build() -> OffsetFetchRequest:
            return OffsetFetchRequest(
                groups=[
                    OffsetFetchRequest.OffsetFetchRequestGroup(group_id=group_id, topics=topics)
                ],
                require_stable=require_stable,
            )

        answer: OffsetFetchResponse = await self._send(
            group_id, build, lambda a: a.groups[0].error_code if a.groups else NONE, what
        )
        (g,) = answer.groups
        if g.error_code == GROUP_ID_NOT_FOUND:
            return []
        if g.error_code != NONE:
            raise to_sluice(g.error_code, None, what, answer.throttle_time_ms)
        out: list[OffsetView] = []
        for t in g.topics:
            name = t.name or await self._name(t.topic_id)
            if name is None:
                continue  # a topic deleted since
            for p in t.partitions:
                if p.error_code != NONE:
                    err = to_sluice(p.error_code, None, f"{name}/{p.partition_index}")
                    out.append(OffsetView(name, p.partition_index, -1, None, err))
                elif p.committed_offset >= 0:
                    out.append(
                        OffsetView(name, p.partition_index, p.committed_offset, p.metadata, None)
                    )
        out.sort(key=lambda v: (v.topic, v.partition))
        return out

    async def delete_offsets(
        self, group_id: str, topic: str | None, check_topics: Callable[[Iterable[str]], None]
    ) -> None:
        """OffsetDelete of ``topic``'s committed offsets, or of every topic's; ``check_topics``
        is given the topics whose offsets go (those OffsetFetch answered, without a topic) and
        raises to refuse them. Raises ``GROUP_ID_NOT_FOUND``; ``NON_EMPTY_GROUP`` while a member
        is subscribed to it."""
        if topic is not None:
            check_topics((topic,))
        validate_name(group_id, "group")
        await self.describe_group(group_id)  # GROUP_ID_NOT_FOUND for a group Kafka lacks
        by_topic: dict[str, list[int]] = {}
        for v in await self.fetch_offsets(group_id, topic, False):
            by_topic.setdefault(v.topic, []).append(v.partition)
        if topic is None:
            # a commit between this fetch and the delete can add a topic: OffsetDelete names
            # only the topics checked here
            check_topics(sorted(by_topic))
        if not by_topic:
            return
        what = f"offsets of group {group_id!r}"

        def build() -> OffsetDeleteRequest:
            return OffsetDeleteRequest(
                group_id=group_id,
                topics=[
                    OffsetDeleteRequest.OffsetDeleteRequestTopic(
                        name=t,
                        partitions=[
                            OffsetDeleteRequest.OffsetDeleteRequestPartition(partition_index=p)
                            for p in ps
                        ],
                    )
                    for t, ps in by_topic.items()
                ],
            )

        answer: OffsetDeleteResponse = await self._send(
            group_id, build, lambda a: a.error_code, what
        )
        if answer.error_code != NONE:
            raise to_sluice(answer.error_code, None, what, answer.throttle_time_ms)
        for t in answer.topics:
            for p in t.partitions:
                if p.error_code != NONE:
                    raise to_sluice(p.error_code, None, f"{what} ({t.name}/{p.partition_index})")

    # -- description -----------------------------------------------------------------------------

    async def list_groups(self) -> list[str]:
        """The consumer groups (of the new protocol) every broker's coordinator knows, and the
        groups that only hold committed offsets, sorted. Each broker lists only the groups it
        coordinates."""
        await self.cluster.refresh_metadata([])
        found: set[str] = set()
        for node_id in list(self.cluster.brokers):
            conn = await self.cluster.connection(node_id)
            answer = await conn.send(ListGroupsRequest(types_filter=["consumer", "classic"]))
            if answer.error_code != NONE:
                raise to_sluice(answer.error_code, None, f"ListGroups on broker {node_id}")
            found.update(g.group_id for g in answer.groups if _contract_group(g))
        return sorted(found)

    async def _offsets_only(self, group_id: str) -> bool:
        """Whether Kafka holds ``group_id`` as a group without members: offsets committed
        outside of any membership (``POST /v1/groups/{g}/offsets`` of an empty group, a
        transaction's offsets) make one of Kafka's classic type, which ConsumerGroupDescribe
        does not describe, where the contract has an empty consumer group."""
        answer: ListGroupsResponse = await self._send(
            group_id,
            lambda: ListGroupsRequest(types_filter=["classic"], states_filter=["Empty"]),
            lambda a: a.error_code,
            f"consumer group {group_id!r}",
        )
        return any(g.group_id == group_id for g in answer.groups)

    async def all(self) -> list[Group]:
        """Every consumer group, described, sorted by id (a group gone between the list and
        its description is left out)."""
        out: list[Group] = []
        for gid in await self.list_groups():
            try:
                out.append(await self.describe_group(gid))
            except NotFound:
                continue
        return out

    async def describe(self, group_id: str) -> tuple[Group, list[OffsetLag]]:
        """The group and its committed offsets with their lag behind the high watermark.
        Raises ``GROUP_ID_NOT_FOUND``."""
        group = await self.describe_group(group_id)
        lags: list[OffsetLag] = []
        for v in await self.fetch_offsets(group_id, None, False):
            if v.error is not None:
                continue
            end, _ = await self.reads.list_offsets(v.topic, v.partition, "latest")
            lags.append(OffsetLag(v.topic, v.partition, v.offset, max(0, end - v.offset)))
        return group, lags

    async def describe_all(self) -> list[tuple[Group, list[OffsetLag]]]:
        out: list[tuple[Group, list[OffsetLag]]] = []
        for gid in await self.list_groups():
            try:
                out.append(await self.describe(gid))
            except NotFound:
                continue
        return out

    async def describe_group(self, group_id: str) -> Group:
        """ConsumerGroupDescribe as the contract's ``Group``. Kafka shows neither the group's
        creation time (``created_ms`` -1) nor a member's previous epoch (-1), its rebalance
        timeout (-1), its principal or what it is revoking; a member is ``stable`` when it
        owns its target assignment, else ``unreleased_partitions``."""
        validate_name(group_id, "group")
        what = f"consumer group {group_id!r}"
        answer: ConsumerGroupDescribeResponse = await self._send(
            group_id,
            lambda: ConsumerGroupDescribeRequest(group_ids=[group_id]),
            lambda a: a.groups[0].error_code if a.groups else NONE,
            what,
        )
        (d,) = answer.groups
        if d.error_code != NONE:
            if d.error_code == GROUP_ID_NOT_FOUND:
                if await self._offsets_only(group_id):
                    return Group(
                        group_id=group_id,
                        created_ms=-1,
                        epoch=0,
                        target_epoch=0,
                        members={},
                        targets={},
                        state=GroupState.EMPTY,
                        persisted=True,
                    )
                raise NotFound(ErrorCode.GROUP_ID_NOT_FOUND, f"{what} does not exist")
            raise to_sluice(d.error_code, d.error_message, what, answer.throttle_time_ms)
        if d.group_state == GroupState.DEAD.value:
            raise NotFound(ErrorCode.GROUP_ID_NOT_FOUND, f"{what} does not exist")
        members: dict[str, Member] = {}
        targets: dict[str, frozenset[TopicPartition]] = {}
        for m in d.members:
            assigned = _partitions(m.assignment)
            target = _partitions(m.target_assignment)
            members[m.member_id] = Member(
                member_id=m.member_id,
                instance_id=m.instance_id,
                epoch=m.member_epoch,
                previous_epoch=-1,
                state=MemberState.STABLE
                if assigned == target
                else MemberState.UNRELEASED_PARTITIONS,
                subscribed=tuple(m.subscribed_topic_names),
                rebalance_timeout_ms=-1,
                assigned=assigned,
                revoking=frozenset(),
                principal=None,
            )
            targets[m.member_id] = target
        return Group(
            group_id=d.group_id,
            created_ms=-1,
            epoch=d.group_epoch,
            target_epoch=d.assignment_epoch,
            members=members,
            targets=targets,
            state=_state(d.group_state),
            persisted=True,
        )

    async def delete_group(self, group_id: str) -> None:
        """DeleteGroups. Raises ``GROUP_ID_NOT_FOUND``, ``NON_EMPTY_GROUP``."""
        validate_name(group_id, "group")
        what = f"consumer group {group_id!r}"
        answer: DeleteGroupsResponse = await self._send(
            group_id,
            lambda: DeleteGroupsRequest(groups_names=[group_id]),
            lambda a: a.results[0].error_code if a.results else NONE,
            what,
        )
        (r,) = answer.results
        if r.error_code != NONE:
            raise to_sluice(r.error_code, None, what, answer.throttle_time_ms)
        for key in [k for k in self._answered if k[0] == group_id]:
            del self._answered[key]

    # -- topic ids -------------------------------------------------------------------------------

    async def _ids(self, tps: frozenset[TopicPartition]) -> dict[UUID, list[int]]:
        out: dict[UUID, list[int]] = {}
        for topic, partition in sorted(tps):
            try:
                info = await self.cluster.topic(topic)
            except BrokerError as exc:
                raise to_sluice(exc.code, None, f"owned partition {topic}/{partition}") from None
            out.setdefault(info.topic_id, []).append(partition)
        return out

    async def _name(self, topic_id: UUID) -> str | None:
        """The name of the topic ``topic_id``, asking Metadata of every topic when it is not
        known; None for a topic that is gone."""
        for info in self.cluster.topics.values():
            if info.topic_id == topic_id:
                return info.name
        await self.cluster.refresh_metadata(None)
        for info in self.cluster.topics.values():
            if info.topic_id == topic_id:
                return info.name
        return None

    async def _names(self, ids: dict[UUID, list[int]]) -> Assignment:
        out: Assignment = []
        for topic_id, partitions in ids.items():
            name = await self._name(topic_id)
            if name is not None:
                out.append((name, sorted(partitions)))
        out.sort()
        return out

    async def _described_assignment(self, group_id: str, member_id: str) -> dict[UUID, list[int]]:
        """The member's assignment as ConsumerGroupDescribe shows it (a member another gateway
        answered before)."""
        group = await self.describe_group(group_id)
        member = group.members.get(member_id)
        if member is None:
            return {}
        return await self._ids(member.assigned)

    async def _send(
        self,
        group_id: str,
        build: Callable[[], Request[R]],
        error_of: Callable[[R], int],
        what: str,
    ) -> R:
        return await send_to_group(self.cluster, group_id, build, error_of, what)


async def send_to_group(
    cluster: Cluster,
    group_id: str,
    build: Callable[[], Request[R]],
    error_of: Callable[[R], int],
    what: str,
) -> R:
    """The request to the group's coordinator (consumer or share group); a coordinator that
    cannot be found is Kafka's error, as the contract's code."""
    try:
        return await cluster.send_to_coordinator(group_id, GROUP, build, error_of)
    except BrokerError as exc:
        raise to_sluice(exc.code, None, what) from None


def _partitions(a: ConsumerGroupDescribeResponse.Assignment) -> frozenset[TopicPartition]:
    return frozenset((t.topic_name, p) for t in a.topic_partitions for p in t.partitions)


def _first_commit_error(answer: OffsetCommitResponse) -> int:
    for t in answer.topics:
        for p in t.partitions:
            if p.error_code != NONE:
                return p.error_code
    return NONE

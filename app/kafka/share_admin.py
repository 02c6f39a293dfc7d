"""Share-group administration on the Kafka backend (docs/kafka.md#share-groups): the group's
configs, the list of share groups, a group's description, offset resets and deletions.

- **Config**: IncrementalAlterConfigs on the group's config resource, each contract key
  written as Kafka's group config of the same meaning (``CONFIG_NAMES``). Kafka bounds the
  values by its broker settings and refuses the rest as ``INVALID_CONFIG`` with its message.
  The controller answers once it has the change, and a broker learns it from the metadata
  log a moment later: the answer waits until a broker describes the new values, so that a
  describe or a member joining after it sees them.
- **Dead-letter topic**: Kafka's own (KIP-1191), whose name must start with the broker's
  prefix (``dlq.`` by default) and whose topic must opt in; the gateway sets the topic's
  opt-in, the group's topic name and the copy of key, value and headers. A name without the
  prefix is ``UNSUPPORTED_ON_KAFKA_BACKEND`` (``dead_letter_topic_name``).
- **List and describe**: ListGroups (type share) on every broker, ShareGroupDescribe,
  DescribeShareGroupOffsets (start offset and lag) and DescribeConfigs. Kafka shows neither
  the counts of records by state nor the end of a share partition's window: they are
  answered null, as is the lag when Kafka does not know it. Kafka keeps no time a member was
  last seen (``last_seen_ms`` -1) nor when the group was created.
- **Resets and deletions**: AlterShareGroupOffsets with targets the gateway resolves with
  ListOffsets, DeleteShareGroupOffsets and DeleteGroups, on an empty group only.
- **Per-record view**: no Kafka API shows it: ``UNSUPPORTED_ON_KAFKA_BACKEND``
  (``share_record_view``).
"""

from __future__ import annotations

import asyncio
import builtins
import re
import time
from collections.abc import Callable, Mapping
from typing import TypeVar

from app.errors import Conflict, ErrorCode, InvalidRequest, NotFound
from app.kafka.cluster import Cluster
from app.kafka.errors_map import to_sluice
from app.kafka.groups import send_to_group
from app.kafka.offsets import (
    EARLIEST,
    LATEST,
    READ_COMMITTED,
    READ_UNCOMMITTED,
    list_offsets,
)
from app.kafka.protocol.errors import NONE, BrokerError
from app.kafka.protocol.message import Request, Response
from app.kafka.protocol.messages import (
    AlterShareGroupOffsetsRequest,
    AlterShareGroupOffsetsResponse,
    DeleteGroupsRequest,
    DeleteGroupsResponse,
    DeleteShareGroupOffsetsRequest,
    DeleteShareGroupOffsetsResponse,
    DescribeConfigsRequest,
    DescribeShareGroupOffsetsRequest,
    DescribeShareGroupOffsetsResponse,
    IncrementalAlterConfigsRequest,
    ListGroupsRequest,
    ShareGroupDescribeRequest,
    ShareGroupDescribeResponse,
)
from app.kafka.transactions import KafkaUnsupported
from app.share import group_config
from app.share.admin import (
    PartitionSummary,
    ResetKind,
    ResetTarget,
    ShareGroupListing,
    TopicReset,
)
from app.share.group_config import GroupConfig
from app.share.membership import Member, ShareGroup, ShareGroupState
from app.share.partition import RecordView
from app.topics import NAME, validate_name

R = TypeVar("R", bound=Response)

GROUP_RESOURCE = 32  # ConfigResource type of a group
TOPIC_RESOURCE = 2
SET, DELETE = 0, 1  # IncrementalAlterConfigs' operations
GROUP_CONFIG_SOURCE = 8  # DescribeConfigs' config_source: set on the group itself
GROUP_ID_NOT_FOUND = 69
UNKNOWN_TOPIC_OR_PARTITION = 3
INVALID_CONFIG, INVALID_REQUEST = 40, 42
DEAD = "Dead"
# Kafka's share group lock and limits are bounded by the broker; the rest are checked here
MAX_INT32 = (1 << 31) - 1

CONFIG_NAMES = {
    "record_lock_duration_ms": "share.record.lock.duration.ms",
    "delivery_count_limit": "share.delivery.count.limit",
    "partition_max_record_locks": "share.partition.max.record.locks",
    "auto_offset_reset": "share.auto.offset.reset",
    "isolation_level": "share.isolation.level",
    "renew_enabled": "share.renew.acknowledge.enable",
    "dead_letter_topic": "errors.deadletterqueue.topic.name",
}
KEYS_BY_NAME = {v: k for k, v in CONFIG_NAMES.items()}
# the broker's default errors.deadletterqueue.topic.name.prefix: a dead-letter topic of Kafka
# must be named with it
DLQ_PREFIX = "dlq."
DLQ_COPY_RECORD = "errors.deadletterqueue.copy.record.enable"
DLQ_TOPIC_OPT_IN = "errors.deadletterqueue.group.enable"
# what a group answers for a key Kafka does not describe (Kafka's defaults)
DEFAULTS: dict[str, object] = {
    "record_lock_duration_ms": 30_000,
    "delivery_count_limit": 5,
    "partition_max_record_locks": 2000,
    "auto_offset_reset": "latest",
    "isolation_level": "read_uncommitted",
    "renew_enabled": True,
    "dead_letter_topic": "",
}
# an ISO-8601 duration as Kafka's by_duration takes it (days, hours, minutes, seconds)
_DURATION = re.compile(r"P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.(\d{1,9}))?S)?)?")
STATES = {s.value: s for s in ShareGroupState}


def _bad(message: str) -> InvalidRequest:
    return InvalidRequest(ErrorCode.INVALID_CONFIG, message)


def duration_of_ms(ms: int) -> str:
    """``ms`` as the ISO-8601 duration Kafka's ``by_duration:`` takes."""
    seconds, rest = divmod(ms, 1000)
    return f"PT{seconds}.{rest:03d}S" if rest else f"PT{seconds}S"


def ms_of_duration(text: str) -> int | None:
    """The milliseconds of an ISO-8601 duration as Kafka's ``by_duration:`` takes it; None for
    a form this does not read."""
    m = _DURATION.fullmatch(text)
    if m is None:
        return None
    days, hours, minutes, seconds, fraction = m.groups()
    total_s = int(days or 0) * 86_400 + int(hours or 0) * 3600 + int(minutes or 0) * 60
    ms = (total_s + int(seconds or 0)) * 1000
    return ms + int((fraction or "").ljust(3, "0")[:3] or 0)


def kafka_value(key: str, value: object) -> str:
    """The contract's ``value`` of ``key`` in Kafka's form. Raises ``INVALID_CONFIG`` for a
    value of the wrong kind; Kafka checks the bounds."""
    if key in ("record_lock_duration_ms", "delivery_count_limit", "partition_max_record_locks"):
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_INT32:
            raise _bad(f"{key} must be an integer")
        return str(value)
    if key == "auto_offset_reset":
        reset = group_config.parse_offset_reset(value)
        if reset.startswith("by_duration:"):
            return "by_duration:" + duration_of_ms(int(reset.removeprefix("by_duration:")))
        return reset
    if key == "isolation_level":
        if not isinstance(value, str) or value not in group_config.ISOLATION_LEVELS:
            levels = ", ".join(group_config.ISOLATION_LEVELS)
            raise _bad(f"isolation_level must be one of {levels}")
        return value
    if key == "renew_enabled":
        if not isinstance(value, bool):
            raise _bad("renew_enabled must be true or false")
        return "true" if value else "false"
    # dead_letter_topic
    if not isinstance(value, str) or (value and not NAME.fullmatch(value)):
        raise _bad('dead_letter_topic must be a topic name (or null or "" for none)')
    return value


def contract_value(key: str, value: str) -> object:
    """Kafka's ``value`` of the group config behind ``key`` in the contract's form (the
    default for a value this cannot read)."""
    try:
        if key in ("record_lock_duration_ms", "delivery_count_limit", "partition_max_record_locks"):
            return int(value)
    except ValueError:
        return DEFAULTS[key]
    if key == "renew_enabled":
        return value.lower() == "true"
    if key == "auto_offset_reset" and value.startswith("by_duration:"):
        ms = ms_of_duration(value.removeprefix("by_duration:"))
        return value if ms is None else f"by_duration:{ms}"
    return value


def group_config_of(
    described: Mapping[str, tuple[str | None, int]],
) -> tuple[dict[str, object], GroupConfig]:
    """The keys set on the group and its effective config, from DescribeConfigs' ``name:
    (value, source)``."""
    explicit: dict[str, object] = {}
    values = dict(DEFAULTS)
    for name, (value, source) in described.items():
        key = KEYS_BY_NAME.get(name)
        if key is None or value is None:
            continue
        values[key] = contract_value(key, value)
        if source == GROUP_CONFIG_SOURCE:
            explicit[key] = values[key]
    config = GroupConfig(
        record_lock_duration_ms=_typed(values["record_lock_duration_ms"], int),
        delivery_count_limit=_typed(values["delivery_count_limit"], int),
        partition_max_record_locks=_typed(values["partition_max_record_locks"], int),
        auto_offset_reset=_typed(values["auto_offset_reset"], str),
        isolation_level=_typed(values["isolation_level"], str),
        renew_enabled=_typed(values["renew_enabled"], bool),
        dead_letter_topic=_typed(values["dead_letter_topic"], str) or None,
    )
    return explicit, config


T = TypeVar("T", int, str, bool)


def _typed(value: object, kind: type[T]) -> T:
    assert isinstance(value, kind)
    return value


class KafkaShareAdmin:
    """The seam's ``ShareAdmin`` on a Kafka cluster. ``timeout_ms`` bounds the wait for a
    config change to be described by a broker."""

    def __init__(self, cluster: Cluster, *, timeout_ms: int = 30_000) -> None:
        self.cluster = cluster
        self.timeout_ms = timeout_ms

    # -- config ----------------------------------------------------------------------------------

    async def configure(self, group_id: str, changes: Mapping[str, object]) -> ShareGroup:
        """Set (null or ``""``: back to Kafka's default) the group's configs; answers the group
        with its effective config once a broker describes the change. Raises
        ``INVALID_CONFIG``, ``UNKNOWN_TOPIC_OR_PARTITION`` (a dead-letter topic that does not
        exist), ``UNSUPPORTED_ON_KAFKA_BACKEND`` (``dead_letter_topic_name``)."""
        validate_name(group_id, "group")
        configs: dict[str, str | None] = {}
        for key, value in changes.items():
            if key not in CONFIG_NAMES:
                known = ", ".join(group_config.KEYS)
                raise _bad(f"unknown config key {key!r}; known: {known}")
            empty = value is None or (key == "dead_letter_topic" and value == "")
            configs[CONFIG_NAMES[key]] = None if empty else kafka_value(key, value)
        dlq = configs.get(CONFIG_NAMES["dead_letter_topic"])
        if dlq is not None:
            if not dlq.startswith(DLQ_PREFIX):
                raise KafkaUnsupported(
                    "dead_letter_topic_name",
                    f"Kafka's dead-letter topics are named with the prefix {DLQ_PREFIX!r}; "
                    f"{dlq!r} is not",
                )
            try:
                await self.cluster.topic(dlq)
            except BrokerError:
                raise NotFound(
                    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                    f"dead_letter_topic {dlq!r} does not exist",
                ) from None
            # Kafka's copies carry only its headers unless the group asks for the record too
            configs[DLQ_COPY_RECORD] = "true"
        if configs:
            # checked by Kafka before the topic opts in, so that a refusal changes nothing
            await self._alter(GROUP_RESOURCE, group_id, configs, validate_only=True)
            if dlq is not None:
                await self._alter(TOPIC_RESOURCE, dlq, {DLQ_TOPIC_OPT_IN: "true"}, False)
            await self._alter(GROUP_RESOURCE, group_id, configs, validate_only=False)
        explicit, config = await self._described_config(group_id, configs)
        group = ShareGroup(group_id, explicit, config, created_ms=-1)
        try:
            described = await self._describe(group_id)
        except NotFound:
            return group  # configs set on a group no member has joined yet
        group.members = _members(described)
        group.group_epoch = described.group_epoch
        return group

    async def _alter(
        self, resource_type: int, name: str, configs: Mapping[str, str | None], validate_only: bool
    ) -> None:
        conn = await self.cluster.any_connection()
        answer = await conn.send(
            IncrementalAlterConfigsRequest(
                validate_only=validate_only,
                resources=[
                    IncrementalAlterConfigsRequest.AlterConfigsResource(
                        resource_type=resource_type,
                        resource_name=name,
                        configs=[
                            IncrementalAlterConfigsRequest.AlterableConfig(
                                name=k, config_operation=DELETE if v is None else SET, value=v
                            )
                            for k, v in configs.items()
                        ],
                    )
                ],
            )
        )
        (result,) = answer.responses
        if result.error_code == NONE:
            return
        what = f"share group {name!r}" if resource_type == GROUP_RESOURCE else f"topic {name!r}"
        if result.error_code in (INVALID_CONFIG, INVALID_REQUEST):
            raise _bad(f"{what}: {result.error_message or 'the config was refused'}")
        raise to_sluice(result.error_code, result.error_message, what, answer.throttle_time_ms)

    async def _describe_configs(self, group_id: str) -> dict[str, tuple[str | None, int]]:
        conn = await self.cluster.any_connection()
        answer = await conn.send(
            DescribeConfigsRequest(
                resources=[
                    DescribeConfigsRequest.DescribeConfigsResource(
                        resource_type=GROUP_RESOURCE,
                        resource_name=group_id,
                        configuration_keys=None,
                    )
                ]
            )
        )
        (result,) = answer.results
        if result.error_code != NONE:
            raise to_sluice(result.error_code, result.error_message, f"share group {group_id!r}")
        return {c.name: (c.value, c.config_source) for c in result.configs}

    async def _described_config(
        self, group_id: str, wanted: Mapping[str, str | None]
    ) -> tuple[dict[str, object], GroupConfig]:
        """The group's config once a broker describes ``wanted`` (a key with None: no longer
        set on the group), or as described when the wait runs out."""
        deadline = time.monotonic() + self.timeout_ms / 1000
        attempt = 0
        while True:
            described = await self._describe_configs(group_id)
            if (
                all(
                    (described.get(k, (None, -1))[1] != GROUP_CONFIG_SOURCE)
                    if v is None
                    else described.get(k, (None, -1)) == (v, GROUP_CONFIG_SOURCE)
                    for k, v in wanted.items()
                )
                or time.monotonic() > deadline
            ):
                return group_config_of(described)
            await asyncio.sleep(min(self.cluster.retry_backoff * (2**attempt), 0.2))
            attempt += 1

    # -- list and describe -----------------------------------------------------------------------

    async def group_ids(self) -> builtins.list[str]:
        """The ids of the share groups every broker's coordinator knows, sorted (ListGroups of
        type share on every broker: each lists only the groups it coordinates)."""
        await self.cluster.refresh_metadata([])
        found: set[str] = set()
        for node_id in builtins.list(self.cluster.brokers):
            conn = await self.cluster.connection(node_id)
            answer = await conn.send(ListGroupsRequest(types_filter=["share"]))
            if answer.error_code != NONE:
                raise to_sluice(answer.error_code, None, f"ListGroups on broker {node_id}")
            found.update(g.group_id for g in answer.groups)
        return sorted(found)

    async def list(self) -> builtins.list[ShareGroupListing]:
        """Every share group every broker's coordinator knows, by id, with its state and
        number of members (a group gone between the list and its description is left out)."""
        out: builtins.list[ShareGroupListing] = []
        for group_id in await self.group_ids():
            try:
                d = await self._describe(group_id)
            except NotFound:
                continue
            out.append(ShareGroupListing(group_id, _state(d), len(d.members)))
        return out

    async def describe(self, group_id: str) -> tuple[ShareGroup, builtins.list[PartitionSummary]]:
        """ShareGroupDescribe, DescribeShareGroupOffsets and DescribeConfigs. Raises
        ``GROUP_ID_NOT_FOUND``."""
        validate_name(group_id, "group")
        d = await self._describe(group_id)
        explicit, config = group_config_of(await self._describe_configs(group_id))
        group = ShareGroup(
            group_id,
            explicit,
            config,
            created_ms=-1,
            members=_members(d),
            group_epoch=d.group_epoch,
        )
        return group, await self._start_offsets(group_id)

    async def _describe(self, group_id: str) -> ShareGroupDescribeResponse.DescribedGroup:
        what = f"share group {group_id!r}"
        answer: ShareGroupDescribeResponse = await self._send(
            group_id,
            lambda: ShareGroupDescribeRequest(group_ids=[group_id]),
            lambda a: a.groups[0].error_code if a.groups else NONE,
            what,
        )
        (d,) = answer.groups
        if d.error_code == GROUP_ID_NOT_FOUND or (d.error_code == NONE and d.group_state == DEAD):
            raise NotFound(ErrorCode.GROUP_ID_NOT_FOUND, f"{what} does not exist")
        if d.error_code != NONE:
            raise to_sluice(d.error_code, d.error_message, what, answer.throttle_time_ms)
        return d

    async def _start_offsets(self, group_id: str) -> builtins.list[PartitionSummary]:
        what = f"share group {group_id!r}"
        answer: DescribeShareGroupOffsetsResponse = await self._send(
            group_id,
            lambda: DescribeShareGroupOffsetsRequest(
                groups=[
                    DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestGroup(
                        group_id=group_id, topics=None
                    )
                ]
            ),
            lambda a: a.groups[0].error_code if a.groups else NONE,
            what,
        )
        (g,) = answer.groups
        if g.error_code != NONE:
            raise to_sluice(g.error_code, g.error_message, what, answer.throttle_time_ms)
        out: builtins.list[PartitionSummary] = []
        for t in g.topics:
            for p in t.partitions:
                if p.error_code != NONE or p.start_offset < 0:
                    continue  # a partition Kafka has not started the group on
                counts: dict[str, int | None] = dict.fromkeys(
                    ("available", "acquired", "acknowledged", "archived")
                )
                lag = p.lag if p.lag >= 0 else None
                out.append(
                    PartitionSummary(
                        t.topic_name, p.partition_index, p.start_offset, None, counts, lag
                    )
                )
        return sorted(out, key=lambda s: (s.topic, s.partition))

    async def record_views(
        self, group_id: str, topic_name: str, p: int, lo: int | None, hi: int | None, limit: int
    ) -> tuple[int, int, builtins.list[RecordView]]:
        raise KafkaUnsupported(
            "share_record_view",
            "no Kafka API shows the state of each record of a share partition",
        )

    # -- resets and deletions --------------------------------------------------------------------

    async def _require_empty(self, group_id: str) -> None:
        d = await self._describe(group_id)
        if d.members:
            raise Conflict(
                ErrorCode.NON_EMPTY_GROUP,
                f"share group {group_id!r} has {len(d.members)} members",
            )

    async def reset_offsets(
        self, group_id: str, targets: builtins.list[TopicReset], dry_run: bool
    ) -> builtins.list[tuple[str, builtins.list[tuple[int, int]]]]:
        """The start offsets ``targets`` resolve to (ListOffsets), set with
        AlterShareGroupOffsets unless ``dry_run``. Raises ``GROUP_ID_NOT_FOUND``,
        ``NON_EMPTY_GROUP``, ``UNKNOWN_TOPIC_OR_PARTITION``, ``OFFSET_OUT_OF_RANGE``."""
        validate_name(group_id, "group")
        await self._require_empty(group_id)
        # the group's partitions end at the last stable offset under read_committed
        _, config = group_config_of(await self._describe_configs(group_id))
        isolation = (
            READ_COMMITTED if config.isolation_level == "read_committed" else READ_UNCOMMITTED
        )
        plan: builtins.list[tuple[str, builtins.list[tuple[int, int]]]] = []
        for target in targets:
            try:
                info = await self.cluster.topic(target.topic)
            except BrokerError as exc:
                raise to_sluice(exc.code, None, f"topic {target.topic!r}") from None
            ps = sorted(info.partitions) if target.partitions is None else target.partitions
            for p in ps:
                if p not in info.partitions:
                    raise NotFound(
                        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                        f"topic {target.topic!r} has no partition {p}",
                    )
            if isinstance(target.to, InvalidRequest):
                if ps:
                    raise target.to
                plan.append((target.topic, []))
                continue
            moved = await self._resolve(target.topic, ps, target.to, isolation)
            plan.append((target.topic, moved))
        if not dry_run and any(moved for _, moved in plan):
            await self._alter_offsets(group_id, plan)
        return plan

    async def _resolve(
        self, topic: str, ps: builtins.list[int], to: ResetTarget, isolation: int
    ) -> builtins.list[tuple[int, int]]:
        """The start offset of each partition of ``ps`` that ``to`` names, the end being the
        last stable offset under ``isolation`` read_committed (for an offset too: as the
        embedded engine, it may be up to the high watermark)."""

        async def at(timestamp: int, level: int = isolation) -> dict[int, int]:
            try:
                found = await list_offsets(self.cluster, topic, dict.fromkeys(ps, timestamp), level)
            except BrokerError as exc:
                raise to_sluice(exc.code, None, f"topic {topic!r}") from None
            return {p: offset for p, (offset, _) in found.items()}

        if not ps:
            return []
        if to.kind is ResetKind.EARLIEST:
            starts = await at(EARLIEST)
        elif to.kind is ResetKind.LATEST:
            starts = await at(LATEST)
        elif to.kind is ResetKind.TIMESTAMP:
            starts = await at(to.value)
            if any(o < 0 for o in starts.values()):  # no record that late: the end
                ends = await at(LATEST)
                starts = {p: ends[p] if o < 0 else o for p, o in starts.items()}
        else:
            lo, hi = await at(EARLIEST), await at(LATEST, READ_UNCOMMITTED)
            for p in ps:
                if not lo[p] <= to.value <= hi[p]:
                    raise Conflict(
                        ErrorCode.OFFSET_OUT_OF_RANGE,
                        f"offset {to.value} is outside [{lo[p]}, {hi[p]}] of {topic}/{p}",
                    )
            starts = dict.fromkeys(ps, to.value)
        return [(p, starts[p]) for p in ps]

    async def _alter_offsets(
        self, group_id: str, plan: builtins.list[tuple[str, builtins.list[tuple[int, int]]]]
    ) -> None:
        what = f"share group {group_id!r}"
        answer: AlterShareGroupOffsetsResponse = await self._send(
            group_id,
            lambda: AlterShareGroupOffsetsRequest(
                group_id=group_id,
                topics=[
                    AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestTopic(
                        topic_name=topic,
                        partitions=[
                            AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestPartition(
                                partition_index=p, start_offset=offset
                            )
                            for p, offset in moved
                        ],
                    )
                    for topic, moved in plan
                    if moved
                ],
            ),
            lambda a: a.error_code,
            what,
        )
        if answer.error_code != NONE:
            raise to_sluice(answer.error_code, answer.error_message, what, answer.throttle_time_ms)
        for t in answer.responses:
            for p in t.partitions:
                if p.error_code != NONE:
                    where = f"{what}, {t.topic_name}/{p.partition_index}"
                    raise to_sluice(p.error_code, p.error_message, where, answer.throttle_time_ms)

    async def delete_offsets(self, group_id: str, topic_name: str) -> None:
        """DeleteShareGroupOffsets of one topic. Raises ``GROUP_ID_NOT_FOUND``,
        ``NON_EMPTY_GROUP``, ``UNKNOWN_TOPIC_OR_PARTITION``."""
        validate_name(group_id, "group")
        await self._require_empty(group_id)
        try:
            await self.cluster.topic(topic_name)
        except BrokerError as exc:
            raise to_sluice(exc.code, None, f"topic {topic_name!r}") from None
        what = f"share group {group_id!r}"
        answer: DeleteShareGroupOffsetsResponse = await self._send(
            group_id,
            lambda: DeleteShareGroupOffsetsRequest(
                group_id=group_id,
                topics=[
                    DeleteShareGroupOffsetsRequest.DeleteShareGroupOffsetsRequestTopic(
                        topic_name=topic_name
                    )
                ],
            ),
            lambda a: a.error_code,
            what,
        )
        if answer.error_code != NONE:
            raise to_sluice(answer.error_code, answer.error_message, what, answer.throttle_time_ms)
        for t in answer.responses:
            # Kafka refuses a topic the group has no start offsets of; the embedded engine
            # forgets nothing and answers 204, as here (the topic exists: checked above)
            if t.error_code not in (NONE, UNKNOWN_TOPIC_OR_PARTITION):
                where = f"{what}, topic {t.topic_name!r}"
                raise to_sluice(t.error_code, t.error_message, where, answer.throttle_time_ms)

    async def delete_group(self, group_id: str) -> None:
        """DeleteGroups. Raises ``GROUP_ID_NOT_FOUND``, ``NON_EMPTY_GROUP`` (Kafka's
        refusals of a group with members)."""
        validate_name(group_id, "group")
        await self._describe(group_id)  # a consumer group of that id is not this route's
        what = f"share group {group_id!r}"
        answer: DeleteGroupsResponse = await self._send(
            group_id,
            lambda: DeleteGroupsRequest(groups_names=[group_id]),
            lambda a: a.results[0].error_code if a.results else NONE,
            what,
        )
        (r,) = answer.results
        if r.error_code != NONE:
            raise to_sluice(r.error_code, None, what, answer.throttle_time_ms)

    async def _send(
        self,
        group_id: str,
        build: Callable[[], Request[R]],
        error_of: Callable[[R], int],
        what: str,
    ) -> R:
        return await send_to_group(self.cluster, group_id, build, error_of, what)


def _state(d: ShareGroupDescribeResponse.DescribedGroup) -> ShareGroupState:
    """Kafka's state of the group as the contract's (Empty without members, else Stable)."""
    state = STATES.get(d.group_state)
    if state is None:
        return ShareGroupState.STABLE if d.members else ShareGroupState.EMPTY
    return state


def _members(d: ShareGroupDescribeResponse.DescribedGroup) -> dict[str, Member]:
    """The group's members as the contract's, their assignment by topic name. Kafka keeps no
    time a member was last seen (-1) nor who joined it."""
    return {
        m.member_id: Member(
            m.member_id,
            m.member_epoch,
            builtins.list(m.subscribed_topic_names),
            -1,
            None,
            assignment=[
                (t.topic_name, sorted(t.partitions)) for t in m.assignment.topic_partitions
            ],
        )
        for m in d.members
    }

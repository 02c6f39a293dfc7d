"""``KafkaFeedState``: the state the event feed shows (``app.engine.feed.FeedState``), read from a
Kafka cluster once a tick (docs/kafka.md#feed). The same entities as the embedded engine's,
field for field, from:

- topics: Metadata of every topic but Kafka's and the gateway's internal ones, and ListOffsets
  of each (earliest, latest, and latest read committed: the last stable offset);
- consumer groups: ListGroups on every broker, ConsumerGroupDescribe and OffsetFetch of each,
  the lag behind the high watermarks just listed;
- share groups: ListGroups of type share, ShareGroupDescribe, DescribeConfigs and
  DescribeShareGroupOffsets of each. Kafka shows neither the records of a share partition by
  state nor the end of its window: ``runs`` is empty, ``runs_truncated`` false, the counts,
  ``end_offset`` and ``delivery_limit_archived`` null, and a member's ``last_seen_ms`` -1;
- open transactions: ListTransactions of the states ``Ongoing``, ``PrepareCommit`` and
  ``PrepareAbort`` on every broker, DescribeTransactions of each.

The requests go over a cluster connection of the feed's own, opened at the first reading (no
connection until a socket opens): the brokers answer one connection's requests in order, so a
reading never waits behind the gateway's produces and reads, nor they behind it. Reading
everything is bounded by ``timeout_ms``; a reading that fails (a broker down, a timeout) is
logged (once, until a reading succeeds again) and answers the last state read, marked stale,
so that the feed shows no change and samples no rates rather than losing its sockets. One
entity that cannot be read while the others can (a partition without a leader) is as last
read. The produce rate is the growth of the high watermarks (every gateway's and every
client's records); the consume rate counts the records this gateway answered to reads, share
fetches and push sockets (another gateway's clients are counted by that gateway's feed).
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Awaitable, Callable, Mapping

from app._feed_state import Entity, TopicCounts, empty_state, share_group_entity
from app.clock import Clock
from app.config import Settings
from app.engine.feed import FeedObservation
from app.errors import NotFound, SluiceError
from app.kafka.cluster import Cluster, TopicInfo
from app.kafka.groups import KafkaGroups
from app.kafka.offsets import EARLIEST, LATEST, READ_COMMITTED, READ_UNCOMMITTED, list_offsets
from app.kafka.produce import KafkaProduce
from app.kafka.reads import KafkaReads
from app.kafka.share_admin import KafkaShareAdmin
from app.kafka.topics import KafkaTopics
from app.kafka.transactions import KafkaTransactions
from app.topics import is_valid_name
from app.transactions.state import TxnState

log = logging.getLogger(__name__)

OPEN = (TxnState.ONGOING, TxnState.PREPARE_COMMIT, TxnState.PREPARE_ABORT)

# a topic's partitions' offsets: (log start, high watermark, last stable) by partition
Offsets = dict[int, tuple[int, int, int]]


class KafkaFeedState:
    """The feed's state over ``cluster`` (not started: it connects at the first reading)."""

    def __init__(
        self,
        cluster: Cluster,
        settings: Settings,
        clock: Clock,
        consumed: Mapping[str, int] | None = None,
    ) -> None:
        self.cluster = cluster
        # records this gateway answered to reads, share fetches and push sockets, by topic
        self.consumed: Mapping[str, int] = {} if consumed is None else consumed
        self.timeout_ms = settings.kafka_request_timeout_ms
        self.topics = KafkaTopics(cluster, timeout_ms=self.timeout_ms)
        self.groups = KafkaGroups(
            cluster, KafkaReads(cluster, clock=clock, request_timeout_ms=self.timeout_ms)
        )
        self.share_admin = KafkaShareAdmin(cluster, timeout_ms=self.timeout_ms)
        self.transactions = KafkaTransactions(
            cluster, KafkaProduce(cluster, settings, timeout_ms=self.timeout_ms), clock=clock
        )
        self._last: FeedObservation | None = None
        self._failing = False  # the last reading failed

    async def observe(self, now_ms: int, max_runs: int) -> FeedObservation:
        try:
            async with asyncio.timeout(self.timeout_ms / 1000):
                seen = await self._read(now_ms)
        except Exception as exc:  # a tick must not fail: any error of the cluster is logged
            # once per outage, not on every tick of it
            (log.debug if self._failing else log.warning)(
                "the event feed cannot read the Kafka cluster (%r): it shows the last state", exc
            )
            self._failing = True
            if self._last is None:
                return FeedObservation(empty_state(), {}, {}, (0, 0), stale=True)
            # a copy: the feed adds the topics' rates to the entities it is given
            return copy.deepcopy(self._last)._replace(stale=True)
        if self._failing:
            log.info("the event feed reads the Kafka cluster again")
            self._failing = False
        self._last = seen  # the feed adds rates to its topics, which the next reading replaces
        return seen

    async def close(self) -> None:
        await self.cluster.close()

    # -- one reading ---------------------------------------------------------------------------

    async def _read(self, now_ms: int) -> FeedObservation:
        """The state now. An entity that cannot be read while the rest can (a partition without
        a leader, a group whose coordinator is moving) is as last read, so that it neither
        leaves the feed nor holds up the rest; listing the topics, groups or transactions
        must succeed."""
        last = self._last or FeedObservation(empty_state(), {}, {})
        names = [t.name for t in await self.topics.list()]  # Metadata of every topic
        infos = [info for name in names if (info := self.cluster.topics.get(name)) is not None]
        read = await asyncio.gather(*(self._offsets(info) for info in infos))
        state = empty_state()
        counts: dict[str, TopicCounts] = {}
        for info, parts in zip(infos, read, strict=True):
            if parts is None:
                if info.name in last.state["topics"]:
                    # a copy: the feed sets the topic's rate on the entity it is given
                    state["topics"][info.name] = dict(last.state["topics"][info.name])
                    counts[info.name] = last.counts[info.name]
                continue
            state["topics"][info.name] = {
                "topic": info.name,
                "partitions": [
                    {
                        "partition": p,
                        "log_start_offset": start,
                        "last_stable_offset": stable,
                        "high_watermark": hw,
                    }
                    for p, (start, hw, stable) in sorted(parts.items())
                ],
            }
            appended = sum(hw for _, hw, _ in parts.values())
            # Kafka keeps no count of a topic's produced or read records: what was produced is
            # what was appended, by any client; what was read, what this gateway answered
            consumed = self.consumed.get(info.name, 0)
            counts[info.name] = TopicCounts(info.topic_id.int, appended, appended, consumed)
        hws = {
            name: {p["partition"]: p["high_watermark"] for p in e["partitions"]}
            for name, e in state["topics"].items()
        }
        state["groups"], state["share_groups"], txns = await asyncio.gather(
            self._entities(
                self.groups.list_groups(), lambda g: self._group(g, hws), last.state["groups"]
            ),
            self._entities(
                self.share_admin.group_ids(), self._share_group, last.state["share_groups"]
            ),
            self._transactions(now_ms, last),
        )
        txn_topics: dict[str, dict[str, int]] = {}
        for entity, written in txns:
            state["transactions"][entity["transactional_id"]] = entity
            txn_topics[entity["transactional_id"]] = written
        appended_total = sum(c.appended for c in counts.values())
        return FeedObservation(state, counts, txn_topics, (appended_total, 0))

    async def _offsets(self, info: TopicInfo) -> Offsets | None:
        """The topic's partitions' log start offsets, high watermarks and last stable
        offsets; None when they cannot be read now."""
        partitions = sorted(info.partitions)
        try:
            earliest, latest, stable = await asyncio.gather(
                *(
                    list_offsets(
                        self.cluster,
                        info.name,
                        dict.fromkeys(partitions, at),
                        level,
                        timeout_ms=self.timeout_ms,
                    )
                    for at, level in (
                        (EARLIEST, READ_UNCOMMITTED),
                        (LATEST, READ_UNCOMMITTED),
                        (LATEST, READ_COMMITTED),
                    )
                )
            )
        except SluiceError as exc:
            log.debug("the event feed cannot read the offsets of topic %r: %s", info.name, exc)
            return None
        return {p: (earliest[p].offset, latest[p].offset, stable[p].offset) for p in partitions}

    async def _entities(
        self,
        listed: Awaitable[list[str]],
        read: Callable[[str], Awaitable[Entity | None]],
        last: dict[str, Entity],
    ) -> dict[str, Entity]:
        """The groups ``listed``, each ``read`` (None: gone since it was listed), or as in
        ``last`` when it cannot be read now. A group whose id is outside the contract's names
        (1-249 characters of ``[A-Za-z0-9._-]``, which Kafka does not require) is left out:
        no route could name it."""

        async def one(group_id: str) -> Entity | None:
            try:
                return await read(group_id)
            except NotFound:
                return None
            except SluiceError as exc:
                log.debug("the event feed cannot read group %r: %s", group_id, exc)
                return last.get(group_id)

        ids = [g for g in await listed if is_valid_name(g)]
        described = await asyncio.gather(*(one(g) for g in ids))
        return {e["group_id"]: e for e in described if e is not None}

    async def _group(self, group_id: str, hws: dict[str, dict[int, int]]) -> Entity:
        """The consumer group with its committed offsets and their lag behind the high
        watermarks ``hws`` (an offset of a topic not there is left out, as the embedded engine
        leaves out the offsets of a deleted topic)."""
        g = await self.groups.describe_group(group_id)
        lags = []
        for v in await self.groups.fetch_offsets(group_id, None, False):
            hw = hws.get(v.topic, {}).get(v.partition)
            if v.error is None and hw is not None:
                lag = max(0, hw - v.offset)
                lags.append(
                    {"topic": v.topic, "partition": v.partition, "offset": v.offset, "lag": lag}
                )
        return {
            "group_id": g.group_id,
            "state": g.state.value,
            "group_epoch": g.epoch,
            "members": len(g.members),
            "offsets": lags,
        }

    async def _share_group(self, group_id: str) -> Entity:
        group, partitions = await self.share_admin.describe(group_id)
        return share_group_entity(
            group,
            [
                {
                    "topic": v.topic,
                    "partition": v.partition,
                    "start_offset": v.start_offset,
                    "end_offset": v.end_offset,
                    **v.counts,
                    "lag": v.lag,
                    "delivery_limit_archived": None,
                    "runs": [],
                    "runs_truncated": False,
                }
                for v in partitions
            ],
        )

    async def _transactions(
        self, now_ms: int, last: FeedObservation
    ) -> list[tuple[Entity, dict[str, int]]]:
        """The open transactions, by id, each with how many partitions it wrote of each topic
        (one that ended between the list and its description is left out; one that cannot be
        described now is as in ``last``)."""

        async def one(tid: str) -> tuple[Entity, dict[str, int]] | None:
            try:
                d = await self.transactions.describe_one(tid, missing_ok=True)
            except SluiceError as exc:
                log.debug("the event feed cannot describe transaction %r: %s", tid, exc)
                entity = last.state["transactions"].get(tid)
                return None if entity is None else (entity, last.txn_topics.get(tid, {}))
            if d is None or d.state not in OPEN:
                return None
            written: dict[str, int] = {}
            for topic, _ in d.partitions:
                written[topic] = written.get(topic, 0) + 1
            entity = {
                "transactional_id": d.transactional_id,
                "producer_id": d.producer_id,
                "producer_epoch": d.producer_epoch,
                "state": d.state.value,
                "timeout_ms": d.timeout_ms,
                "time_left_ms": max(d.start_ms + d.timeout_ms - now_ms, 0),
                "partitions": len(d.partitions),
            }
            return entity, written

        tids = await self.transactions.list_transactions(OPEN)
        return [t for t in await asyncio.gather(*(one(tid) for tid in tids)) if t is not None]

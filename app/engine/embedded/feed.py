"""``EmbeddedFeedState``: the state the event feed shows, read from the embedded engine's
objects, as ``app.feed.EventFeed._observe`` and ``_share_group`` read it before the feed was
given it (the same entities, field for field; ``tests/integration/test_engine_feed_state.py``
compares them with what the feed shows)."""

from __future__ import annotations

from typing import Any

from app._feed_state import Entity, TopicCounts, empty_state, share_group_entity
from app.engine.feed import FeedObservation
from app.groups.coordinator import GroupCoordinator
from app.share.admin import ShareGroupAdmin, summary
from app.share.membership import ShareGroup
from app.topics import TopicRegistry
from app.transactions.coordinator import TransactionCoordinator
from app.transactions.state import TxnState

_OPEN = (TxnState.ONGOING, TxnState.PREPARE_COMMIT, TxnState.PREPARE_ABORT)


class EmbeddedFeedState:
    def __init__(
        self,
        topics: TopicRegistry,
        share_admin: ShareGroupAdmin,
        groups: GroupCoordinator,
        transactions: TransactionCoordinator,
    ) -> None:
        self.topics = topics
        self.share_admin = share_admin
        self.groups = groups
        self.transactions = transactions

    async def observe(self, now_ms: int, max_runs: int) -> FeedObservation:
        # everything is in memory: answered without awaiting
        live = sorted(
            (t for t in self.topics.topics.values() if not t.deleting), key=lambda t: t.name
        )
        counts = {
            t.name: TopicCounts(
                t.topic_id, sum(lg.high_watermark for lg in t.logs), t.produced, t.consumed
            )
            for t in live
        }
        state = empty_state()
        for t in live:
            state["topics"][t.name] = {
                "topic": t.name,
                "partitions": [
                    {
                        "partition": p,
                        "log_start_offset": lg.log_start_offset,
                        "last_stable_offset": lg.last_stable_offset,
                        "high_watermark": lg.high_watermark,
                    }
                    for p, lg in enumerate(t.logs)
                ],
            }
        share_groups = self.share_admin.membership.groups
        for gid in sorted(share_groups):
            state["share_groups"][gid] = self._share_group(share_groups[gid], max_runs)
        for g, lags in self.groups.describe_all():
            state["groups"][g.group_id] = {
                "group_id": g.group_id,
                "state": g.state.value,
                "group_epoch": g.epoch,
                "members": len(g.members),
                "offsets": [
                    {"topic": o.topic, "partition": o.partition, "offset": o.offset, "lag": o.lag}
                    for o in lags
                ],
            }
        txn_topics: dict[str, dict[str, int]] = {}
        for tm in self.transactions.listed():
            if tm.state in _OPEN:
                written = txn_topics[tm.transactional_id] = {}
                for topic, _ in tm.partitions:
                    written[topic] = written.get(topic, 0) + 1
                state["transactions"][tm.transactional_id] = {
                    "transactional_id": tm.transactional_id,
                    "producer_id": tm.producer_id,
                    "producer_epoch": tm.producer_epoch,
                    "state": tm.state.value,
                    "timeout_ms": tm.timeout_ms,
                    "time_left_ms": max(tm.start_ms + tm.timeout_ms - now_ms, 0),
                    "partitions": len(tm.partitions),
                }
        return FeedObservation(state, counts, txn_topics)

    def _share_group(self, group: ShareGroup, max_runs: int) -> Entity:
        partitions: list[dict[str, Any]] = []
        for sp, end in self.share_admin.live_partitions(group):
            runs, truncated = sp.run_views(max_runs)
            v = summary(sp, end)
            partitions.append(
                {
                    "topic": v.topic,
                    "partition": v.partition,
                    "start_offset": v.start_offset,
                    "end_offset": v.end_offset,
                    **v.counts,
                    "lag": v.lag,
                    "delivery_limit_archived": sp.delivery_limit_archived,
                    "runs": [
                        {
                            "first": r.first,
                            "last": r.last,
                            "state": r.state.label,
                            "delivery_count": r.delivery_count,
                            "member_id": r.member_id,
                            "lock_expires_at": r.lock_expires_at,
                        }
                        for r in runs
                    ],
                    "runs_truncated": truncated,
                }
            )
        return share_group_entity(group, partitions)

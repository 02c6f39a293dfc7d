"""The seam's feed state: what the event feed (``WS /v1/events``) and the dashboard show of
the engine, computed once a tick.

The feed itself (``app.feed.EventFeed``: ticks, diffs, coalescing, per-principal views and
redaction, rates) is the face's and stays as it is; what it reads of the engine is this
interface. The feed is given one (the ``Broker``'s ``feed_state``) and reads nothing else of
the engine; on the embedded engine it is ``app.engine.embedded.feed.EmbeddedFeedState``, which
reads the topic registry's dict and partition logs, the share groups and their share
partitions' runs, ``GroupCoordinator.describe_all`` and ``TransactionCoordinator.listed``.

On Kafka (docs/kafka.md, "Event feed and dashboard") a gateway computes the same entities
from Metadata, ListOffsets, ListGroups, the group descriptions and ListTransactions; a share
group's ``runs`` are empty, ``runs_truncated`` false and its counts by state ``None``.
``observe`` is a round of requests to the cluster there, so it is ``async`` on both engines
(the embedded one answers at once): the feed's publisher awaits it in its own task, and a new
socket's snapshot awaits it when no other socket is open. The gateway's is
``app.kafka.feed_state.KafkaFeedState``.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from app._feed_state import State, TopicCounts


class FeedObservation(NamedTuple):
    """One tick's reading of the engine."""

    # the entities of the feed by kind and id (app._feed_state.KINDS); a topic's entity
    # without its "rate", which the feed adds from ``counts``
    state: State
    # of each live topic: its id and record counts, from which the feed's rates come
    counts: dict[str, TopicCounts]
    # of each open transaction: how many partitions it wrote of each topic (what a principal
    # that may not describe some topics sees of the transaction's partition count)
    txn_topics: dict[str, dict[str, int]]
    # the records produced and consumed on the whole server, when the engine counts them
    # (the gateway: the growth of the high watermarks); None: the face's own counters
    totals: tuple[int, int] | None = None
    # the engine could not read its state now and answers the last it read (or none): the
    # feed shows it but takes no sample of the rates from it, so that the time it could not
    # read is filled by the next reading's average, as a time without sockets is
    stale: bool = False


class FeedState(Protocol):
    async def observe(self, now_ms: int, max_runs: int) -> FeedObservation:
        """The state now: live topics (not being deleted) by name with their partitions'
        offsets; share groups with config, members and partitions (at most ``max_runs`` runs
        of records each, then ``runs_truncated``); consumer groups with their offsets and lag;
        the open transactions (``Ongoing``, ``PrepareCommit``, ``PrepareAbort``) with the
        time left before ``now_ms`` times them out. Changes nothing and raises nothing (an engine
        that cannot read its state answers the last state it read)."""
        ...

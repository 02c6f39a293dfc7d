"""An ``app.engine.embedded.feed.EmbeddedFeedState`` built on a running app's engine observes
what the event feed holds once it has observed (``EventFeed._observe``, through the
``FeedState`` the server gives it, with the rates it adds left out), entity for entity: a
topic, a share group holding records, a consumer group with offsets and an open
transaction."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest

from app._feed_state import TopicCounts
from app.clock import FakeClock
from app.config import Settings
from app.engine import FeedState
from app.engine.embedded.feed import EmbeddedFeedState
from app.feed import MAX_RUNS

from .conftest import Served, running
from .helpers import create_topic, produce
from .share_helpers import fetch, join
from .txn_helpers import batch, init_producer, produce_ok


@pytest.fixture
async def s(settings_factory: Callable[..., Settings], clock: FakeClock) -> AsyncIterator[Served]:
    async with running(settings_factory(events_interval_ms=10_000), clock) as served:
        yield served


async def test_the_embedded_feed_state_is_what_the_feed_reads(s: Served, clock: FakeClock) -> None:
    c, b = s.client, s.broker
    await create_topic(c, "t", 2)
    await create_topic(c, "out")
    r = await c.patch("/v1/share-groups/sg/config", json={"auto_offset_reset": "earliest"})
    assert r.status_code == 200, r.text
    await produce(c, "t", [{"value": "a", "partition": 0}] * 3 + [{"value": "b", "partition": 1}])
    member = await join(c, "sg", ["t"])
    got = await fetch(c, "sg", member)
    assert got["records"]  # records held: the share group has runs to show
    r = await c.post(
        "/v1/groups/g/offsets",
        json={"offsets": [{"topic": "t", "partition": 0, "offset": 1}]},
    )
    assert r.status_code == 200, r.text
    pid, epoch = await init_producer(c, transactional_id="tx", transaction_timeout_ms=60_000)
    await produce_ok(c, pid, epoch, [batch("out", 0, 0, 2)], tid="tx")
    clock.advance(100)

    source: FeedState = EmbeddedFeedState(b.topics, b.share_admin, b.groups, b.transactions)
    seen = await source.observe(clock.now_ms(), MAX_RUNS)
    await b.feed.subscribe()  # the feed observes the state now
    assert b.feed._state is not None
    today = {
        **b.feed._state,
        "topics": {
            name: {k: v for k, v in e.items() if k != "rate"}
            for name, e in b.feed._state["topics"].items()
        },
    }
    assert seen.state == today
    assert seen.txn_topics == b.feed._txn_topics == {"tx": {"out": 1}}
    assert set(seen.state["share_groups"]["sg"]["partitions"][0]) >= {"runs", "runs_truncated"}
    assert seen.state["share_groups"]["sg"]["partitions"][0]["runs"] != []
    assert seen.state["groups"]["g"]["offsets"] == [
        {"topic": "t", "partition": 0, "offset": 1, "lag": 2}
    ]
    assert seen.state["transactions"]["tx"]["time_left_ms"] == 60_000 - 100
    t, out = b.topics.get("t"), b.topics.get("out")
    assert seen.counts == {
        "out": TopicCounts(out.topic_id, 2, out.produced, out.consumed),
        "t": TopicCounts(t.topic_id, 4, t.produced, t.consumed),
    }

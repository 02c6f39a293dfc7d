"""The event feed's pure parts: entity diffs, one socket's pending changes, rate samples."""

from __future__ import annotations

import json
from typing import Any

import orjson

from app._feed_state import KINDS, Blob, Pending, Rates, State, TopicCounts, diff, empty_state


def state(**kinds: dict[str, Any]) -> State:
    out = empty_state()
    for kind, entities in kinds.items():
        out[kind] = {key: dict(e) for key, e in entities.items()}
    return out


def blobs(changes: list[tuple[str, str, dict[str, Any] | None]]) -> list[Blob]:
    return [(k, i, None if e is None else orjson.dumps(e)) for k, i, e in changes]


def test_diff_names_added_changed_and_removed_entities_only() -> None:
    before = state(
        topics={"a": {"topic": "a", "n": 1}, "b": {"topic": "b", "n": 1}},
        groups={"g": {"group_id": "g", "members": 1}},
    )
    after = state(
        topics={"a": {"topic": "a", "n": 1}, "b": {"topic": "b", "n": 2}, "c": {"topic": "c"}},
        transactions={"t": {"transactional_id": "t"}},
    )
    assert diff(before, after) == [
        ("topics", "b", {"topic": "b", "n": 2}),
        ("topics", "c", {"topic": "c"}),
        ("groups", "g", None),
        ("transactions", "t", {"transactional_id": "t"}),
    ]
    assert diff(after, after) == []


def test_a_socket_that_never_drains_holds_one_entry_per_entity() -> None:
    pending = Pending()
    topics = [f"t{i}" for i in range(7)]
    for tick in range(1000):
        changes: list[tuple[str, str, dict[str, Any] | None]] = [
            ("topics", name, {"topic": name, "hw": tick}) for name in topics
        ]
        changes.append(("groups", "g", None if tick % 2 else {"group_id": "g", "epoch": tick}))
        pending.merge(tick, b'{"produce":1.0}', blobs(changes), b"{}", 1)
        assert len(pending.entities) <= len(topics) + 1
    frame = json.loads(pending.take())
    assert frame["at"] == 999
    assert [t["hw"] for t in frame["changes"]["topics"]] == [999] * 7  # the latest values
    assert frame["removed"]["groups"] == ["g"]  # the last word on g was its removal
    assert frame["seconds"] == 1000  # every second that closed meanwhile is counted
    assert not pending and pending.entities == {}


def test_an_entity_removed_then_back_is_a_change() -> None:
    pending = Pending()
    pending.merge(1, b"{}", blobs([("share_groups", "s", None)]), None, 0)
    pending.merge(2, b"{}", blobs([("share_groups", "s", {"group_id": "s"})]), None, 0)
    frame = json.loads(pending.take())
    assert frame["changes"]["share_groups"] == [{"group_id": "s"}]
    assert frame["removed"]["share_groups"] == []


def test_event_frame_shape() -> None:
    pending = Pending()
    assert not pending
    rates = orjson.dumps({"produce": 2.5, "consume": 0.0})
    pending.merge(7, rates, blobs([("topics", "a", {"topic": "a"})]), None, 0)
    assert pending
    frame = json.loads(pending.take())
    assert frame == {
        "type": "event",
        "at": 7,
        "rates": {"produce": 2.5, "consume": 0.0},
        "changes": {
            "topics": [{"topic": "a"}],
            "share_groups": [],
            "groups": [],
            "transactions": [],
        },
        "removed": {kind: [] for kind in KINDS},
    }
    samples = orjson.dumps({"produce": 2.5, "consume": 0.0, "topics": {"a": 2.5}})
    pending.merge(8, rates, [], samples, 1)
    assert pending  # a closed second alone is worth a frame
    frame = json.loads(pending.take())
    assert frame["samples"] == {"produce": 2.5, "consume": 0.0, "topics": {"a": 2.5}}
    assert frame["seconds"] == 1 and frame["changes"]["topics"] == []


def test_rates_one_sample_per_second() -> None:
    r = Rates()
    assert (
        r.observe(100.0, 0, 0, {"a": TopicCounts(1, 0)}) == 0
    )  # the first observation is the origin
    assert r.observe(100.25, 50, 0, {"a": TopicCounts(1, 50)}) == 0  # no second closed yet
    assert r.observe(101.0, 100, 40, {"a": TopicCounts(1, 100)}) == 1
    assert list(r.produce) == [100.0] and list(r.consume) == [40.0]
    assert r.topic_rate("a") == 100.0 and r.now() == {"produce": 100.0, "consume": 40.0}
    # a tick late by a fraction of a second: the sample covers the time since the last one
    assert r.observe(102.25, 225, 40, {"a": TopicCounts(1, 225)}) == 1
    assert list(r.produce) == [100.0, 100.0]
    assert (
        r.observe(102.9, 225, 40, {"a": TopicCounts(1, 225)}) == 0
    )  # the next second closes at 103
    assert r.observe(103.0, 225, 40, {"a": TopicCounts(1, 225)}) == 1
    assert list(r.produce) == [100.0, 100.0, 0.0]
    assert r.newest() == {"produce": 0.0, "consume": 0.0, "topics": {"a": 0.0}}


def test_rates_fill_a_gap_with_its_average_and_keep_300_samples() -> None:
    r = Rates()
    r.observe(0.0, 0, 0, {})
    assert r.observe(10.0, 1000, 0, {}) == 10
    assert list(r.produce) == [100.0] * 10
    assert r.observe(10_000.0, 1000, 0, {}) == 9990
    assert len(r.produce) == 300 and set(r.produce) == {0.0}
    assert r.history()["seconds"] == 300


def test_rates_of_new_recreated_and_deleted_topics() -> None:
    r = Rates()
    r.observe(0.0, 0, 0, {"old": TopicCounts(1, 500)})  # present from the start: no spike
    assert r.observe(1.0, 0, 0, {"old": TopicCounts(1, 510), "new": TopicCounts(2, 30)}) == 1
    assert r.topic_rate("old") == 10.0
    assert r.topic_rate("new") == 30.0  # created since the last sample: counted from 0
    # "old" deleted and created again (another id), "new" deleted
    assert r.observe(2.0, 0, 0, {"old": TopicCounts(3, 4)}) == 1
    assert r.history()["topics"] == {"old": [4.0]}
    assert r.topic_rate("new") == 0.0


def test_after_a_gap_the_next_second_starts_at_the_tick_that_ended_it() -> None:
    """A burst just after a gap is not shown at twice its rate: the tick that fills the gap
    starts the next second (a tick half a second later used to close a half "second")."""
    r = Rates()
    r.observe(100.0, 0, 0, {})
    assert r.observe(104.7, 0, 0, {}) == 4  # a gap of 4.7 s without ticks: four samples
    assert r.observe(105.2, 10, 0, {}) == 0  # 10 records half a second later: no second yet
    assert r.observe(105.7, 10, 0, {}) == 1
    assert list(r.produce)[-1] == 10.0  # ten in one second, not twenty


def test_rates_of_some_topics_are_summed_from_theirs() -> None:
    """What a principal sees: the server's produce and consume rates of the topics it may
    describe, second by second, a topic created later adding from its first second."""
    r = Rates()
    r.observe(0.0, 0, 0, {"a": TopicCounts(1, 0)})
    assert r.observe(1.0, 10, 4, {"a": TopicCounts(1, 10, 10, 4)}) == 1
    counts = {"a": TopicCounts(1, 12, 12, 4), "b": TopicCounts(2, 5, 5, 1)}
    assert r.observe(2.0, 17, 5, counts) == 1
    assert r.now() == {"produce": 7.0, "consume": 1.0}  # the server's counters
    assert r.now(["a"]) == {"produce": 2.0, "consume": 0.0}
    assert r.now(["a", "b"]) == {"produce": 7.0, "consume": 1.0}
    assert r.now([]) == {"produce": 0.0, "consume": 0.0}
    assert r.newest(["b"]) == {"produce": 5.0, "consume": 1.0, "topics": {"b": 5.0}}
    assert r.history(["b"]) == {
        "seconds": 300,
        "produce": [0.0, 5.0],  # b did not exist in the first second
        "consume": [0.0, 1.0],
        "topics": {"b": [5.0]},
    }
    assert r.history(["a", "b"])["produce"] == [10.0, 7.0] == r.history()["produce"]

"""The assignor: deterministic, stable for unchanged membership, balanced, complete."""

from __future__ import annotations

import random

from app.groups.assignor import Subscriber, assign


def subs(*names: str, topics: tuple[str, ...] = ("a",)) -> list[Subscriber]:
    return [Subscriber(n, n, frozenset(topics)) for n in names]


def test_every_partition_once_and_contiguous_ranges() -> None:
    out = assign(subs("m1", "m2", "m3"), {"a": 7})
    assert out == {
        "m1": frozenset({("a", 0), ("a", 1), ("a", 2)}),
        "m2": frozenset({("a", 3), ("a", 4)}),
        "m3": frozenset({("a", 5), ("a", 6)}),
    }


def test_same_input_in_any_order_gives_the_same_answer() -> None:
    members = subs("x", "b", "k", topics=("a", "c"))
    first = assign(members, {"a": 5, "c": 3})
    for _ in range(20):
        shuffled = members[:]
        random.shuffle(shuffled)
        assert assign(shuffled, {"c": 3, "a": 5}) == first


def test_balanced_across_topics() -> None:
    for n_members in range(1, 6):
        for counts in ([1, 1, 1], [3, 3], [5, 2, 7], [1] * 9):
            topics = {f"t{i}": c for i, c in enumerate(counts)}
            members = subs(*[f"m{i}" for i in range(n_members)], topics=tuple(topics))
            out = assign(members, topics)
            loads = [len(v) for v in out.values()]
            assert max(loads) - min(loads) <= 1, (n_members, counts, out)
            assert sum(loads) == sum(counts)


def test_only_subscribed_and_existing_topics() -> None:
    members = [
        Subscriber("m1", "m1", frozenset({"a"})),
        Subscriber("m2", "m2", frozenset({"b", "missing"})),
    ]
    out = assign(members, {"a": 2, "b": 1})
    assert out == {"m1": frozenset({("a", 0), ("a", 1)}), "m2": frozenset({("b", 0)})}


def test_no_partitions_or_no_members() -> None:
    assert assign([], {"a": 3}) == {}
    assert assign(subs("m1"), {}) == {"m1": frozenset()}


def test_static_members_are_ordered_by_instance_id() -> None:
    a = [Subscriber("zzz", "i1", frozenset({"a"})), Subscriber("aaa", "i2", frozenset({"a"}))]
    out = assign(a, {"a": 2})
    assert out["zzz"] == frozenset({("a", 0)})
    # the static member comes back under a new member id: same partitions
    b = [Subscriber("new", "i1", frozenset({"a"})), Subscriber("aaa", "i2", frozenset({"a"}))]
    assert assign(b, {"a": 2})["new"] == out["zzz"]

"""Server-side assignment of partitions to members: a pure, deterministic function.

A range assignor balanced across topics: topics are taken in name order; each topic's
partitions are cut into contiguous ranges over the members subscribed to it, in the order of
their stable key (the static instance id when there is one, else the member id). When a topic's
partitions do not split evenly, the extra partitions go to the members holding the fewest
partitions so far (ties by key), so that members subscribed to the same topics never differ by
more than one partition in total.

The answer depends only on the members' keys, their subscriptions and the partition counts:
unchanged membership gives the same assignment, whatever the order of the inputs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.groups.state import TopicPartition


@dataclass(frozen=True, slots=True)
class Subscriber:
    member_id: str
    key: str  # instance id for static members, else member id
    topics: frozenset[str]


def assign(
    subscribers: list[Subscriber], partitions: Mapping[str, int]
) -> dict[str, frozenset[TopicPartition]]:
    """member id → its partitions. ``partitions``: topic name → partition count (existing
    topics only; subscriptions to other topics get nothing)."""
    ordered = sorted(subscribers, key=lambda s: (s.key, s.member_id))
    out: dict[str, set[TopicPartition]] = {s.member_id: set() for s in ordered}
    load = {s.member_id: 0 for s in ordered}
    for topic in sorted(partitions):
        count = partitions[topic]
        members = [s.member_id for s in ordered if topic in s.topics]
        if not members or count <= 0:
            continue
        base, extra = divmod(count, len(members))
        lucky = set(sorted(members, key=lambda m: (load[m], members.index(m)))[:extra])
        start = 0
        for m in members:
            n = base + (1 if m in lucky else 0)
            out[m].update((topic, p) for p in range(start, start + n))
            load[m] += n
            start += n
    return {m: frozenset(tps) for m, tps in out.items()}

"""Zombie fencing in consume-transform-produce loops, against a real server process.

1. The seed blog's failure with transactional ids per input partition: worker 1 sends its
   offsets, pauses, the partition moves to worker 2, which processes and commits; worker 1
   wakes up and is fenced: the output holds exactly one result.
2. The same with ids chosen the wrong way (one per worker) and an offset fetch that ignores
   pending transactional offsets, as clients did before KIP-447: the duplicate appears. The
   KIP-447 fetch (``require_stable``) would have said ``PENDING_TRANSACTION`` instead.
3. KIP-447 without per-partition ids: one transactional id per worker, offsets sent with the
   member id and epoch. The new owner's stable offset fetch answers ``PENDING_TRANSACTION``
   until the zombie's transaction is aborted by its timeout; the zombie, recovered through
   KIP-588, is fenced by its stale member epoch with ``ILLEGAL_GENERATION``.

Waiting here is for real server-side timers (session and transaction timeouts of a separate
process), always bounded by a deadline.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest

from tests.conftest import ServerProcess
from tests.e2e.eos import Api, ApiError, owned

pytestmark = pytest.mark.slow

T = TypeVar("T")
GROUP = "workers"
ENV = {
    "SLUICE_GROUP_SESSION_TIMEOUT_MS": "1000",
    "SLUICE_GROUP_HEARTBEAT_INTERVAL_MS": "1000",
    "SLUICE_TXN_TIMEOUT_CHECK_INTERVAL_MS": "100",
}


def until(what: str, probe: Callable[[], T | None], timeout: float = 20) -> T:
    """Call ``probe`` until it answers something other than None, within ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        got = probe()
        if got is not None:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.fixture
def api(
    server_factory: Callable[..., ServerProcess],
    group_session_timeout: Callable[[str, int], None],
) -> Iterator[Api]:
    s = server_factory(**ENV)
    s.start()
    group_session_timeout(GROUP, 1000)  # on a gateway, the group's own timeout
    a = Api(s.url)
    yield a
    a.close()
    assert s.stop() == 0


class Member:
    """One consumer's membership, heartbeated by hand (a real client does it in background)."""

    def __init__(self, api: Api, topics: list[str]) -> None:
        self.api = api
        self.topics = topics
        got = api.heartbeat(GROUP, None, 0, topics)
        self.member_id: str = got["member_id"]
        self.epoch: int = got["member_epoch"]
        self.assignment: list[dict[str, Any]] = got["assignment"]

    def beat(self) -> set[int]:
        got = self.api.heartbeat(GROUP, self.member_id, self.epoch, self.topics)
        self.epoch = got["member_epoch"]
        self.assignment = got["assignment"]
        return owned(self.assignment, self.topics[0])

    def wait_for(self, partitions: set[int], *others: Member) -> None:
        def probe() -> bool | None:
            for o in others:
                o.beat()
            return True if self.beat() == partitions else None

        until(f"{self.member_id} to own {partitions}", probe)


def committed_offset(api: Api, topic: str, partition: int, *, require_stable: bool) -> int:
    """The committed offset (-1 when none); raises ApiError for a per-partition error."""
    got = api.committed(GROUP, topic, require_stable=require_stable).get(partition)
    if got is None:
        return -1
    if got.get("error"):
        e = got["error"]
        raise ApiError(200, e["code"], e["message"], e["retriable"])
    return int(got["offset"])


def values(api: Api, topic: str, partition: int) -> list[str]:
    return [r["value"] for r in api.read_all(topic, partition, committed=True)]


def process(
    api: Api,
    tid: str,
    pid: int,
    epoch: int,
    partition: int,
    start: int,
    member: Member | None,
    member_epoch: int | None = None,
) -> int:
    """Read ``in`` from ``start``, write one result per record to ``out``, send offsets."""
    page = api.read("in", partition, max(start, 0))
    results = [{"value": "result-of-" + r["value"]} for r in page["records"]]
    api.txn_produce(tid, pid, epoch, "out", partition, 0, results)
    if member_epoch is None:
        member_epoch = member.epoch if member else -1
    api.send_offsets(
        tid,
        pid,
        epoch,
        GROUP,
        member.member_id if member else None,
        member_epoch,
        {("in", partition): page["next_offset"]},
    )
    return int(page["next_offset"])


def setup_topics(api: Api, partitions: int) -> None:
    api.create_topic("in", partitions)
    api.create_topic("out", partitions)
    for p in range(partitions):
        api.produce("in", [{"value": f"msg-{p}", "partition": p}])


def test_per_partition_transactional_ids_fence_the_paused_worker(api: Api) -> None:
    setup_topics(api, 1)
    tid = f"{GROUP}.in.0"  # the static encoding: one transactional id per input partition

    w1 = Member(api, ["in"])
    w1.wait_for({0})
    pid1, epoch1 = api.init_producer(tid)
    assert committed_offset(api, "in", 0, require_stable=True) == -1
    page = api.read("in", 0, 0)
    api.send_offsets(
        tid, pid1, epoch1, GROUP, w1.member_id, w1.epoch, {("in", 0): page["next_offset"]}
    )
    # worker 1 pauses here (a long collector pause): no heartbeats, nothing sent

    w2 = Member(api, ["in"])
    w2.wait_for({0})  # worker 1's session timed out; the partition moved
    pid2, epoch2 = api.init_producer(tid)  # same id: fences worker 1, aborts its transaction
    assert pid2 == pid1 and epoch2 > epoch1
    start = committed_offset(api, "in", 0, require_stable=True)
    assert start == -1  # worker 1's offsets were aborted with its transaction
    process(api, tid, pid2, epoch2, 0, start, w2)
    api.commit(tid, pid2, epoch2)

    # worker 1 wakes up and carries on as if nothing happened
    with pytest.raises(ApiError) as produce_err:
        api.txn_produce(tid, pid1, epoch1, "out", 0, 0, [{"value": "result-of-msg-0"}])
    assert produce_err.value.code == "INVALID_PRODUCER_EPOCH"
    with pytest.raises(ApiError) as commit_err:
        api.commit(tid, pid1, epoch1)
    assert commit_err.value.code == "PRODUCER_FENCED"

    assert values(api, "out", 0) == ["result-of-msg-0"]
    assert committed_offset(api, "in", 0, require_stable=True) == 1


def test_ids_per_worker_without_stable_offsets_duplicate_the_result(api: Api) -> None:
    setup_topics(api, 1)

    w1 = Member(api, ["in"])
    w1.wait_for({0})
    pid1, epoch1 = api.init_producer("worker-1")
    process(
        api, "worker-1", pid1, epoch1, 0, committed_offset(api, "in", 0, require_stable=True), w1
    )
    # worker 1 pauses with its transaction open

    w2 = Member(api, ["in"])
    w2.wait_for({0})
    pid2, epoch2 = api.init_producer("worker-2")  # another id: nothing is fenced
    assert pid2 != pid1
    with pytest.raises(ApiError) as pending:  # what a KIP-447 client would have been told
        committed_offset(api, "in", 0, require_stable=True)
    assert pending.value.code == "PENDING_TRANSACTION" and pending.value.retriable
    # an old client reads the last committed offset and ignores the pending one
    start = committed_offset(api, "in", 0, require_stable=False)
    assert start == -1
    process(api, "worker-2", pid2, epoch2, 0, start, w2)
    api.commit("worker-2", pid2, epoch2)

    # worker 1 wakes up: its producer was never fenced, so its commit goes through
    api.commit("worker-1", pid1, epoch1)

    assert values(api, "out", 0) == ["result-of-msg-0", "result-of-msg-0"]  # the duplicate


def test_kip447_member_epoch_fences_the_zombie_and_stable_fetch_waits(api: Api) -> None:
    setup_topics(api, 2)

    w1 = Member(api, ["in"])
    w1.wait_for({0, 1})
    read_epoch = w1.epoch  # the group metadata worker 1 processes its records under
    pid1, epoch1 = api.init_producer("worker-1", timeout_ms=2000)
    for p in (0, 1):
        process(api, "worker-1", pid1, epoch1, p, -1, w1, read_epoch)
    # worker 1's processing pauses; its heartbeat thread goes on, so it stays a member

    w2 = Member(api, ["in"])

    def moved_one() -> bool | None:
        mine, theirs = w1.beat(), w2.beat()  # both beat every round
        return True if len(theirs) == 1 and not mine & theirs else None

    until("worker 2 to own one partition", moved_one)
    (moved,) = owned(w2.assignment, "in")
    (kept,) = {0, 1} - {moved}
    assert w1.epoch != read_epoch

    # the new owner's stable fetch waits for the zombie's transaction ...
    with pytest.raises(ApiError) as pending:
        committed_offset(api, "in", moved, require_stable=True)
    assert pending.value.code == "PENDING_TRANSACTION"

    # ... until the transaction timeout aborts it, pending offsets included
    def settled() -> int | None:
        w1.beat()
        w2.beat()
        try:
            return committed_offset(api, "in", moved, require_stable=True)
        except ApiError as e:
            assert e.code == "PENDING_TRANSACTION", e
            return None

    start = until("the zombie's transaction to time out", settled)
    assert start == -1
    pid2, epoch2 = api.init_producer("worker-2")
    process(api, "worker-2", pid2, epoch2, moved, start, w2)
    api.commit("worker-2", pid2, epoch2)

    # worker 1 wakes up: its transaction timed out (KIP-588), so it recovers and retries
    with pytest.raises(ApiError) as timed_out:
        api.commit("worker-1", pid1, epoch1)
    assert timed_out.value.code == "TRANSACTION_TIMED_OUT" and timed_out.value.retriable
    pid1b, epoch1b = api.init_producer("worker-1", 2000, pid1, epoch1)
    assert pid1b == pid1 and epoch1b > epoch1
    # ... with the group metadata it read under, which a rebalance has made stale
    page = api.read("in", moved, 0)
    api.txn_produce(
        "worker-1",
        pid1b,
        epoch1b,
        "out",
        moved,
        0,
        [{"value": "result-of-" + r["value"]} for r in page["records"]],
    )
    with pytest.raises(ApiError) as stale:
        api.send_offsets(
            "worker-1",
            pid1b,
            epoch1b,
            GROUP,
            w1.member_id,
            read_epoch,
            {("in", moved): page["next_offset"]},
        )
    assert stale.value.code == "ILLEGAL_GENERATION"
    pid1b, epoch1b = api.abort("worker-1", pid1b, epoch1b)

    # worker 1 refreshes its membership and processes what it owns now
    assert w1.beat() == {kept}
    process(
        api,
        "worker-1",
        pid1b,
        epoch1b,
        kept,
        committed_offset(api, "in", kept, require_stable=True),
        w1,
    )
    api.commit("worker-1", pid1b, epoch1b)

    for p in (0, 1):
        assert values(api, "out", p) == [f"result-of-msg-{p}"]
        assert committed_offset(api, "in", p, require_stable=True) == 1

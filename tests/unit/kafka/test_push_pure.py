"""What app/kafka/push.py decides without a broker: the window of a push session on a
gateway (records leave it when their lock runs out or they are acknowledged over HTTP, and come
back when an acknowledgement is refused), when the session next looks at its locks, and whose
member a socket may take over."""

from __future__ import annotations

import pytest

from app.clock import FakeClock
from app.errors import ErrorCode, InvalidRequest, NotFound
from app.kafka.cluster import Cluster
from app.kafka.push import EXPIRY_GRACE_MS, KafkaPushSession
from app.kafka.share import KafkaMember, KafkaShareGroups
from app.kafka.share_members import GatewayShareGroups, new_member_id
from app.kafka.transactions import KafkaUnsupported
from app.share.partition import AckBatch, AckType
from app.share.session_state import SessionState

LOCK_MS = 30_000


def holding(clock: FakeClock, offsets: list[int], auto_renew: bool = False) -> KafkaPushSession:
    """A subscribed session of credits 5 whose member was handed ``offsets`` of t-0 with
    delivery count 1, now (never started: nothing can be sent)."""
    share = GatewayShareGroups(KafkaShareGroups(Cluster("127.0.0.1:1")), clock)
    member = KafkaMember("g", "m", 1, ["t"], assignment={"t": [0]})
    member.counts[("t", 0)] = dict.fromkeys(offsets, 1)
    share.kafka.members[("g", "m")] = member
    session = share.open_push("g", 10, None)
    session.member = member
    session.state = SessionState.SUBSCRIBED
    session.credits = 5
    session.auto_renew = auto_renew
    session.lock_ms = LOCK_MS
    session.held[("t", 0)] = dict.fromkeys(offsets, 1)
    session.expires[("t", 0)] = dict.fromkeys(offsets, clock.now_ms() + LOCK_MS)
    session.check()
    return session


def test_records_leave_the_window_when_their_lock_runs_out() -> None:
    clock = FakeClock()
    session = holding(clock, [0, 1, 2])
    assert session.free == 2
    assert session.next_due() == clock.now_ms() + LOCK_MS + EXPIRY_GRACE_MS
    clock.advance(LOCK_MS - 1)
    session.check()
    assert session.free == 2
    clock.advance(1)
    session.check()
    assert session.free == 5 and session.next_due() is None


def test_auto_renew_is_due_at_half_the_lock() -> None:
    clock = FakeClock()
    session = holding(clock, [0, 1], auto_renew=True)
    assert session.next_due() == clock.now_ms() + LOCK_MS // 2


def test_records_acknowledged_over_http_leave_the_window() -> None:
    clock = FakeClock()
    session = holding(clock, [0, 1, 2])
    assert session.member is not None
    del session.member.counts[("t", 0)][1]  # settled by another request for the member
    session.check()
    assert session.held == {("t", 0): {0: 1, 2: 1}} and session.free == 3


async def test_a_refused_acknowledgement_gives_the_records_back() -> None:
    clock = FakeClock()
    session = holding(clock, [0, 1, 2])
    delayed = AckBatch(0, 1, [AckType.RELEASE], delay_ms=1000)
    with pytest.raises(KafkaUnsupported) as refused:
        await session.acknowledge({("t", 0): [delayed]})
    assert refused.value.unsupported == "release_delay"
    assert session.held == {("t", 0): {0: 1, 1: 1, 2: 1}} and session.free == 2
    assert session.next_due() == clock.now_ms() + LOCK_MS + EXPIRY_GRACE_MS


async def test_a_socket_takes_over_only_the_principals_member_and_one_at_a_time() -> None:
    share = GatewayShareGroups(KafkaShareGroups(Cluster("127.0.0.1:1")), FakeClock())
    alices = new_member_id("alice")
    share.kafka.members[("g", alices)] = KafkaMember("g", alices, 1, ["t"])
    with pytest.raises(NotFound) as unknown:
        await share.open_push("g", 10, "bob").subscribe(["t"], alices, 5, False)
    assert unknown.value.code is ErrorCode.UNKNOWN_MEMBER_ID
    share.pushed.add(("g", alices))  # a socket of alice's consumes it
    with pytest.raises(InvalidRequest) as taken:
        await share.open_push("g", 10, "alice").subscribe(["t"], alices, 5, False)
    assert taken.value.code is ErrorCode.INVALID_REQUEST

"""The parts of the Kafka backend's transactions (app/kafka/transactions.py) that need no
broker: the pattern filter of a prefix, Kafka's state names, the test of a timeout abort, and
the refusals made before anything is sent."""

from __future__ import annotations

import re

import pytest

from app.config import Settings
from app.errors import ErrorCode, SluiceError
from app.kafka.cluster import Cluster
from app.kafka.produce import KafkaProduce
from app.kafka.transactions import (
    Described,
    KafkaTransactions,
    KafkaUnsupported,
    prefix_pattern,
    timed_out,
    txn_state,
)
from app.transactions.state import TxnState
from app.transactions.work import GroupAcks, TxnIdentity, TxnWork


def java_quoted_matches(pattern: str, text: str) -> bool:
    """Java's ``\\Q…\\E`` quoting read as Python's regular expressions read a literal."""
    parts = re.split(r"\\Q(.*?)\\E", pattern, flags=re.S)
    py = "".join(re.escape(p) if i % 2 else p for i, p in enumerate(parts))
    return re.fullmatch(py, text, flags=re.S) is not None


@pytest.mark.parametrize("prefix", ["etl-q1-", "a.b*", "x\\Ey", "[", "\\E", "\\Q"])
def test_the_pattern_of_a_prefix_matches_exactly_the_ids_that_start_with_it(prefix: str) -> None:
    pattern = prefix_pattern(prefix)
    assert java_quoted_matches(pattern, prefix)
    assert java_quoted_matches(pattern, prefix + "0-anything")
    assert not java_quoted_matches(pattern, "z" + prefix)
    assert not java_quoted_matches(pattern, prefix[:-1])


def test_kafka_state_names_are_the_contracts_and_an_epoch_fence_is_an_abort() -> None:
    assert txn_state("Ongoing") is TxnState.ONGOING
    assert txn_state("CompleteCommit") is TxnState.COMPLETE_COMMIT
    assert txn_state("PrepareEpochFence") is TxnState.PREPARE_ABORT
    with pytest.raises(SluiceError) as unknown:
        txn_state("Prepared")
    assert unknown.value.code is ErrorCode.INTERNAL


def described(state: TxnState, epoch: int, start_ms: int = 1_000) -> Described:
    return Described("t", state, 7, epoch, 500, start_ms, frozenset())


def test_a_timeout_abort_is_an_abort_at_the_next_epoch_after_the_timeout() -> None:
    assert timed_out(described(TxnState.COMPLETE_ABORT, 4), 7, 3, now_ms=1_500)
    # before the timeout, at another epoch, another producer id, or a commit: not a timeout
    assert not timed_out(described(TxnState.COMPLETE_ABORT, 4), 7, 3, now_ms=1_499)
    assert not timed_out(described(TxnState.COMPLETE_ABORT, 5), 7, 3, now_ms=9_000)
    assert not timed_out(described(TxnState.COMPLETE_ABORT, 4), 8, 3, now_ms=9_000)
    assert not timed_out(described(TxnState.COMPLETE_COMMIT, 4), 7, 3, now_ms=9_000)


def test_described_is_answered_without_what_kafka_does_not_keep() -> None:
    m = Described("t", TxnState.ONGOING, 7, 2, 500, 1_000, frozenset({("o", 1)})).metadata()
    assert (m.producer_id, m.producer_epoch, m.timeout_ms, m.start_ms) == (7, 2, 500, 1_000)
    assert m.partitions == frozenset({("o", 1)})
    assert (m.groups, m.share_groups, m.updated_ms, m.pending) == (
        frozenset(),
        frozenset(),
        -1,
        None,
    )


@pytest.fixture
def txns() -> KafkaTransactions:
    # never started: every call below is refused before a request is sent
    cluster = Cluster("127.0.0.1:1")
    return KafkaTransactions(cluster, KafkaProduce(cluster, Settings()))


async def test_share_acknowledgements_and_commit_all_are_refused_before_anything_is_sent(
    txns: KafkaTransactions,
) -> None:
    work = TxnWork(acks=[GroupAcks("g", "m", {})])
    with pytest.raises(KafkaUnsupported) as acks:
        await txns.commit_with("t", 7, 0, work)
    assert acks.value.unsupported == "transactional_share_acknowledgements"
    assert acks.value.code is ErrorCode.UNSUPPORTED_ON_KAFKA_BACKEND
    assert acks.value.to_dict()["unsupported"] == "transactional_share_acknowledgements"
    with pytest.raises(KafkaUnsupported) as acks_alone:
        await txns.add_acknowledgements("t", 7, 0, "g", "m", {}, None)
    assert acks_alone.value.unsupported == "transactional_share_acknowledgements"
    with pytest.raises(KafkaUnsupported) as all_:
        await txns.commit_all([TxnIdentity("t", 7, 0)])
    assert all_.value.unsupported == "commit_all"


async def test_a_producer_id_without_its_epoch_is_refused(txns: KafkaTransactions) -> None:
    with pytest.raises(SluiceError) as refused:
        await txns.init_producer_id("t", 1_000, 7, None, None)
    assert refused.value.code is ErrorCode.INVALID_REQUEST
    with pytest.raises(SluiceError) as empty:
        await txns.abort_prefix("", lambda t: True)
    assert empty.value.code is ErrorCode.INVALID_REQUEST

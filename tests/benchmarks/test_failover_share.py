"""The share failover trial's checks (benchmarks/failover.py, ``Acceptances``) on answers made up
to the purpose: an acceptance refused only after an attempt that got no answer may have been
applied by the leader that died, so its records are not counted as never accepted when the
group has nothing left to deliver; refused at once, they must be delivered again and
accepted."""

from __future__ import annotations

from typing import Any

from benchmarks.failover import Acceptances

IDS = [f"s-{i}" for i in range(6)]
REFUSED = [{"topic": "t", "partition": 0, "error": {"code": "INVALID_RECORD_STATE"}}]
APPLIED = [{"topic": "t", "partition": 0, "error": None}]
NO_ANSWER = ["503 CLUSTER_UNAVAILABLE"]


def accepted_all_but(acc: Acceptances, held: list[str]) -> None:
    rest = [v for v in IDS if v not in held]
    acc.deliver(rest)
    assert acc.answered(rest, APPLIED, []) == ""


def test_a_refusal_after_an_attempt_without_answer_is_unsure_and_settled_by_the_lag() -> None:
    # the first attempt reached the leader, which wrote the records' state and died before
    # answering; the attempt sent again reached the new leader, which refused it
    acc = Acceptances()
    held = IDS[:3]
    acc.deliver(held)
    assert acc.answered(held, REFUSED, NO_ANSWER) == "INVALID_RECORD_STATE"
    accepted_all_but(acc, held)
    assert acc.pending(IDS) == set(held)
    # nothing left to deliver: the first attempt was applied
    assert acc.failures(IDS, lag=0) == []
    assert acc.refused_after_no_answer == 1
    # records still to deliver (or Kafka's lag unknown) and never delivered again: a failure
    for lag in (3, None):
        failures = acc.failures(IDS, lag=lag)
        assert len(failures) == 1
        assert failures[0].startswith("3 ids whose acceptance is unsure were not delivered again")


def test_a_refusal_at_the_first_attempt_must_be_delivered_again() -> None:
    acc = Acceptances()
    held = IDS[:2]
    acc.deliver(held)
    assert acc.answered(held, REFUSED, []) == "INVALID_RECORD_STATE"
    accepted_all_but(acc, held)
    group: dict[str, Any] = {"partitions": [{"lag": 0}]}
    failures = acc.failures(IDS, lag=0, group=group)
    assert len(failures) == 1
    assert failures[0].startswith("2 ids never accepted: ['s-0', 's-1']")
    # delivered again and accepted: nothing to report
    acc.deliver(held)
    acc.answered(held, APPLIED, [])
    assert acc.failures(IDS, lag=0) == []


def test_an_unsure_acceptance_delivered_again_is_accepted_then() -> None:
    acc = Acceptances()
    acc.deliver(IDS)
    acc.unanswered(IDS)
    acc.deliver(IDS)
    acc.answered(IDS, APPLIED, NO_ANSWER)
    assert acc.pending(IDS) == set()
    assert acc.failures(IDS, lag=None) == []


def test_acceptances_applied_twice_or_followed_by_a_delivery_fail() -> None:
    acc = Acceptances()
    acc.deliver(IDS)
    acc.answered(IDS, APPLIED, [])
    acc.deliver(IDS[:1])
    acc.answered(IDS[:1], APPLIED, [])
    failures = acc.failures(IDS, lag=0)
    assert failures == [
        "1 ids accepted twice: ['s-0']",
        "1 ids delivered after their acceptance: ['s-0']",
    ]


def test_ids_held_when_the_leader_was_killed_must_be_delivered_again() -> None:
    # the members held these, fetched and not yet acknowledged, when the leader died: their
    # acceptance, sent after its death, was never applied, so they come again
    acc = Acceptances()
    acc.deliver(IDS)
    acc.held = set(IDS[:2])
    acc.answered(IDS[:2], REFUSED, [])
    acc.answered(IDS[2:], APPLIED, [])
    acc.deliver(IDS[:1])
    acc.answered(IDS[:1], APPLIED, [])
    failures = acc.failures(IDS, lag=0)
    assert failures[-1] == "1 ids held when the leader was killed were not delivered again: ['s-1']"
    acc.deliver(IDS[1:2])
    acc.answered(IDS[1:2], APPLIED, [])
    assert acc.failures(IDS, lag=0) == []

"""Transactions against a real server process: KIP-588 recovery after a timeout, fencing by a
real second instance, both across a restart; kill -9 with an open transaction and with a
transaction in PrepareCommit; an idempotent retry after kill -9.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.conftest import ServerProcess

pytestmark = pytest.mark.slow

ServerFactory = Callable[..., ServerProcess]
FAST_SWEEP = {"SLUICE_TXN_TIMEOUT_CHECK_INTERVAL_MS": "50"}


def post(url: str, path: str, body: Any) -> httpx.Response:
    return httpx.post(url + path, json=body, timeout=30)


def ok(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    return dict(r.json())


def error(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    err = dict(r.json()["error"])
    assert err["code"] == code, err
    return err


def init(url: str, **body: Any) -> tuple[int, int]:
    a = ok(post(url, "/v1/producers", body))
    return a["producer_id"], a["producer_epoch"]


def produce(
    url: str,
    pid: int,
    epoch: int,
    tid: str | None,
    topic: str,
    partition: int,
    seq: int,
    *vals: str,
) -> httpx.Response:
    return post(
        url,
        "/v1/produce",
        {
            "producer_id": pid,
            "producer_epoch": epoch,
            "transactional_id": tid,
            "batches": [
                {
                    "topic": topic,
                    "partition": partition,
                    "base_sequence": seq,
                    "records": [{"value": v} for v in vals],
                }
            ],
        },
    )


def end(url: str, tid: str, pid: int, epoch: int, how: str = "commit") -> httpx.Response:
    return post(url, f"/v1/transactions/{tid}/{how}", {"producer_id": pid, "producer_epoch": epoch})


def committed(url: str, topic: str, partition: int = 0) -> list[str]:
    r = httpx.get(
        f"{url}/v1/topics/{topic}/partitions/{partition}/records",
        params={"offset": 0, "isolation_level": "read_committed", "max_records": 10000},
        timeout=30,
    )
    return [rec["value"] for rec in ok(r)["records"]]


def partition(url: str, topic: str, p: int = 0) -> dict[str, Any]:
    return dict(ok(httpx.get(f"{url}/v1/topics/{topic}", timeout=30))["partitions"][p])


def state(url: str, tid: str) -> str:
    return str(ok(httpx.get(f"{url}/v1/transactions/{tid}", timeout=30))["state"])


def until_state(url: str, tid: str, wanted: str, timeout: float = 20) -> None:
    """Poll the real server until the sweeper has acted (bounded)."""
    deadline = time.monotonic() + timeout
    while state(url, tid) != wanted:
        assert time.monotonic() < deadline, f"{tid} never reached {wanted}"
        time.sleep(0.02)


def topic(url: str, name: str, partitions: int = 1) -> None:
    r = post(url, "/v1/topics", {"name": name, "partitions": partitions})
    assert r.status_code == 201, r.text


@pytest.mark.embedded_only("transaction_timeout_epochs")
def test_kip588_timed_out_producer_recovers_and_carries_on(server_factory: ServerFactory) -> None:
    s = server_factory(**FAST_SWEEP)
    s.start()
    url = s.url
    topic(url, "t")
    pid, e = init(url, transactional_id="tx", transaction_timeout_ms=300)
    ok(produce(url, pid, e, "tx", "t", 0, 0, "lost"))
    until_state(url, "tx", "CompleteAbort")  # the producer paused past its timeout
    err = error(end(url, "tx", pid, e), 409, "TRANSACTION_TIMED_OUT")
    assert err["retriable"] is True
    error(produce(url, pid, e, "tx", "t", 0, 1, "late"), 409, "INVALID_PRODUCER_EPOCH")
    pid2, e2 = init(
        url, transactional_id="tx", transaction_timeout_ms=60_000, producer_id=pid, producer_epoch=e
    )
    assert (pid2, e2) == (pid, e + 2)
    ok(produce(url, pid, e2, "tx", "t", 0, 0, "kept"))
    assert ok(end(url, "tx", pid, e2)) == {"producer_id": pid, "producer_epoch": e2 + 1}
    assert committed(url, "t") == ["kept"]
    # a real second instance still fences it fatally
    pid3, e3 = init(url, transactional_id="tx")
    assert (pid3, e3) == (pid, e2 + 2)
    err = error(end(url, "tx", pid, e2 + 1), 409, "PRODUCER_FENCED")
    assert err["retriable"] is False
    error(produce(url, pid, e2 + 1, "tx", "t", 0, 0, "zombie"), 409, "INVALID_PRODUCER_EPOCH")
    error(
        post(
            url,
            "/v1/producers",
            {"transactional_id": "tx", "producer_id": pid, "producer_epoch": e2 + 1},
        ),
        409,
        "PRODUCER_FENCED",
    )
    assert committed(url, "t") == ["kept"]
    assert "Traceback" not in s.logs()


@pytest.mark.embedded_only("transaction_timeout_epochs")
def test_kip588_recovery_across_a_restart(server_factory: ServerFactory) -> None:
    s = server_factory(**FAST_SWEEP)
    s.start()
    topic(s.url, "t")
    pid, e = init(s.url, transactional_id="tx", transaction_timeout_ms=300)
    ok(produce(s.url, pid, e, "tx", "t", 0, 0, "lost"))
    until_state(s.url, "tx", "CompleteAbort")
    s.kill()
    s2 = server_factory(s.data_dir, **FAST_SWEEP)
    s2.start()
    error(end(s2.url, "tx", pid, e), 409, "TRANSACTION_TIMED_OUT")
    assert init(s2.url, transactional_id="tx", producer_id=pid, producer_epoch=e) == (pid, e + 2)
    ok(produce(s2.url, pid, e + 2, "tx", "t", 0, 0, "kept"))
    ok(end(s2.url, "tx", pid, e + 2))
    s2.stop()
    s3 = server_factory(s.data_dir, **FAST_SWEEP)
    s3.start()
    # the old epoch stays fenced after the restart; the retry of the commit still answers 200
    error(end(s3.url, "tx", pid, e), 409, "PRODUCER_FENCED")
    assert ok(end(s3.url, "tx", pid, e + 2)) == {"producer_id": pid, "producer_epoch": e + 3}
    assert committed(s3.url, "t") == ["kept"]
    s3.stop()


def test_kill9_with_an_open_transaction_keeps_it_open(server_factory: ServerFactory) -> None:
    s = server_factory()
    s.start()
    topic(s.url, "t", partitions=2)
    pid, e = init(s.url, transactional_id="tx")
    ok(produce(s.url, pid, e, "tx", "t", 0, 0, "a", "b"))
    ok(produce(s.url, pid, e, "tx", "t", 1, 0, "c"))
    s.kill()
    s2 = server_factory(s.data_dir)
    s2.start()
    assert state(s2.url, "tx") == "Ongoing"
    assert partition(s2.url, "t", 0)["last_stable_offset"] == 0
    assert committed(s2.url, "t", 0) == []
    ok(produce(s2.url, pid, e, "tx", "t", 0, 2, "d"))  # sequences continue after restart
    ok(end(s2.url, "tx", pid, e))
    assert committed(s2.url, "t", 0) == ["a", "b", "d"]
    assert committed(s2.url, "t", 1) == ["c"]
    s2.stop()


@pytest.mark.embedded_only("data_directory")
def test_kill9_in_prepare_commit_finishes_the_commit_at_restart(
    server_factory: ServerFactory,
) -> None:
    """The server dies with PrepareCommit durable and no marker written yet: the row is set
    exactly as the coordinator writes it before the markers (the state a kill at that moment
    leaves), and recovery must write every marker and complete."""
    s = server_factory()
    s.start()
    topic(s.url, "t", partitions=3)
    pid, e = init(s.url, transactional_id="tx")
    for p in range(3):
        ok(produce(s.url, pid, e, "tx", "t", p, 0, f"r{p}a", f"r{p}b"))
    s.kill()
    db = sqlite3.connect(s.data_dir / "metadata.db")
    with db:
        # Prepare* also names who may retry the end once complete: the committing producer
        n = db.execute(
            "UPDATE transactions SET state = 'PrepareCommit', "
            "last_producer_id = producer_id, last_epoch = producer_epoch "
            "WHERE transactional_id = 'tx' AND state = 'Ongoing'"
        ).rowcount
    db.close()
    assert n == 1
    s2 = server_factory(s.data_dir)
    s2.start()
    assert state(s2.url, "tx") == "CompleteCommit"
    for p in range(3):
        info = partition(s2.url, "t", p)
        assert info["high_watermark"] == 3  # two records and the marker
        assert info["last_stable_offset"] == 3
        assert committed(s2.url, "t", p) == [f"r{p}a", f"r{p}b"]
    # the commit's retry answers the bumped epoch; the next transaction starts at sequence 0
    assert ok(end(s2.url, "tx", pid, e)) == {"producer_id": pid, "producer_epoch": e + 1}
    ok(produce(s2.url, pid, e + 1, "tx", "t", 0, 0, "next"))
    s2.stop()


@pytest.mark.embedded_only("data_directory")
def test_kill9_racing_a_commit_is_all_or_nothing(server_factory: ServerFactory) -> None:
    """Kill -9 at several moments after sending a commit: after restart the transaction is
    either still open (nothing visible) or committed on every partition, never in between."""
    data = None
    outcomes = set()
    for cycle, delay in enumerate((0.0, 0.001, 0.003, 0.01, 0.03)):
        s = server_factory(data) if data else server_factory()
        data = s.data_dir
        s.start()
        name, tid = f"t{cycle}", f"tx{cycle}"
        topic(s.url, name, partitions=3)
        pid, e = init(s.url, transactional_id=tid)
        for p in range(3):
            ok(produce(s.url, pid, e, tid, name, p, 0, f"v{p}"))
        sender = threading.Thread(target=_quiet_end, args=(s.url, tid, pid, e), daemon=True)
        sender.start()
        sender.join(delay)
        s.kill()
        sender.join(30)
        s2 = server_factory(data)
        s2.start()
        st = state(s2.url, tid)
        outcomes.add(st)
        seen = [committed(s2.url, name, p) for p in range(3)]
        if st == "CompleteCommit":
            assert seen == [["v0"], ["v1"], ["v2"]]
        else:
            assert st == "Ongoing", st
            assert seen == [[], [], []]
            ok(end(s2.url, tid, pid, e))
            assert [committed(s2.url, name, p) for p in range(3)] == [["v0"], ["v1"], ["v2"]]
        s2.kill()
    assert outcomes <= {"Ongoing", "CompleteCommit"}


def _quiet_end(url: str, tid: str, pid: int, epoch: int) -> None:
    with contextlib.suppress(httpx.HTTPError):  # the server is killed under it
        end(url, tid, pid, epoch)


def test_idempotent_retry_after_kill9_still_dedups(server_factory: ServerFactory) -> None:
    s = server_factory()
    s.start()
    topic(s.url, "t")
    pid, e = init(s.url)
    first = ok(produce(s.url, pid, e, None, "t", 0, 0, "a", "b"))
    second = ok(produce(s.url, pid, e, None, "t", 0, 2, "c"))
    s.kill()
    s2 = server_factory(s.data_dir)
    s2.start()
    assert ok(produce(s2.url, pid, e, None, "t", 0, 0, "a", "b")) == first
    assert ok(produce(s2.url, pid, e, None, "t", 0, 2, "c")) == second
    assert partition(s2.url, "t")["high_watermark"] == 3
    nxt = ok(produce(s2.url, pid, e, None, "t", 0, 3, "d"))["batches"][0]
    assert (nxt["base_offset"], nxt["error"]) == (3, None)
    # a new producer id after the restart is not one issued before
    assert init(s2.url)[0] != pid
    s2.stop()

"""Builds the data directory the upgrade test opens, and what it must read back.

    python -m tests.upgrade.make_datadir OUT_DIR

It drives an in-process server over HTTP: topics whose records have keys, headers, null and
binary values over several segments, committed and aborted transactions, a simple produce under
an ``Idempotency-Key``, an idempotent producer, consumer-group offsets and share-group
acknowledgements; then it stops the server cleanly and writes ``expected.json`` beside the
directory (``datadir``). tests/upgrade/release-v1/ was made so by the release before Kafka's
RecordBatch v2 (commit cae7208): run today, it makes a directory in today's format.
"""

from __future__ import annotations

import base64
import json
import shutil
import sys
import warnings
from pathlib import Path
from typing import Any

from app.config import Settings
from app.main import create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def ok(r: Any) -> Any:
    assert r.status_code < 300, r.text
    return r.json() if r.content else None


def main(out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    data = out / "datadir"
    app = create_app(Settings(data_dir=str(data)))
    expected: dict[str, Any] = {}
    with TestClient(app, base_url="http://localhost") as c:
        ok(
            c.post(
                "/v1/topics",
                json={"name": "plain", "partitions": 2, "config": {"segment_bytes": 1024}},
            )
        )
        ok(c.post("/v1/topics", json={"name": "tx", "partitions": 1}))
        for i in range(6):
            records = [
                {
                    "partition": j % 2,
                    "key": b64(f"key-{i}-{j}".encode()) if j % 3 else None,
                    "value": None if (i, j) == (2, 1) else b64(bytes([i, j]) * (10 + 7 * j)),
                    "headers": [
                        {"key": "h", "value": b64(b"\x00\xff")},
                        {"key": "ключ", "value": None},
                    ]
                    if j == 2
                    else [],
                    "timestamp": 1_700_000_000_000 + 1000 * i + j,
                }
                for j in range(5)
            ]
            ok(c.post("/v1/topics/plain/records", json={"records": records, "encoding": "base64"}))
        keyed = {"records": [{"value": "once", "partition": 1}]}
        expected["keyed"] = {
            "body": keyed,
            "answer": ok(
                c.post(
                    "/v1/topics/plain/records", json=keyed, headers={"Idempotency-Key": "upgrade-1"}
                )
            ),
        }
        pid = ok(c.post("/v1/producers", json={}))["producer_id"]
        for seq in (0, 2):
            batch = {
                "topic": "plain",
                "partition": 0,
                "base_sequence": seq,
                "records": [{"value": f"idem-{seq}"}, {"value": f"idem-{seq + 1}"}],
            }
            got = ok(
                c.post(
                    "/v1/produce",
                    json={"producer_id": pid, "producer_epoch": 0, "batches": [batch]},
                )
            )
            assert got["batches"][0]["error"] is None, got
        expected["idempotent"] = {"producer_id": pid, "next_sequence": 4}
        tx = ok(c.post("/v1/producers", json={"transactional_id": "t1"}))
        for values, end in (
            (["c1", "c2", "c3"], "commit"),
            (["a1", "a2"], "abort"),
            (["c4", "c5"], "commit"),
        ):
            batch = {
                "topic": "tx",
                "partition": 0,
                "base_sequence": 0,  # each epoch from 0
                "records": [{"value": v} for v in values],
            }
            got = ok(
                c.post("/v1/produce", json={**tx, "transactional_id": "t1", "batches": [batch]})
            )
            assert got["batches"][0]["error"] is None, got
            tx = ok(c.post(f"/v1/transactions/t1/{end}", json=tx))
        ok(
            c.post(
                "/v1/groups/cg/offsets",
                json={
                    "member_epoch": -1,
                    "offsets": [{"topic": "plain", "partition": 0, "offset": 5}],
                },
            )
        )
        ok(c.patch("/v1/share-groups/sg/config", json={"auto_offset_reset": "earliest"}))
        got = ok(
            c.post(
                "/v1/share-groups/sg/fetch",
                json={
                    "subscribed_topics": ["tx"],
                    "max_records": 2,
                    "acquire_mode": "record_limit",
                },
            )
        )
        acks = [
            {
                "topic": a["topic"],
                "partition": a["partition"],
                "first_offset": a["first_offset"],
                "last_offset": a["last_offset"],
                "type": "accept",
            }
            for a in got["acquired"]
        ]
        ok(
            c.post(
                "/v1/share-groups/sg/acknowledge",
                json={"member_id": got["member_id"], "acknowledgements": acks},
            )
        )
        expected["share_accepted"] = [[a["first_offset"], a["last_offset"]] for a in acks]
        for topic, partitions in (("plain", 2), ("tx", 1)):
            for p in range(partitions):
                read = ok(
                    c.get(
                        f"/v1/topics/{topic}/partitions/{p}/records",
                        params={"encoding": "base64", "max_records": 1000},
                    )
                )
                expected[f"{topic}/{p}"] = read["records"]
        expected["tx/0/committed"] = [
            r["value"]
            for r in ok(
                c.get(
                    "/v1/topics/tx/partitions/0/records",
                    params={"isolation_level": "read_committed", "max_records": 1000},
                )
            )["records"]
        ]
    (out / "expected.json").write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))

"""A data directory made by the release before Kafka's RecordBatch v2 (tests/upgrade/release-v1,
see make_datadir.py) opens: its segments are rewritten once as v2 batches, and everything it
held reads back as it did, transactions, keys, producers, groups and share state included."""

from __future__ import annotations

import base64
import json
import logging
import shutil
from pathlib import Path
from typing import Any

import pytest

from app.config import Settings
from app.main import create_app
from app.storage import record
from tests.integration.helpers import LoopbackClient

HERE = Path(__file__).parent / "release-v1"


@pytest.fixture
def expected() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((HERE / "expected.json").read_text())
    return loaded


@pytest.fixture
def datadir(tmp_path: Path) -> Path:
    shutil.copytree(HERE / "datadir", tmp_path / "datadir")
    return tmp_path / "datadir"


def segments(datadir: Path) -> list[Path]:
    return sorted(datadir.glob("logs/*/*/*.log"))


def test_the_release_before_opens_and_reads_back_as_it_did(
    datadir: Path, expected: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    assert all(p.read_bytes()[12] == 1 for p in segments(datadir))  # its own format
    with caplog.at_level(logging.INFO, logger="sluice.storage"):
        app = create_app(Settings(data_dir=str(datadir)))
        client = LoopbackClient(app)
        client.__enter__()
    try:
        upgraded = [r for r in caplog.records if "rewritten as Kafka's record batches" in r.message]
        assert len(upgraded) == len(segments(datadir)) == 6
        for path in segments(datadir):  # every batch is v2 now, and no leftover file
            data = path.read_bytes()
            pos = 0
            while pos < len(data):
                h = record.check_batch(data, pos)
                pos += h.size
        assert not list(datadir.glob("logs/*/*/*.tmp"))
        for name, partitions in (("plain", 2), ("tx", 1)):
            for p in range(partitions):
                got = client.get(
                    f"/v1/topics/{name}/partitions/{p}/records",
                    params={"encoding": "base64", "max_records": 1000},
                ).json()["records"]
                assert got == expected[f"{name}/{p}"]
        committed = client.get(
            "/v1/topics/tx/partitions/0/records",
            params={"isolation_level": "read_committed", "max_records": 1000},
        ).json()["records"]
        assert [r["value"] for r in committed] == expected["tx/0/committed"]  # the abort held
        # a retry under the Idempotency-Key answers the first answer and appends nothing
        keyed = expected["keyed"]
        end = client.get("/v1/topics/plain/partitions/1/offsets").json()["offset"]
        again = client.post(
            "/v1/topics/plain/records",
            json=keyed["body"],
            headers={"Idempotency-Key": "upgrade-1"},
        ).json()
        assert again == keyed["answer"]
        assert client.get("/v1/topics/plain/partitions/1/offsets").json()["offset"] == end
        # the idempotent producer carries on where it was, and its last batch is a duplicate
        idem = expected["idempotent"]
        for seq, values in (
            (idem["next_sequence"] - 2, ["idem-2", "idem-3"]),
            (idem["next_sequence"], ["idem-4"]),
        ):
            batch = {
                "topic": "plain",
                "partition": 0,
                "base_sequence": seq,
                "records": [{"value": v} for v in values],
            }
            r = client.post(
                "/v1/produce",
                json={"producer_id": idem["producer_id"], "producer_epoch": 0, "batches": [batch]},
            )
            assert r.json()["batches"][0]["error"] is None, r.text
        values = [
            base64.b64decode(r["value"]).decode()
            for r in client.get(
                "/v1/topics/plain/partitions/0/records",
                params={"encoding": "base64", "max_records": 1000},
            ).json()["records"]
            if r["value"] and base64.b64decode(r["value"]).startswith(b"idem-")
        ]
        assert values == ["idem-0", "idem-1", "idem-2", "idem-3", "idem-4"]
        offsets = client.get("/v1/groups/cg/offsets").json()["offsets"]
        assert [(o["topic"], o["partition"], o["offset"]) for o in offsets] == [("plain", 0, 5)]
        # what the group accepted stays behind its start offset
        view = client.get("/v1/share-groups/sg/partitions/tx/0/records").json()
        assert view["start_offset"] == expected["share_accepted"][0][1] + 1
    finally:
        client.__exit__(None, None, None)
    # and it opens again without rewriting anything
    before = {p: p.read_bytes() for p in segments(datadir)}
    with LoopbackClient(create_app(Settings(data_dir=str(datadir)))) as c:
        assert c.get("/readyz").status_code == 200
    assert {p: p.read_bytes() for p in segments(datadir)} == before

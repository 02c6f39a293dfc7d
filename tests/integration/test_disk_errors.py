"""The storage error path through the API, in process: a topic whose log files cannot be
created is not created; a failed fsync is answered 507 and /readyz and /metrics say so until
the next write succeeds."""

from __future__ import annotations

import errno
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.storage import fileio

from .helpers import assert_error, metric, metrics


@pytest.fixture(autouse=True)
def no_fault_left() -> Iterator[None]:
    yield
    fileio.remove()


async def test_a_topic_whose_logs_cannot_be_created_is_not_created(
    client: httpx.AsyncClient, tmp_path: Path
) -> None:
    assert (await client.post("/v1/topics", json={"name": "a", "partitions": 1})).status_code == 201
    # the next topic's directory is taken by a file: its logs cannot be created
    blocker = tmp_path / "data" / "logs" / "2"
    blocker.write_bytes(b"")
    err = assert_error(
        await client.post("/v1/topics", json={"name": "b", "partitions": 2}),
        507,
        "KAFKA_STORAGE_ERROR",
    )
    assert "creating topic 'b'" in err["message"]
    names = [t["name"] for t in (await client.get("/v1/topics")).json()["topics"]]
    assert names == ["a"]
    # counted (the metadata delete that undid the topic succeeded: the episode is over)
    assert metric(await metrics(client), "sluice_storage_errors") == 1
    blocker.unlink()
    assert (await client.post("/v1/topics", json={"name": "b", "partitions": 2})).status_code == 201
    r = await client.post("/v1/topics/b/records", json={"records": [{"value": "v"}]})
    assert r.status_code == 200
    assert (await client.get("/readyz")).json() == {"status": "ready"}


async def test_a_failed_fsync_is_answered_507_and_the_next_produce_succeeds(
    client: httpx.AsyncClient,
) -> None:
    assert (await client.post("/v1/topics", json={"name": "t", "partitions": 1})).status_code == 201
    r = await client.post("/v1/topics/t/records", json={"records": [{"value": "kept"}]})
    assert r.status_code == 200
    fileio.install(fileio.Fault("fsync", errno.EIO, suffix=".log"))
    assert_error(
        await client.post("/v1/topics/t/records", json={"records": [{"value": "lost"}]}),
        507,
        "KAFKA_STORAGE_ERROR",
    )
    text = await metrics(client)
    assert metric(text, "sluice_storage_failing") == 1
    assert metric(text, "sluice_storage_error_episodes") == 1
    fileio.remove()
    r = await client.post("/v1/topics/t/records", json={"records": [{"value": "again"}]})
    assert r.json()["offsets"][0]["offset"] == 1  # the failed record's offset, given again
    body = (await client.get("/v1/topics/t/partitions/0/records")).json()
    assert [x["value"] for x in body["records"]] == ["kept", "again"]
    assert metric(await metrics(client), "sluice_storage_failing") == 0

"""Simple produce: placement, encodings, headers, timestamps, ordering, Idempotency-Key."""

from __future__ import annotations

import asyncio
import base64
import time
from typing import Any

import httpx
import orjson
import pytest

from app.clock import FakeClock
from app.partitioner import partition_for_key

from .conftest import Served
from .helpers import assert_error, b64, create_topic, produce, read, watermarks
from .txn_helpers import init_producer


def now_ms() -> int:
    return time.time_ns() // 1_000_000


# -- placement ----------------------------------------------------------------------------------


async def test_keyed_records_go_to_kafkas_murmur2_partition(client: httpx.AsyncClient) -> None:
    await create_topic(client, "keyed", 7)
    keys = [f"key-{i}" for i in range(40)] + ["", "ünïcödé", "a" * 300]
    got = await produce(client, "keyed", [{"key": k, "value": "v"} for k in keys])
    expected = [partition_for_key(k.encode(), 7) for k in keys]
    assert [o["partition"] for o in got] == expected
    assert len(set(expected)) > 3  # the keys really spread
    # the same key always lands on the same partition, across requests
    again = await produce(client, "keyed", [{"key": "key-3", "value": "w"}])
    assert again[0]["partition"] == expected[3]
    # and the records are there, with their keys
    for p in set(expected):
        recs = (await read(client, "keyed", p))["records"]
        assert sorted(r["key"] for r in recs if r["value"] == "v") == sorted(
            k for k, e in zip(keys, expected, strict=True) if e == p
        )


async def test_binary_keys_hash_their_bytes(client: httpx.AsyncClient) -> None:
    await create_topic(client, "bin", 5)
    keys = [bytes([i, 0xFF, 0xFE, i * 3 % 256]) for i in range(20)]
    got = await produce(
        client, "bin", [{"key": b64(k), "value": None} for k in keys], encoding="base64"
    )
    assert [o["partition"] for o in got] == [partition_for_key(k, 5) for k in keys]


async def test_json_keys_hash_their_json_text(client: httpx.AsyncClient) -> None:
    await create_topic(client, "jk", 6)
    keys: list[Any] = [{"id": 1}, [1, 2], 17, "s", True]
    got = await produce(client, "jk", [{"key": k, "value": 1} for k in keys], encoding="json")
    assert [o["partition"] for o in got] == [partition_for_key(orjson.dumps(k), 6) for k in keys]


async def test_unkeyed_records_of_a_request_share_one_partition(client: httpx.AsyncClient) -> None:
    await create_topic(client, "sticky", 3)
    used = []
    for _ in range(6):
        got = await produce(client, "sticky", [{"value": str(i)} for i in range(5)])
        parts = {o["partition"] for o in got}
        assert len(parts) == 1, got
        p = parts.pop()
        # offsets within the request are consecutive in that partition
        assert [o["offset"] for o in got] == list(range(got[0]["offset"], got[0]["offset"] + 5))
        used.append(p)
    # round-robin by request: every three consecutive requests cover the three partitions
    for i in range(len(used) - 2):
        assert set(used[i : i + 3]) == {0, 1, 2}, used
    assert await watermarks(client, "sticky") == [10, 10, 10]


async def test_null_key_is_unkeyed_and_mixes_with_keyed(client: httpx.AsyncClient) -> None:
    await create_topic(client, "mix", 4)
    records: list[dict[str, Any]] = [
        {"key": None, "value": "u1"},
        {"key": "k1", "value": "a"},
        {"value": "u2"},
        {"key": "k2", "value": "b"},
        {"value": "u3", "partition": 3},
    ]
    got = await produce(client, "mix", records)
    assert got[0]["partition"] == got[2]["partition"]
    assert got[1]["partition"] == partition_for_key(b"k1", 4)
    assert got[3]["partition"] == partition_for_key(b"k2", 4)
    assert got[4]["partition"] == 3


async def test_explicit_partition_wins_over_key(client: httpx.AsyncClient) -> None:
    await create_topic(client, "exp", 4)
    key = "route-me"
    target = (partition_for_key(key.encode(), 4) + 1) % 4
    got = await produce(client, "exp", [{"key": key, "value": "v", "partition": target}])
    assert got[0]["partition"] == target
    recs = (await read(client, "exp", target))["records"]
    assert [(r["key"], r["value"], r["partition"]) for r in recs] == [(key, "v", target)]


async def test_unknown_partition_is_404_and_appends_nothing(client: httpx.AsyncClient) -> None:
    await create_topic(client, "up", 2)
    r = await client.post(
        "/v1/topics/up/records",
        json={
            "records": [
                {"value": "ok", "partition": 0},
                {"value": "a"},
                {"value": "bad", "partition": 2},
            ]
        },
    )
    assert_error(r, 404, "UNKNOWN_TOPIC_OR_PARTITION")
    assert await watermarks(client, "up") == [0, 0]


async def test_offsets_answered_in_request_order(client: httpx.AsyncClient) -> None:
    await create_topic(client, "order", 3)
    await produce(client, "order", [{"value": "pre", "partition": 2}])
    parts = [1, 0, 2, 1, 1, 0, 2]
    got = await produce(
        client, "order", [{"value": f"v{i}", "partition": p} for i, p in enumerate(parts)]
    )
    assert [(o["partition"], o["offset"]) for o in got] == [
        (1, 0),
        (0, 0),
        (2, 1),
        (1, 1),
        (1, 2),
        (0, 1),
        (2, 2),
    ]
    for p in range(3):
        recs = (await read(client, "order", p))["records"]
        want = [f"v{i}" for i, q in enumerate(parts) if q == p]
        assert [r["value"] for r in recs if r["value"] != "pre"] == want
    assert await watermarks(client, "order") == [2, 3, 3]


async def test_offsets_keep_growing_across_requests(client: httpx.AsyncClient) -> None:
    await create_topic(client, "grow")
    seen = []
    for _ in range(5):
        seen += [o["offset"] for o in await produce(client, "grow", [{"value": "x"}] * 3)]
    assert seen == list(range(15))


# -- encodings ----------------------------------------------------------------------------------


async def test_utf8_roundtrip(client: httpx.AsyncClient) -> None:
    await create_topic(client, "u")
    values = ["plain", "", "ünïcödé ✓ 😀", "line\nbreak\ttab\u0000nul", None, '{"not": "parsed"}']
    await produce(client, "u", [{"key": "k" if v is None else None, "value": v} for v in values])
    recs = (await read(client, "u"))["records"]
    assert [r["value"] for r in recs] == values
    assert [r["key"] for r in recs] == ["k" if v is None else None for v in values]
    assert all("encoding" not in r for r in recs)
    # the same bytes, shown in base64
    recs = (await read(client, "u", encoding="base64"))["records"]
    assert [None if r["value"] is None else base64.b64decode(r["value"]) for r in recs] == [
        None if v is None else v.encode() for v in values
    ]


async def test_base64_roundtrip_keeps_every_byte(client: httpx.AsyncClient) -> None:
    await create_topic(client, "b")
    blobs = [bytes(range(256)), b"", b"\x00", b"\xff" * 1000, "é".encode()]
    got = await produce(
        client, "b", [{"key": b64(x[:3]), "value": b64(x)} for x in blobs], encoding="base64"
    )
    assert [o["offset"] for o in got] == list(range(len(blobs)))
    recs = (await read(client, "b", encoding="base64"))["records"]
    assert [base64.b64decode(r["value"]) for r in recs] == blobs
    assert [base64.b64decode(r["key"]) for r in recs] == [x[:3] for x in blobs]


JSON_VALUES: list[Any] = [
    {"a": 1, "nested": {"list": [1, 2.5, "x", None, True]}},
    [1, "two", {"three": 3}],
    42,
    -7,
    3.25,
    0,
    "a string",
    True,
    False,
    None,
    {},
    [],
]


async def test_json_roundtrip(client: httpx.AsyncClient) -> None:
    await create_topic(client, "j")
    await produce(
        client,
        "j",
        [{"key": {"k": i}, "value": v} for i, v in enumerate(JSON_VALUES)],
        encoding="json",
    )
    recs = (await read(client, "j", encoding="json"))["records"]
    assert [r["value"] for r in recs] == JSON_VALUES
    assert [r["key"] for r in recs] == [{"k": i} for i in range(len(JSON_VALUES))]
    assert all("encoding" not in r for r in recs)
    # stored as compact UTF-8 JSON text; JSON null is a null value, not the text "null"
    utf8 = (await read(client, "j", encoding="utf8"))["records"]
    assert utf8[0]["value"] == '{"a":1,"nested":{"list":[1,2.5,"x",null,true]}}'
    assert utf8[6]["value"] == '"a string"'
    assert utf8[9]["value"] is None
    b = (await read(client, "j", encoding="base64"))["records"]
    assert b[9]["value"] is None


async def test_utf8_json_text_reads_as_json(client: httpx.AsyncClient) -> None:
    await create_topic(client, "t")
    await produce(client, "t", [{"value": '{"x": [1, 2]}'}, {"value": "17"}])
    recs = (await read(client, "t", encoding="json"))["records"]
    assert [r["value"] for r in recs] == [{"x": [1, 2]}, 17]


async def test_per_record_encoding_overrides_the_request(client: httpx.AsyncClient) -> None:
    await create_topic(client, "per")
    await produce(
        client,
        "per",
        [
            {"value": "plain"},
            {"value": b64(b"\x01\x02"), "encoding": "base64"},
            {"value": {"j": 1}, "encoding": "json"},
        ],
    )
    recs = (await read(client, "per", encoding="base64"))["records"]
    assert [base64.b64decode(r["value"]) for r in recs] == [b"plain", b"\x01\x02", b'{"j":1}']


async def test_non_utf8_bytes_come_back_as_base64_unchanged(client: httpx.AsyncClient) -> None:
    await create_topic(client, "raw")
    bad = b"\xff\xfe\x00 not utf-8 \xc3"
    await produce(
        client,
        "raw",
        [
            {"value": b64(b"fine")},
            {
                "key": b64(b"k"),
                "value": b64(bad),
                "headers": [{"key": "h", "value": b64(b"hv")}, {"key": "n", "value": None}],
            },
            {"value": b64("ok ✓".encode())},
        ],
        encoding="base64",
    )
    recs = (await read(client, "raw", encoding="utf8"))["records"]
    assert recs[0]["value"] == "fine" and "encoding" not in recs[0]
    assert recs[2]["value"] == "ok ✓" and "encoding" not in recs[2]
    odd = recs[1]
    assert odd["encoding"] == "base64"
    # the whole record is in base64: key, value and header values
    assert base64.b64decode(odd["value"]) == bad
    assert base64.b64decode(odd["key"]) == b"k"
    assert odd["headers"] == [{"key": "h", "value": b64(b"hv")}, {"key": "n", "value": None}]
    assert odd["offset"] == 1 and odd["partition"] == 0 and odd["topic"] == "raw"
    # asking for json: neither valid UTF-8 nor JSON, so base64 as well
    recs = (await read(client, "raw", encoding="json"))["records"]
    assert recs[1]["encoding"] == "base64"
    assert base64.b64decode(recs[1]["value"]) == bad
    assert recs[0]["encoding"] == "base64"  # "fine" is UTF-8 but not JSON
    assert base64.b64decode(recs[0]["value"]) == b"fine"


async def test_non_utf8_header_value_makes_the_record_base64(client: httpx.AsyncClient) -> None:
    await create_topic(client, "hdr")
    await produce(
        client,
        "hdr",
        [
            {
                "key": b64(b"key"),
                "value": b64(b"value"),
                "headers": [{"key": "bin", "value": b64(b"\x80")}],
            }
        ],
        encoding="base64",
    )
    rec = (await read(client, "hdr"))["records"][0]
    assert rec["encoding"] == "base64"
    assert (rec["key"], rec["value"]) == (b64(b"key"), b64(b"value"))
    assert rec["headers"] == [{"key": "bin", "value": b64(b"\x80")}]


# -- headers and timestamps ---------------------------------------------------------------------


async def test_headers_roundtrip(client: httpx.AsyncClient) -> None:
    await create_topic(client, "h")
    headers = [
        {"key": "trace", "value": "abc"},
        {"key": "trace", "value": "dup"},
        {"key": "empty", "value": ""},
        {"key": "none", "value": None},
        {"key": "ünï", "value": "✓"},
        {"key": "", "value": "no key name"},
    ]
    await produce(
        client,
        "h",
        [{"value": "v", "headers": headers}, {"value": "w"}, {"value": "x", "headers": []}],
    )
    recs = (await read(client, "h"))["records"]
    assert recs[0]["headers"] == headers
    assert recs[1]["headers"] == []
    assert recs[2]["headers"] == []
    await produce(
        client, "h", [{"value": 1, "headers": [{"key": "j", "value": {"a": [1]}}]}], encoding="json"
    )
    rec = (await read(client, "h", offset=3, encoding="json"))["records"][0]
    assert rec["headers"] == [{"key": "j", "value": {"a": [1]}}]


async def test_timestamps_given_are_kept(client: httpx.AsyncClient) -> None:
    await create_topic(client, "ts")
    stamps = [now_ms() - 5000, 0, now_ms() - 10_000, 2**40]
    got = await produce(
        client, "ts", [{"value": str(i), "timestamp": t} for i, t in enumerate(stamps)]
    )
    assert [o["timestamp"] for o in got] == stamps
    recs = (await read(client, "ts"))["records"]
    assert [r["timestamp"] for r in recs] == stamps


async def test_server_time_when_no_timestamp(client: httpx.AsyncClient) -> None:
    await create_topic(client, "ts")
    before = now_ms()
    got = await produce(client, "ts", [{"value": "a"}, {"value": "b", "timestamp": 5}])
    after = now_ms()
    assert before <= got[0]["timestamp"] <= after
    assert got[1]["timestamp"] == 5
    recs = (await read(client, "ts"))["records"]
    assert [r["timestamp"] for r in recs] == [got[0]["timestamp"], 5]


async def test_server_time_is_the_clock(fake_clock_served: Served, clock: FakeClock) -> None:
    c = fake_clock_served.client
    await create_topic(c, "ts")
    got = await produce(c, "ts", [{"value": "a"}, {"value": "b"}])
    assert [o["timestamp"] for o in got] == [clock.now_ms()] * 2
    clock.advance(1234)
    got = await produce(c, "ts", [{"value": "c"}])
    assert got[0]["timestamp"] == clock.now_ms()
    recs = (await read(c, "ts"))["records"]
    assert [r["timestamp"] for r in recs] == [clock.now_ms() - 1234] * 2 + [clock.now_ms()]


async def test_read_records_carry_their_coordinates(client: httpx.AsyncClient) -> None:
    await create_topic(client, "co", 2)
    got = await produce(
        client, "co", [{"key": "k", "value": "v", "partition": 1, "timestamp": 123}]
    )
    assert got == [{"partition": 1, "offset": 0, "timestamp": 123}]
    recs = (await read(client, "co", 1))["records"]
    assert recs == [
        {
            "topic": "co",
            "partition": 1,
            "offset": 0,
            "timestamp": 123,
            "key": "k",
            "value": "v",
            "headers": [],
        }
    ]


# -- body tolerance -----------------------------------------------------------------------------


async def test_unknown_fields_are_ignored(client: httpx.AsyncClient) -> None:
    await create_topic(client, "unk")
    r = await client.post(
        "/v1/topics/unk/records",
        json={"records": [{"value": "v", "extra": {"x": 1}, "offset": 99}], "future_option": True},
    )
    assert r.status_code == 200, r.text
    assert r.json()["offsets"][0]["offset"] == 0
    rec = (await read(client, "unk"))["records"][0]
    assert rec["value"] == "v" and rec["offset"] == 0


@pytest.mark.parametrize("content_type", ["text/plain", "application/octet-stream", None])
async def test_body_parsed_as_json_whatever_the_content_type(
    client: httpx.AsyncClient, content_type: str | None
) -> None:
    await create_topic(client, "ct")
    headers = {"content-type": content_type} if content_type else {}
    r = await client.post(
        "/v1/topics/ct/records", content=b'{"records": [{"value": "v"}]}', headers=headers
    )
    assert r.status_code == 200, r.text
    assert await watermarks(client, "ct") == [1]


async def test_topic_max_message_bytes_is_413(client: httpx.AsyncClient) -> None:
    await create_topic(client, "small", config={"max_message_bytes": 100})
    r = await client.post(
        "/v1/topics/small/records", json={"records": [{"value": "ok"}, {"value": "x" * 200}]}
    )
    assert_error(r, 413, "RECORD_TOO_LARGE")
    assert await watermarks(client, "small") == [0]
    await produce(client, "small", [{"value": "x" * 90}])


async def test_ten_thousand_records_in_one_request(client: httpx.AsyncClient) -> None:
    await create_topic(client, "many", 2)
    got = await produce(
        client, "many", [{"value": str(i), "partition": i % 2} for i in range(10_000)]
    )
    assert got[-1] == {"partition": 1, "offset": 4999, "timestamp": got[-1]["timestamp"]}
    assert await watermarks(client, "many") == [5000, 5000]
    r = await client.post("/v1/topics/many/records", json={"records": [{"value": "x"}] * 10_001})
    assert_error(r, 413, "REQUEST_TOO_LARGE")
    assert await watermarks(client, "many") == [5000, 5000]


# -- Idempotency-Key ----------------------------------------------------------------------------


def _idem(key: str) -> dict[str, Any]:
    return {"headers": {"Idempotency-Key": key}}


async def test_idempotent_retry_returns_same_offsets_appends_nothing(
    client: httpx.AsyncClient,
) -> None:
    await create_topic(client, "idem", 3)
    records: list[dict[str, Any]] = [
        {"value": "a"},
        {"key": "k", "value": "b"},
        {"value": "c", "partition": 2},
    ]
    first = await produce(client, "idem", records, **_idem("req-1"))
    hws = await watermarks(client, "idem")
    assert sum(hws) == 3
    for _ in range(3):
        again = await produce(client, "idem", records, **_idem("req-1"))
        assert again == first  # same offsets and timestamps
    assert await watermarks(client, "idem") == hws
    # another key is another request
    other = await produce(client, "idem", records, **_idem("req-2"))
    assert other != first
    assert sum(await watermarks(client, "idem")) == 6


async def test_idempotency_key_with_a_different_body_is_409(client: httpx.AsyncClient) -> None:
    await create_topic(client, "idem")
    first = await produce(client, "idem", [{"value": "a"}], **_idem("K"))
    r = await client.post(
        "/v1/topics/idem/records", json={"records": [{"value": "b"}]}, **_idem("K")
    )
    err = assert_error(r, 409, "IDEMPOTENCY_KEY_REUSED")
    assert err["retriable"] is False
    assert await watermarks(client, "idem") == [1]
    assert await produce(client, "idem", [{"value": "a"}], **_idem("K")) == first


async def test_concurrent_identical_requests_append_once(client: httpx.AsyncClient) -> None:
    await create_topic(client, "race", 2)
    body = {"records": [{"value": f"v{i}"} for i in range(4)]}
    rs = await asyncio.gather(
        *(client.post("/v1/topics/race/records", json=body, **_idem("same")) for _ in range(8))
    )
    assert [r.status_code for r in rs] == [200] * 8, [r.text for r in rs]
    answers = {r.content for r in rs}
    assert len(answers) == 1
    assert sum(await watermarks(client, "race")) == 4


async def test_concurrent_different_bodies_same_key(client: httpx.AsyncClient) -> None:
    await create_topic(client, "race")
    rs = await asyncio.gather(
        *(
            client.post(
                "/v1/topics/race/records", json={"records": [{"value": str(i)}]}, **_idem("shared")
            )
            for i in range(5)
        )
    )
    assert sorted(r.status_code for r in rs) == [200, 409, 409, 409, 409]
    assert await watermarks(client, "race") == [1]


async def test_idempotency_key_reused_on_another_topic_is_409(client: httpx.AsyncClient) -> None:
    """The same key with a different request (another topic) is IDEMPOTENCY_KEY_REUSED."""
    await create_topic(client, "first")
    await create_topic(client, "second")
    await produce(client, "first", [{"value": "a"}], **_idem("cross"))
    r = await client.post(
        "/v1/topics/second/records", json={"records": [{"value": "a"}]}, **_idem("cross")
    )
    assert_error(r, 409, "IDEMPOTENCY_KEY_REUSED")
    assert await watermarks(client, "second") == [0]


async def test_retry_after_key_used_on_another_topic_appends_nothing(
    client: httpx.AsyncClient,
) -> None:
    """A retry of the original request must never append it a second time."""
    await create_topic(client, "first")
    await create_topic(client, "second")
    original = await produce(client, "first", [{"value": "a"}], **_idem("cross"))
    await client.post(
        "/v1/topics/second/records", json={"records": [{"value": "a"}]}, **_idem("cross")
    )
    r = await client.post(
        "/v1/topics/first/records", json={"records": [{"value": "a"}]}, **_idem("cross")
    )
    assert await watermarks(client, "first") == [1]
    assert r.status_code == 200 and r.json()["offsets"] == original


async def test_idempotency_key_after_topic_recreated(client: httpx.AsyncClient) -> None:
    await create_topic(client, "re")
    await produce(client, "re", [{"value": "x"}] * 3)
    await produce(client, "re", [{"value": "a"}], **_idem("k"))
    assert (await client.delete("/v1/topics/re")).status_code == 204
    await create_topic(client, "re")
    got = await produce(client, "re", [{"value": "a"}], **_idem("k"))
    assert got[0]["offset"] == 0
    assert [r["value"] for r in (await read(client, "re"))["records"]] == ["a"]


@pytest.mark.parametrize("key", ["", "x" * 256])
async def test_idempotency_key_length(client: httpx.AsyncClient, key: str) -> None:
    await create_topic(client, "len")
    r = await client.post(
        "/v1/topics/len/records", json={"records": [{"value": "a"}]}, **_idem(key)
    )
    assert_error(r, 400, "INVALID_REQUEST")
    assert await watermarks(client, "len") == [0]
    await produce(client, "len", [{"value": "a"}], **_idem("x" * 255))


async def test_idempotent_produce_of_unknown_topic(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/v1/topics/ghost/records", json={"records": [{"value": "a"}]}, **_idem("g")
    )
    assert_error(r, 404, "UNKNOWN_TOPIC_OR_PARTITION")


async def test_idempotency_key_expires_after_retention(
    fake_clock_served: Served, clock: FakeClock
) -> None:
    c = fake_clock_served.client
    await create_topic(c, "exp")
    first = await produce(c, "exp", [{"value": "a"}], **_idem("old"))
    clock.advance(900)  # within the window (1 s here): the original answer
    assert await produce(c, "exp", [{"value": "a"}], **_idem("old")) == first
    clock.advance(200)  # past it: a new request
    again = await produce(c, "exp", [{"value": "a"}], **_idem("old"))
    assert again[0]["offset"] == 1
    assert await watermarks(c, "exp") == [2]
    # past the window a different body is no longer a conflict
    clock.advance(1100)
    await produce(c, "exp", [{"value": "other"}], **_idem("old"))
    assert await watermarks(c, "exp") == [3]


async def test_json_integers_beyond_64_bits_are_kept_exactly_on_every_produce_path(
    client: httpx.AsyncClient,
) -> None:
    # the fast parser reads such integers as floats: a record must never be stored altered
    # (they were refused on the plain path, and silently rounded on the idempotent one)
    await client.post("/v1/topics", json={"name": "big"})
    big = 1180591620717411303424
    body = b'{"encoding": "json", "records": [{"value": {"n": 1180591620717411303424}}]}'
    r = await client.post("/v1/topics/big/records", content=body)
    assert r.status_code == 200, r.text
    # an integer beyond 64 bits outside any record (an ignored field) is no reason to refuse
    extra = b'{"x": [1180591620717411303424], "records": [{"value": "1"}], "encoding": "json"}'
    assert (await client.post("/v1/topics/big/records", content=extra)).status_code == 200
    pid, epoch = await init_producer(client)
    idem = (
        b'{"producer_id": %d, "producer_epoch": %d, "encoding": "json", "batches": [{"topic": '
        b'"big", "partition": 0, "base_sequence": 0, "records": [{"value": [-%d], "key": %d}]}]}'
        % (pid, epoch, big, big)
    )
    r = await client.post("/v1/produce", content=idem)
    assert r.status_code == 200, r.text
    # the same big number sent as text is shown exactly under json too
    text = '{"n": 1180591620717411303424}'
    await client.post("/v1/topics/big/records", json={"records": [{"value": text}]})
    r = await client.get(
        "/v1/topics/big/partitions/0/records", params={"offset": 0, "encoding": "json"}
    )
    got = r.json()["records"]  # httpx reads integers exactly
    assert [g["value"] for g in got] == [{"n": big}, "1", [-big], {"n": big}]
    assert got[2]["key"] == big
    assert all("encoding" not in g for g in got)
    shown = (await read(client, "big", 0, offset=3, encoding="base64"))["records"]
    assert base64.b64decode(shown[0]["value"]) == text.encode()


async def test_numbers_beyond_a_double_are_refused_in_json_records_as_anywhere(
    client: httpx.AsyncClient,
) -> None:
    """A JSON number must be within a double's range (about 1.8e308) wherever it is in a
    body, a record's json value included: an integer of 400 digits is refused as 1e400 is."""
    await client.post("/v1/topics", json={"name": "huge"})
    huge = b"9" * 400
    for value in (huge, b"[-" + huge + b"]", b'{"n": ' + huge + b"}", b"1e400"):
        body = b'{"encoding": "json", "records": [{"value": ' + value + b"}]}"
        r = await client.post("/v1/topics/huge/records", content=body)
        assert_error(r, 400, "INVALID_REQUEST")
        header = b'{"encoding": "json", "records": [{"headers": [{"key": "h", "value": '
        r = await client.post("/v1/topics/huge/records", content=header + value + b"}]}]}")
        assert_error(r, 400, "INVALID_REQUEST")
    pid, epoch = await init_producer(client)
    body = (
        b'{"producer_id": %d, "producer_epoch": %d, "encoding": "json", "batches": [{"topic": '
        b'"huge", "partition": 0, "base_sequence": 0, "records": [{"key": %s}]}]}'
        % (pid, epoch, huge)
    )
    assert_error(await client.post("/v1/produce", content=body), 400, "INVALID_REQUEST")
    assert await watermarks(client, "huge") == [0]

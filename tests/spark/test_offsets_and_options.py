"""The connector's pure parts: options, the offsets JSON, ranges and read limits (no Spark)."""

from __future__ import annotations

import pytest
from sluice_spark import offsets
from sluice_spark.offsets import Bounds, Range
from sluice_spark.options import OptionError, parse

URL = {"url": "http://127.0.0.1:8080", "topic": "orders"}


def test_options_are_case_insensitive_typed_and_checked() -> None:
    o = parse({**URL, "FETCHMAXRECORDS": "100", "failondataloss": "false", "apiKey": "sk_1_x"})
    assert o.fetch_max_records == 100 and o.fail_on_data_loss is False
    assert o.http_headers == {"Authorization": "Bearer sk_1_x"}
    assert parse({**URL, "header.X-Trace": "1"}).http_headers == {"X-Trace": "1"}
    assert parse({**URL, "partitions": "2, 0,2"}).partitions == (0, 2)
    assert parse(URL).wire == "batches"
    assert parse({**URL, "WIRE": "BATCHES"}).wire == "batches"
    for bad, match in [
        ({"topic": "t"}, "url is required"),
        ({"url": "127.0.0.1:8080", "topic": "t"}, "http://"),
        ({"url": "http://x"}, "topic is required"),
        ({**URL, "fetchMaxRecords": "many"}, "fetchMaxRecords.*not an integer"),
        ({**URL, "fetchMaxRecords": "0"}, "fetchMaxRecords.*not from 1"),
        ({**URL, "isolationLevel": "dirty"}, "isolationLevel"),
        ({**URL, "failOnDataLoss": "maybe"}, "failOnDataLoss"),
        ({**URL, "partitions": "a,b"}, "partitions"),
        ({**URL, "transactionalIdPrefix": "a b"}, "transactionalIdPrefix"),
        ({**URL, "wire": "xml"}, "wire: 'xml' is not one of"),
    ]:
        with pytest.raises(OptionError, match=match):
            parse(bad)


def test_offset_specs_resolve_against_the_partitions_bounds() -> None:
    bounds = {0: Bounds(5, 20, 15), 1: Bounds(0, 7, 7)}
    assert offsets.resolve("earliest", bounds, "read_committed", default="earliest") == {0: 5, 1: 0}
    assert offsets.resolve("latest", bounds, "read_committed", default="latest") == {0: 15, 1: 7}
    assert offsets.resolve("latest", bounds, "read_uncommitted", default="latest") == {0: 20, 1: 7}
    spec = offsets.parse_spec('{"orders": {"0": 9, "1": -1}}', "orders", "startingOffsets")
    assert spec == {0: 9, 1: -1}
    assert offsets.resolve(spec, bounds, "read_committed", default="earliest") == {0: 9, 1: 7}
    short = offsets.parse_spec('{"1": 3}', "orders", "startingOffsets")
    assert offsets.resolve(short, bounds, "read_committed", default="earliest") == {0: 5, 1: 3}
    for bad in ("soon", "[1]", '{"orders": {"0": "x"}}', '{"orders": {"0": -3}}'):
        with pytest.raises(OptionError, match="startingOffsets"):
            offsets.parse_spec(bad, "orders", "startingOffsets")


def test_the_checkpointed_json_round_trips_and_names_its_topic() -> None:
    doc = offsets.to_json("orders", {1: 4, 0: 9})
    assert doc == {"orders": {"0": 9, "1": 4}}
    assert offsets.from_json(doc, "orders") == {0: 9, 1: 4}
    with pytest.raises(ValueError, match="not of topic 'other'"):
        offsets.from_json(doc, "other")


def test_ranges_are_split_and_empty_ones_left_out() -> None:
    assert offsets.split("t", {0: 0, 1: 5}, {0: 25, 1: 5}, 10) == [
        Range("t", 0, 0, 10),
        Range("t", 0, 10, 20),
        Range("t", 0, 20, 25),
    ]
    # a partition the start does not name, or whose end fell below its start (a topic created
    # again), is read from its log start
    assert offsets.split("t", {0: 3, 2: 50}, {0: 9, 1: 2, 2: 4}, None) == [
        Range("t", 0, 3, 9),
        Range("t", 1, 0, 2, from_log_start=True),
        Range("t", 2, 0, 4, from_log_start=True),
    ]


def test_a_read_limit_is_shared_in_proportion_to_what_waits() -> None:
    start, latest = {0: 0, 1: 100, 2: 0}, {0: 300, 1: 200, 2: 0}
    end = offsets.limit(start, latest, 100)
    assert sum(end[p] - start[p] for p in end) == 100
    assert end == {0: 75, 1: 125, 2: 0}
    assert offsets.limit(start, latest, 10_000) == latest
    # a partition with few records waiting is not starved by one with many
    assert offsets.limit({0: 0, 1: 0}, {0: 1_000_000, 1: 5}, 100) == {0: 99, 1: 1}
    odd = offsets.limit({0: 0, 1: 0, 2: 0}, {0: 1, 1: 1, 2: 1}, 2)
    assert sum(odd.values()) == 2 and all(v <= 1 for v in odd.values())

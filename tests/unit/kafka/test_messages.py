"""The generated messages: every message at every generated version survives a round trip with
representative values (nullable fields null and not, tagged fields set, lengths that take more
than one varint byte), a few encodings checked byte by byte, and the rules for versions."""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import pytest

from app.kafka.protocol import messages as m
from app.kafka.protocol.errors import DecodeError, UnsupportedVersionError
from app.kafka.protocol.message import Message, Struct, in_versions

ALL: list[type[Message]] = [
    m.RequestHeader,
    m.ResponseHeader,
    *m.REQUESTS.values(),
    *m.RESPONSES.values(),
]
CASES = [(cls, v) for cls in ALL for v in sorted(cls.ENCODERS)]

SCALARS: dict[str, tuple[Any, Any]] = {  # type: (an ordinary value, an edge value)
    "bool": (True, True),
    "int8": (7, -128),
    "int16": (300, -32768),
    "uint16": (40000, 65535),
    "int32": (70000, -(2**31)),
    "uint32": (3_000_000_000, 2**32 - 1),
    "int64": (2**40, 2**63 - 1),
    "float64": (0.25, -1e300),
    "string": ("name-é", "x" * 200),
    "bytes": (b"\x00\xffbytes", bytes(range(256))),
    "records": (b"records", b"r" * 300),
    "uuid": (uuid.UUID(int=0x1234567), uuid.UUID(int=2**128 - 1)),
}


def build(cls: type[Struct], owner: type[Message], version: int, variant: str) -> Any:
    """An instance of ``cls`` with every field that ``version`` carries set: ``variant`` is
    "values" (ordinary values), "edges" (extreme numbers, long strings, long or empty arrays)
    or "nulls" (every field nullable at this version null)."""
    kwargs: dict[str, Any] = {}
    for attr, (ktype, versions, nullable, _) in cls.FIELDS.items():
        if not in_versions(versions, version):
            continue
        if variant == "nulls" and in_versions(nullable, version):
            kwargs[attr] = None
            continue
        kwargs[attr] = value(ktype, owner, version, variant)
    return cls(**kwargs)


def value(ktype: str, owner: type[Message], version: int, variant: str) -> Any:
    edge = variant == "edges"
    if ktype.startswith("[]"):
        element = ktype[2:]
        if element in SCALARS:
            count = 130 if edge and element not in ("string", "bytes", "records") else 2
            return [value(element, owner, version, variant) for _ in range(count)]
        return [] if edge else [value(element, owner, version, variant) for _ in range(2)]
    if ktype in SCALARS:
        return SCALARS[ktype][edge]
    return build(getattr(owner, ktype), owner, version, variant)


@pytest.mark.parametrize("variant", ["values", "edges", "nulls"])
@pytest.mark.parametrize(("cls", "version"), CASES, ids=[f"{c.NAME}-v{v}" for c, v in CASES])
def test_every_message_round_trips_at_every_version(
    cls: type[Message], version: int, variant: str
) -> None:
    message = build(cls, cls, version, variant)
    data = message.encode(version)
    back = cls.decode(bytes(data), version)
    assert back == message
    assert back.encode(version) == data


def test_the_cases_cover_every_generated_version_and_tagged_and_nullable_fields() -> None:
    assert len(CASES) > 150
    tagged = [
        (cls.NAME, attr)
        for cls in ALL
        for owner in [cls, *(vars(cls)[n] for n in vars(cls) if isinstance(vars(cls)[n], type))]
        if issubclass(owner, Struct)
        for attr, spec in owner.FIELDS.items()
        if spec[3] is not None
    ]
    assert ("ApiVersionsResponse", "finalized_features_epoch") in tagged
    assert ("FetchResponse", "current_leader") in tagged
    assert ("FetchRequest", "cluster_id") in tagged


def test_api_versions_request_v3_bytes() -> None:
    request = m.ApiVersionsRequest(client_software_name="sluice", client_software_version="0.1.0")
    # compact strings (length + 1), then no tagged fields
    assert bytes(request.encode(3)) == b"\x07sluice\x060.1.0\x00"
    # v0-2 carry nothing at all
    assert bytes(m.ApiVersionsRequest().encode(0)) == b""


def test_metadata_request_bytes() -> None:
    one = m.MetadataRequest(topics=[m.MetadataRequest.MetadataRequestTopic(name="t")])
    assert bytes(one.encode(12)) == (
        b"\x02"  # one topic (compact: 1 + 1)
        + bytes(16)  # its topic id: zero, by name
        + b"\x02t"  # its name
        + b"\x00"  # its tagged fields
        + b"\x01"  # allow auto topic creation (default true)
        + b"\x00"  # include topic authorized operations
        + b"\x00"  # tagged fields
    )
    every = m.MetadataRequest(topics=None, allow_auto_topic_creation=False)
    assert bytes(every.encode(12)) == b"\x00\x00\x00\x00"  # null topics: all of them


def test_api_versions_response_v0_as_a_broker_answers_an_unsupported_version() -> None:
    data = bytes.fromhex("0023" + "00000001" + "0012" + "0000" + "0004")
    answer = m.ApiVersionsResponse.decode(data, 0)
    assert answer.error_code == 35
    assert answer.api_keys == [m.ApiVersionsResponse.ApiVersion(18, 0, 4)]


def test_a_produce_request_carries_the_records_as_they_are() -> None:
    records = bytes(range(200))
    request = m.ProduceRequest(
        acks=-1,
        timeout_ms=5000,
        topic_data=[
            m.ProduceRequest.TopicProduceData(
                name="t",
                partition_data=[m.ProduceRequest.PartitionProduceData(index=2, records=records)],
            )
        ],
    )
    assert bytes(request.encode(9)) == (
        b"\x00"  # transactional id: null
        + b"\xff\xff"  # acks -1
        + b"\x00\x00\x13\x88"  # timeout 5000
        + b"\x02"  # one topic
        + b"\x02t"
        + b"\x02"  # one partition
        + b"\x00\x00\x00\x02"
        + b"\xc9\x01"  # 200 bytes of records: 201 as an unsigned varint
        + records
        + b"\x00"  # the partition's tagged fields
        + b"\x00"  # the topic's
        + b"\x00"  # the request's
    )


def test_a_tagged_field_at_its_default_is_left_out_and_a_set_one_is_written() -> None:
    default = m.ApiVersionsResponse(error_code=0)
    assert bytes(default.encode(3)) == b"\x00\x00" + b"\x01" + b"\x00\x00\x00\x00" + b"\x00"
    with_epoch = dataclasses.replace(default, finalized_features_epoch=5)
    assert bytes(with_epoch.encode(3)) == (
        b"\x00\x00\x01\x00\x00\x00\x00"
        + b"\x01"  # one tagged field
        + b"\x01"  # tag 1
        + b"\x08"  # eight bytes
        + b"\x00" * 7
        + b"\x05"
    )


def test_unknown_tagged_fields_are_skipped() -> None:
    data = (
        b"\x00\x00\x01\x00\x00\x00\x00" + b"\x02" + b"\x09\x02ab" + b"\x01\x08" + bytes(7) + b"\x07"
    )
    answer = m.ApiVersionsResponse.decode(data, 3)
    assert answer.finalized_features_epoch == 7


def test_a_version_outside_the_generated_ones_is_refused() -> None:
    with pytest.raises(UnsupportedVersionError, match="ShareFetchRequest has versions 1 to 2"):
        m.ShareFetchRequest().encode(3)
    with pytest.raises(UnsupportedVersionError):
        m.ShareFetchResponse.decode(b"", 0)


def test_a_field_the_version_cannot_carry_is_refused_unless_ignorable() -> None:
    # IsRenewAck (v2+) changes what the request means: v1 refuses it
    with pytest.raises(UnsupportedVersionError, match="IsRenewAck"):
        m.ShareFetchRequest(is_renew_ack=True).encode(1)
    # ShareAcquireMode (v2+) is ignorable: v1 drops it
    dropped = m.ShareFetchRequest.decode(m.ShareFetchRequest(share_acquire_mode=1).encode(1), 1)
    assert dropped.share_acquire_mode == 0


def test_null_where_the_version_has_no_null_is_refused() -> None:
    # MetadataRequest.Topics is nullable from v1, but the fields stay typed for all versions
    topic = m.MetadataRequest.MetadataRequestTopic(name=None)
    with pytest.raises(UnsupportedVersionError, match="Name is null"):
        m.MetadataRequest(topics=[topic]).encode(9)


def test_bytes_cut_short_or_left_over_are_refused() -> None:
    data = bytes(m.FindCoordinatorRequest(key_type=2, coordinator_keys=["g"]).encode(6))
    with pytest.raises(DecodeError, match="left over"):
        m.FindCoordinatorRequest.decode(data + b"\x00", 6)
    for cut in range(len(data)):
        with pytest.raises(DecodeError):
            m.FindCoordinatorRequest.decode(data[:cut], 6)


def test_records_decode_as_a_view_of_the_answer() -> None:
    response = m.ShareFetchResponse(
        responses=[
            m.ShareFetchResponse.ShareFetchableTopicResponse(
                topic_id=uuid.uuid4(),
                partitions=[m.ShareFetchResponse.PartitionData(records=b"batch-bytes")],
            )
        ]
    )
    data = bytes(response.encode(1))
    back = m.ShareFetchResponse.decode(data, 1)
    records = back.responses[0].partitions[0].records
    assert isinstance(records, memoryview)
    assert records.obj is data
    assert bytes(records) == b"batch-bytes"


def test_each_request_names_its_response_and_the_api_keys_are_kafkas() -> None:
    assert set(m.REQUESTS) == set(m.RESPONSES)
    for key, request in m.REQUESTS.items():
        response = m.RESPONSES[key]
        assert request.API_KEY == response.API_KEY == key
        assert sorted(request.ENCODERS) == sorted(response.DECODERS)
        assert request.NAME.removesuffix("Request") == response.NAME.removesuffix("Response")
    names = {r.NAME.removesuffix("Request"): k for k, r in m.REQUESTS.items()}
    assert names["Produce"] == 0
    assert names["Fetch"] == 1
    assert names["Metadata"] == 3
    assert names["FindCoordinator"] == 10
    assert names["ApiVersions"] == 18
    assert names["InitProducerId"] == 22
    assert names["ConsumerGroupHeartbeat"] == 68
    assert names["ShareGroupHeartbeat"] == 76
    assert names["ShareFetch"] == 78
    assert names["ShareAcknowledge"] == 79
    assert names["DeleteShareGroupOffsets"] == 92


def test_the_latest_version_still_being_designed_is_not_offered_as_stable() -> None:
    assert m.InitProducerIdRequest.MAX_VERSION == 6
    assert m.InitProducerIdRequest.MAX_STABLE_VERSION == 5
    assert m.ShareFetchRequest.MAX_STABLE_VERSION == m.ShareFetchRequest.MAX_VERSION == 2


def test_instances_have_no_dict() -> None:
    with pytest.raises(AttributeError):
        m.ShareFetchRequest().__dict__  # noqa: B018
    with pytest.raises(AttributeError):
        m.ShareFetchRequest.FetchTopic().__dict__  # noqa: B018

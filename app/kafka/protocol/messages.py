"""Kafka's messages: generated from Kafka 4.4.0's message definitions.

Written by kafka/gen_protocol.py from common/message/*.json in kafka-clients-4.4.0.jar;
do not edit by hand. To regenerate: ``make kafka-protocol`` (or
``.venv/bin/python kafka/gen_protocol.py [--jar PATH]``); docs/kafka-protocol.md.

Each class holds a message's fields over all its versions; its ENCODERS and
DECODERS map each version to the functions below, one for each run of versions
that share a wire layout.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any, ClassVar
from uuid import UUID

from app.kafka.protocol.errors import DecodeError, UnsupportedVersionError
from app.kafka.protocol.message import FieldSpec, Header, Request, Response, Struct
from app.kafka.protocol.primitives import (
    ZERO_UUID,
    Buffer,
    read_array_length,
    read_compact_array_length,
    read_compact_bytes,
    read_compact_nullable_records,
    read_compact_nullable_string,
    read_compact_records,
    read_compact_string,
    read_nullable_string,
    read_number_array,
    read_string,
    read_tag_header,
    read_unsigned_varint,
    read_uuid,
    skip_tagged_fields,
    write_array_length,
    write_compact_array_length,
    write_compact_bytes,
    write_compact_nullable_bytes,
    write_compact_nullable_string,
    write_compact_string,
    write_nullable_string,
    write_number_array,
    write_string,
    write_tagged_fields,
)

_S_b = struct.Struct(">b")
_S_bb = struct.Struct(">bb")
_S_d = struct.Struct(">d")
_S_do = struct.Struct(">d?")
_S_h = struct.Struct(">h")
_S_hh = struct.Struct(">hh")
_S_hhh = struct.Struct(">hhh")
_S_hhi = struct.Struct(">hhi")
_S_hi = struct.Struct(">hi")
_S_hiii = struct.Struct(">hiii")
_S_i = struct.Struct(">i")
_S_ib = struct.Struct(">ib")
_S_ih = struct.Struct(">ih")
_S_ihi = struct.Struct(">ihi")
_S_ihqh = struct.Struct(">ihqh")
_S_ihqhqh = struct.Struct(">ihqhqh")
_S_ihqqi = struct.Struct(">ihqqi")
_S_ihqqq = struct.Struct(">ihqqq")
_S_ii = struct.Struct(">ii")
_S_iiibii = struct.Struct(">iiibii")
_S_iiiibii = struct.Struct(">iiiibii")
_S_iiiiii = struct.Struct(">iiiiii")
_S_iiiiiibo = struct.Struct(">iiiiiib?")
_S_iiq = struct.Struct(">iiq")
_S_iiqiqi = struct.Struct(">iiqiqi")
_S_io = struct.Struct(">i?")
_S_iq = struct.Struct(">iq")
_S_iqh = struct.Struct(">iqh")
_S_iqhoo = struct.Struct(">iqh??")
_S_iqi = struct.Struct(">iqi")
_S_iqih = struct.Struct(">iqih")
_S_iqiqh = struct.Struct(">iqiqh")
_S_iqqh = struct.Struct(">iqqh")
_S_o = struct.Struct(">?")
_S_ob = struct.Struct(">?b")
_S_obo = struct.Struct(">?b?")
_S_oo = struct.Struct(">??")
_S_ooo = struct.Struct(">???")
_S_q = struct.Struct(">q")
_S_qh = struct.Struct(">qh")
_S_qhi = struct.Struct(">qhi")
_S_qho = struct.Struct(">qh?")
_S_qi = struct.Struct(">qi")
_S_qiiqiq = struct.Struct(">qiiqiq")
_S_qq = struct.Struct(">qq")
_S_qqh = struct.Struct(">qqh")
_S_u = struct.Struct(">16s")
_S_uh = struct.Struct(">16sh")
_S_uo = struct.Struct(">16s?")


@dataclass(slots=True)
class RequestHeader(Header):
    """RequestHeader (a header): versions 1-2, flexible from 2."""

    NAME: ClassVar[str] = "RequestHeader"
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 2
    MAX_STABLE_VERSION: ClassVar[int] = 2
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 2

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "request_api_key": ("int16", "0+", "none", None),
        "request_api_version": ("int16", "0+", "none", None),
        "correlation_id": ("int32", "0+", "none", None),
        "client_id": ("string", "1+", "1+", None),
    }

    request_api_key: int = 0
    request_api_version: int = 0
    correlation_id: int = 0
    client_id: str | None = ""


@dataclass(slots=True)
class ResponseHeader(Header):
    """ResponseHeader (a header): versions 0-1, flexible from 1."""

    NAME: ClassVar[str] = "ResponseHeader"
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 1

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "correlation_id": ("int32", "0+", "none", None),
    }

    correlation_id: int = 0


@dataclass(slots=True)
class ApiVersionsResponse(Response):
    """ApiVersionsResponse (API key 18): versions 0-5, flexible from 3."""

    NAME: ClassVar[str] = "ApiVersionsResponse"
    API_KEY: ClassVar[int] = 18
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 5
    MAX_STABLE_VERSION: ClassVar[int] = 5
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 3

    @dataclass(slots=True)
    class ApiVersion(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "api_key": ("int16", "0+", "none", None),
            "min_version": ("int16", "0+", "none", None),
            "max_version": ("int16", "0+", "none", None),
        }

        api_key: int = 0
        min_version: int = 0
        max_version: int = 0

    @dataclass(slots=True)
    class SupportedFeatureKey(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "3+", "none", None),
            "min_version": ("int16", "3+", "none", None),
            "max_version": ("int16", "3+", "none", None),
        }

        name: str = ""
        min_version: int = 0
        max_version: int = 0

    @dataclass(slots=True)
    class FinalizedFeatureKey(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "3+", "none", None),
            "max_version_level": ("int16", "3+", "none", None),
            "min_version_level": ("int16", "3+", "none", None),
        }

        name: str = ""
        max_version_level: int = 0
        min_version_level: int = 0

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "error_code": ("int16", "0+", "none", None),
        "api_keys": ("[]ApiVersion", "0+", "none", None),
        "throttle_time_ms": ("int32", "1+", "none", None),
        "supported_features": ("[]SupportedFeatureKey", "3+", "none", 0),
        "finalized_features_epoch": ("int64", "3+", "none", 1),
        "finalized_features": ("[]FinalizedFeatureKey", "3+", "none", 2),
        "zk_migration_ready": ("bool", "3+", "none", 3),
    }

    error_code: int = 0
    api_keys: list[ApiVersionsResponse.ApiVersion] = field(default_factory=list)
    throttle_time_ms: int = 0
    supported_features: list[ApiVersionsResponse.SupportedFeatureKey] = field(default_factory=list)
    finalized_features_epoch: int = -1
    finalized_features: list[ApiVersionsResponse.FinalizedFeatureKey] = field(default_factory=list)
    zk_migration_ready: bool = False


@dataclass(slots=True)
class ApiVersionsRequest(Request[ApiVersionsResponse]):
    """ApiVersionsRequest (API key 18): versions 0-5, flexible from 3."""

    NAME: ClassVar[str] = "ApiVersionsRequest"
    API_KEY: ClassVar[int] = 18
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 5
    MAX_STABLE_VERSION: ClassVar[int] = 5
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 3

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "client_software_name": ("string", "3+", "none", None),
        "client_software_version": ("string", "3+", "none", None),
        "cluster_id": ("string", "5+", "5+", None),
        "node_id": ("int32", "5+", "none", None),
    }

    client_software_name: str = ""
    client_software_version: str = ""
    cluster_id: str | None = None
    node_id: int = -1

    def decode_response(self, data: memoryview, version: int) -> ApiVersionsResponse:
        return ApiVersionsResponse.decode(data, version)


@dataclass(slots=True)
class SaslHandshakeResponse(Response):
    """SaslHandshakeResponse (API key 17): versions 0-1, flexible in none."""

    NAME: ClassVar[str] = "SaslHandshakeResponse"
    API_KEY: ClassVar[int] = 17
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = None

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "error_code": ("int16", "0+", "none", None),
        "mechanisms": ("[]string", "0+", "none", None),
    }

    error_code: int = 0
    mechanisms: list[str] = field(default_factory=list)


@dataclass(slots=True)
class SaslHandshakeRequest(Request[SaslHandshakeResponse]):
    """SaslHandshakeRequest (API key 17): versions 0-1, flexible in none."""

    NAME: ClassVar[str] = "SaslHandshakeRequest"
    API_KEY: ClassVar[int] = 17
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = None

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "mechanism": ("string", "0+", "none", None),
    }

    mechanism: str = ""

    def decode_response(self, data: memoryview, version: int) -> SaslHandshakeResponse:
        return SaslHandshakeResponse.decode(data, version)


@dataclass(slots=True)
class SaslAuthenticateResponse(Response):
    """SaslAuthenticateResponse (API key 36): versions 0-2, flexible from 2."""

    NAME: ClassVar[str] = "SaslAuthenticateResponse"
    API_KEY: ClassVar[int] = 36
    MIN_VERSION: ClassVar[int] = 2
    MAX_VERSION: ClassVar[int] = 2
    MAX_STABLE_VERSION: ClassVar[int] = 2
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 2

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "error_code": ("int16", "0+", "none", None),
        "error_message": ("string", "0+", "0+", None),
        "auth_bytes": ("bytes", "0+", "none", None),
        "session_lifetime_ms": ("int64", "1+", "none", None),
    }

    error_code: int = 0
    error_message: str | None = ""
    auth_bytes: bytes = b""
    session_lifetime_ms: int = 0


@dataclass(slots=True)
class SaslAuthenticateRequest(Request[SaslAuthenticateResponse]):
    """SaslAuthenticateRequest (API key 36): versions 0-2, flexible from 2."""

    NAME: ClassVar[str] = "SaslAuthenticateRequest"
    API_KEY: ClassVar[int] = 36
    MIN_VERSION: ClassVar[int] = 2
    MAX_VERSION: ClassVar[int] = 2
    MAX_STABLE_VERSION: ClassVar[int] = 2
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 2

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "auth_bytes": ("bytes", "0+", "none", None),
    }

    auth_bytes: bytes = b""

    def decode_response(self, data: memoryview, version: int) -> SaslAuthenticateResponse:
        return SaslAuthenticateResponse.decode(data, version)


@dataclass(slots=True)
class MetadataResponse(Response):
    """MetadataResponse (API key 3): versions 0-13, flexible from 9."""

    NAME: ClassVar[str] = "MetadataResponse"
    API_KEY: ClassVar[int] = 3
    MIN_VERSION: ClassVar[int] = 9
    MAX_VERSION: ClassVar[int] = 13
    MAX_STABLE_VERSION: ClassVar[int] = 13
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 9

    @dataclass(slots=True)
    class MetadataResponseBroker(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "node_id": ("int32", "0+", "none", None),
            "host": ("string", "0+", "none", None),
            "port": ("int32", "0+", "none", None),
            "rack": ("string", "1+", "1+", None),
        }

        node_id: int = 0
        host: str = ""
        port: int = 0
        rack: str | None = None

    @dataclass(slots=True)
    class MetadataResponsePartition(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "error_code": ("int16", "0+", "none", None),
            "partition_index": ("int32", "0+", "none", None),
            "leader_id": ("int32", "0+", "none", None),
            "leader_epoch": ("int32", "7+", "none", None),
            "replica_nodes": ("[]int32", "0+", "none", None),
            "isr_nodes": ("[]int32", "0+", "none", None),
            "offline_replicas": ("[]int32", "5+", "none", None),
        }

        error_code: int = 0
        partition_index: int = 0
        leader_id: int = 0
        leader_epoch: int = -1
        replica_nodes: list[int] = field(default_factory=list)
        isr_nodes: list[int] = field(default_factory=list)
        offline_replicas: list[int] = field(default_factory=list)

    @dataclass(slots=True)
    class MetadataResponseTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "error_code": ("int16", "0+", "none", None),
            "name": ("string", "0+", "12+", None),
            "topic_id": ("uuid", "10+", "none", None),
            "is_internal": ("bool", "1+", "none", None),
            "partitions": ("[]MetadataResponsePartition", "0+", "none", None),
            "topic_authorized_operations": ("int32", "8+", "none", None),
        }

        error_code: int = 0
        name: str | None = ""
        topic_id: UUID = ZERO_UUID
        is_internal: bool = False
        partitions: list[MetadataResponse.MetadataResponsePartition] = field(default_factory=list)
        topic_authorized_operations: int = -2147483648

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "3+", "none", None),
        "brokers": ("[]MetadataResponseBroker", "0+", "none", None),
        "cluster_id": ("string", "2+", "2+", None),
        "controller_id": ("int32", "1+", "none", None),
        "topics": ("[]MetadataResponseTopic", "0+", "none", None),
        "cluster_authorized_operations": ("int32", "8-10", "none", None),
        "error_code": ("int16", "13+", "none", None),
    }

    throttle_time_ms: int = 0
    brokers: list[MetadataResponse.MetadataResponseBroker] = field(default_factory=list)
    cluster_id: str | None = None
    controller_id: int = -1
    topics: list[MetadataResponse.MetadataResponseTopic] = field(default_factory=list)
    cluster_authorized_operations: int = -2147483648
    error_code: int = 0


@dataclass(slots=True)
class MetadataRequest(Request[MetadataResponse]):
    """MetadataRequest (API key 3): versions 0-13, flexible from 9."""

    NAME: ClassVar[str] = "MetadataRequest"
    API_KEY: ClassVar[int] = 3
    MIN_VERSION: ClassVar[int] = 9
    MAX_VERSION: ClassVar[int] = 13
    MAX_STABLE_VERSION: ClassVar[int] = 13
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 9

    @dataclass(slots=True)
    class MetadataRequestTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_id": ("uuid", "10+", "none", None),
            "name": ("string", "0+", "10+", None),
        }

        topic_id: UUID = ZERO_UUID
        name: str | None = ""

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "topics": ("[]MetadataRequestTopic", "0+", "1+", None),
        "allow_auto_topic_creation": ("bool", "4+", "none", None),
        "include_cluster_authorized_operations": ("bool", "8-10", "none", None),
        "include_topic_authorized_operations": ("bool", "8+", "none", None),
    }

    topics: list[MetadataRequest.MetadataRequestTopic] | None = field(default_factory=list)
    allow_auto_topic_creation: bool = True
    include_cluster_authorized_operations: bool = False
    include_topic_authorized_operations: bool = False

    def decode_response(self, data: memoryview, version: int) -> MetadataResponse:
        return MetadataResponse.decode(data, version)


@dataclass(slots=True)
class DescribeClusterResponse(Response):
    """DescribeClusterResponse (API key 60): versions 0-2, flexible from 0."""

    NAME: ClassVar[str] = "DescribeClusterResponse"
    API_KEY: ClassVar[int] = 60
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 2
    MAX_STABLE_VERSION: ClassVar[int] = 2
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class DescribeClusterBroker(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "broker_id": ("int32", "0+", "none", None),
            "host": ("string", "0+", "none", None),
            "port": ("int32", "0+", "none", None),
            "rack": ("string", "0+", "0+", None),
            "is_fenced": ("bool", "2+", "none", None),
        }

        broker_id: int = 0
        host: str = ""
        port: int = 0
        rack: str | None = None
        is_fenced: bool = False

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "error_code": ("int16", "0+", "none", None),
        "error_message": ("string", "0+", "0+", None),
        "endpoint_type": ("int8", "1+", "none", None),
        "cluster_id": ("string", "0+", "none", None),
        "controller_id": ("int32", "0+", "none", None),
        "brokers": ("[]DescribeClusterBroker", "0+", "none", None),
        "cluster_authorized_operations": ("int32", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = None
    endpoint_type: int = 1
    cluster_id: str = ""
    controller_id: int = -1
    brokers: list[DescribeClusterResponse.DescribeClusterBroker] = field(default_factory=list)
    cluster_authorized_operations: int = -2147483648


@dataclass(slots=True)
class DescribeClusterRequest(Request[DescribeClusterResponse]):
    """DescribeClusterRequest (API key 60): versions 0-2, flexible from 0."""

    NAME: ClassVar[str] = "DescribeClusterRequest"
    API_KEY: ClassVar[int] = 60
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 2
    MAX_STABLE_VERSION: ClassVar[int] = 2
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "include_cluster_authorized_operations": ("bool", "0+", "none", None),
        "endpoint_type": ("int8", "1+", "none", None),
        "include_fenced_brokers": ("bool", "2+", "none", None),
    }

    include_cluster_authorized_operations: bool = False
    endpoint_type: int = 1
    include_fenced_brokers: bool = False

    def decode_response(self, data: memoryview, version: int) -> DescribeClusterResponse:
        return DescribeClusterResponse.decode(data, version)


@dataclass(slots=True)
class FindCoordinatorResponse(Response):
    """FindCoordinatorResponse (API key 10): versions 0-6, flexible from 3."""

    NAME: ClassVar[str] = "FindCoordinatorResponse"
    API_KEY: ClassVar[int] = 10
    MIN_VERSION: ClassVar[int] = 3
    MAX_VERSION: ClassVar[int] = 6
    MAX_STABLE_VERSION: ClassVar[int] = 6
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 3

    @dataclass(slots=True)
    class Coordinator(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "key": ("string", "4+", "none", None),
            "node_id": ("int32", "4+", "none", None),
            "host": ("string", "4+", "none", None),
            "port": ("int32", "4+", "none", None),
            "error_code": ("int16", "4+", "none", None),
            "error_message": ("string", "4+", "4+", None),
        }

        key: str = ""
        node_id: int = 0
        host: str = ""
        port: int = 0
        error_code: int = 0
        error_message: str | None = ""

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "1+", "none", None),
        "error_code": ("int16", "0-3", "none", None),
        "error_message": ("string", "1-3", "1-3", None),
        "node_id": ("int32", "0-3", "none", None),
        "host": ("string", "0-3", "none", None),
        "port": ("int32", "0-3", "none", None),
        "coordinators": ("[]Coordinator", "4+", "none", None),
    }

    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = ""
    node_id: int = 0
    host: str = ""
    port: int = 0
    coordinators: list[FindCoordinatorResponse.Coordinator] = field(default_factory=list)


@dataclass(slots=True)
class FindCoordinatorRequest(Request[FindCoordinatorResponse]):
    """FindCoordinatorRequest (API key 10): versions 0-6, flexible from 3."""

    NAME: ClassVar[str] = "FindCoordinatorRequest"
    API_KEY: ClassVar[int] = 10
    MIN_VERSION: ClassVar[int] = 3
    MAX_VERSION: ClassVar[int] = 6
    MAX_STABLE_VERSION: ClassVar[int] = 6
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 3

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "key": ("string", "0-3", "none", None),
        "key_type": ("int8", "1+", "none", None),
        "coordinator_keys": ("[]string", "4+", "none", None),
    }

    key: str = ""
    key_type: int = 0
    coordinator_keys: list[str] = field(default_factory=list)

    def decode_response(self, data: memoryview, version: int) -> FindCoordinatorResponse:
        return FindCoordinatorResponse.decode(data, version)


@dataclass(slots=True)
class CreateTopicsResponse(Response):
    """CreateTopicsResponse (API key 19): versions 2-7, flexible from 5."""

    NAME: ClassVar[str] = "CreateTopicsResponse"
    API_KEY: ClassVar[int] = 19
    MIN_VERSION: ClassVar[int] = 5
    MAX_VERSION: ClassVar[int] = 7
    MAX_STABLE_VERSION: ClassVar[int] = 7
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 5

    @dataclass(slots=True)
    class CreatableTopicConfigs(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "5+", "none", None),
            "value": ("string", "5+", "5+", None),
            "read_only": ("bool", "5+", "none", None),
            "config_source": ("int8", "5+", "none", None),
            "is_sensitive": ("bool", "5+", "none", None),
        }

        name: str = ""
        value: str | None = ""
        read_only: bool = False
        config_source: int = -1
        is_sensitive: bool = False

    @dataclass(slots=True)
    class CreatableTopicResult(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0+", "none", None),
            "topic_id": ("uuid", "7+", "none", None),
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "1+", "0+", None),
            "topic_config_error_code": ("int16", "5+", "none", 0),
            "num_partitions": ("int32", "5+", "none", None),
            "replication_factor": ("int16", "5+", "none", None),
            "configs": ("[]CreatableTopicConfigs", "5+", "5+", None),
        }

        name: str = ""
        topic_id: UUID = ZERO_UUID
        error_code: int = 0
        error_message: str | None = ""
        topic_config_error_code: int = 0
        num_partitions: int = -1
        replication_factor: int = -1
        configs: list[CreateTopicsResponse.CreatableTopicConfigs] | None = field(
            default_factory=list
        )

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "2+", "none", None),
        "topics": ("[]CreatableTopicResult", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    topics: list[CreateTopicsResponse.CreatableTopicResult] = field(default_factory=list)


@dataclass(slots=True)
class CreateTopicsRequest(Request[CreateTopicsResponse]):
    """CreateTopicsRequest (API key 19): versions 2-7, flexible from 5."""

    NAME: ClassVar[str] = "CreateTopicsRequest"
    API_KEY: ClassVar[int] = 19
    MIN_VERSION: ClassVar[int] = 5
    MAX_VERSION: ClassVar[int] = 7
    MAX_STABLE_VERSION: ClassVar[int] = 7
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 5

    @dataclass(slots=True)
    class CreatableReplicaAssignment(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "broker_ids": ("[]int32", "0+", "none", None),
        }

        partition_index: int = 0
        broker_ids: list[int] = field(default_factory=list)

    @dataclass(slots=True)
    class CreatableTopicConfig(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0+", "none", None),
            "value": ("string", "0+", "0+", None),
        }

        name: str = ""
        value: str | None = ""

    @dataclass(slots=True)
    class CreatableTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0+", "none", None),
            "num_partitions": ("int32", "0+", "none", None),
            "replication_factor": ("int16", "0+", "none", None),
            "assignments": ("[]CreatableReplicaAssignment", "0+", "none", None),
            "configs": ("[]CreatableTopicConfig", "0+", "none", None),
        }

        name: str = ""
        num_partitions: int = 0
        replication_factor: int = 0
        assignments: list[CreateTopicsRequest.CreatableReplicaAssignment] = field(
            default_factory=list
        )
        configs: list[CreateTopicsRequest.CreatableTopicConfig] = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "topics": ("[]CreatableTopic", "0+", "none", None),
        "timeout_ms": ("int32", "0+", "none", None),
        "validate_only": ("bool", "1+", "none", None),
    }

    topics: list[CreateTopicsRequest.CreatableTopic] = field(default_factory=list)
    timeout_ms: int = 60000
    validate_only: bool = False

    def decode_response(self, data: memoryview, version: int) -> CreateTopicsResponse:
        return CreateTopicsResponse.decode(data, version)


@dataclass(slots=True)
class DeleteTopicsResponse(Response):
    """DeleteTopicsResponse (API key 20): versions 1-6, flexible from 4."""

    NAME: ClassVar[str] = "DeleteTopicsResponse"
    API_KEY: ClassVar[int] = 20
    MIN_VERSION: ClassVar[int] = 4
    MAX_VERSION: ClassVar[int] = 6
    MAX_STABLE_VERSION: ClassVar[int] = 6
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 4

    @dataclass(slots=True)
    class DeletableTopicResult(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0+", "6+", None),
            "topic_id": ("uuid", "6+", "none", None),
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "5+", "5+", None),
        }

        name: str | None = ""
        topic_id: UUID = ZERO_UUID
        error_code: int = 0
        error_message: str | None = None

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "1+", "none", None),
        "responses": ("[]DeletableTopicResult", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    responses: list[DeleteTopicsResponse.DeletableTopicResult] = field(default_factory=list)


@dataclass(slots=True)
class DeleteTopicsRequest(Request[DeleteTopicsResponse]):
    """DeleteTopicsRequest (API key 20): versions 1-6, flexible from 4."""

    NAME: ClassVar[str] = "DeleteTopicsRequest"
    API_KEY: ClassVar[int] = 20
    MIN_VERSION: ClassVar[int] = 4
    MAX_VERSION: ClassVar[int] = 6
    MAX_STABLE_VERSION: ClassVar[int] = 6
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 4

    @dataclass(slots=True)
    class DeleteTopicState(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "6+", "6+", None),
            "topic_id": ("uuid", "6+", "none", None),
        }

        name: str | None = None
        topic_id: UUID = ZERO_UUID

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "topics": ("[]DeleteTopicState", "6+", "none", None),
        "topic_names": ("[]string", "0-5", "none", None),
        "timeout_ms": ("int32", "0+", "none", None),
    }

    topics: list[DeleteTopicsRequest.DeleteTopicState] = field(default_factory=list)
    topic_names: list[str] = field(default_factory=list)
    timeout_ms: int = 0

    def decode_response(self, data: memoryview, version: int) -> DeleteTopicsResponse:
        return DeleteTopicsResponse.decode(data, version)


@dataclass(slots=True)
class CreatePartitionsResponse(Response):
    """CreatePartitionsResponse (API key 37): versions 0-3, flexible from 2."""

    NAME: ClassVar[str] = "CreatePartitionsResponse"
    API_KEY: ClassVar[int] = 37
    MIN_VERSION: ClassVar[int] = 2
    MAX_VERSION: ClassVar[int] = 3
    MAX_STABLE_VERSION: ClassVar[int] = 3
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 2

    @dataclass(slots=True)
    class CreatePartitionsTopicResult(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0+", "none", None),
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "0+", "0+", None),
        }

        name: str = ""
        error_code: int = 0
        error_message: str | None = None

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "results": ("[]CreatePartitionsTopicResult", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    results: list[CreatePartitionsResponse.CreatePartitionsTopicResult] = field(
        default_factory=list
    )


@dataclass(slots=True)
class CreatePartitionsRequest(Request[CreatePartitionsResponse]):
    """CreatePartitionsRequest (API key 37): versions 0-3, flexible from 2."""

    NAME: ClassVar[str] = "CreatePartitionsRequest"
    API_KEY: ClassVar[int] = 37
    MIN_VERSION: ClassVar[int] = 2
    MAX_VERSION: ClassVar[int] = 3
    MAX_STABLE_VERSION: ClassVar[int] = 3
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 2

    @dataclass(slots=True)
    class CreatePartitionsAssignment(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "broker_ids": ("[]int32", "0+", "none", None),
        }

        broker_ids: list[int] = field(default_factory=list)

    @dataclass(slots=True)
    class CreatePartitionsTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0+", "none", None),
            "count": ("int32", "0+", "none", None),
            "assignments": ("[]CreatePartitionsAssignment", "0+", "0+", None),
        }

        name: str = ""
        count: int = 0
        assignments: list[CreatePartitionsRequest.CreatePartitionsAssignment] | None = field(
            default_factory=list
        )

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "topics": ("[]CreatePartitionsTopic", "0+", "none", None),
        "timeout_ms": ("int32", "0+", "none", None),
        "validate_only": ("bool", "0+", "none", None),
    }

    topics: list[CreatePartitionsRequest.CreatePartitionsTopic] = field(default_factory=list)
    timeout_ms: int = 0
    validate_only: bool = False

    def decode_response(self, data: memoryview, version: int) -> CreatePartitionsResponse:
        return CreatePartitionsResponse.decode(data, version)


@dataclass(slots=True)
class DescribeConfigsResponse(Response):
    """DescribeConfigsResponse (API key 32): versions 1-4, flexible from 4."""

    NAME: ClassVar[str] = "DescribeConfigsResponse"
    API_KEY: ClassVar[int] = 32
    MIN_VERSION: ClassVar[int] = 4
    MAX_VERSION: ClassVar[int] = 4
    MAX_STABLE_VERSION: ClassVar[int] = 4
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 4

    @dataclass(slots=True)
    class DescribeConfigsSynonym(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "1+", "none", None),
            "value": ("string", "1+", "0+", None),
            "source": ("int8", "1+", "none", None),
        }

        name: str = ""
        value: str | None = ""
        source: int = 0

    @dataclass(slots=True)
    class DescribeConfigsResourceResult(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0+", "none", None),
            "value": ("string", "0+", "0+", None),
            "read_only": ("bool", "0+", "none", None),
            "config_source": ("int8", "1+", "none", None),
            "is_sensitive": ("bool", "0+", "none", None),
            "synonyms": ("[]DescribeConfigsSynonym", "1+", "none", None),
            "config_type": ("int8", "3+", "none", None),
            "documentation": ("string", "3+", "0+", None),
        }

        name: str = ""
        value: str | None = ""
        read_only: bool = False
        config_source: int = -1
        is_sensitive: bool = False
        synonyms: list[DescribeConfigsResponse.DescribeConfigsSynonym] = field(default_factory=list)
        config_type: int = 0
        documentation: str | None = ""

    @dataclass(slots=True)
    class DescribeConfigsResult(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "0+", "0+", None),
            "resource_type": ("int8", "0+", "none", None),
            "resource_name": ("string", "0+", "none", None),
            "configs": ("[]DescribeConfigsResourceResult", "0+", "none", None),
        }

        error_code: int = 0
        error_message: str | None = ""
        resource_type: int = 0
        resource_name: str = ""
        configs: list[DescribeConfigsResponse.DescribeConfigsResourceResult] = field(
            default_factory=list
        )

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "results": ("[]DescribeConfigsResult", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    results: list[DescribeConfigsResponse.DescribeConfigsResult] = field(default_factory=list)


@dataclass(slots=True)
class DescribeConfigsRequest(Request[DescribeConfigsResponse]):
    """DescribeConfigsRequest (API key 32): versions 1-4, flexible from 4."""

    NAME: ClassVar[str] = "DescribeConfigsRequest"
    API_KEY: ClassVar[int] = 32
    MIN_VERSION: ClassVar[int] = 4
    MAX_VERSION: ClassVar[int] = 4
    MAX_STABLE_VERSION: ClassVar[int] = 4
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 4

    @dataclass(slots=True)
    class DescribeConfigsResource(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "resource_type": ("int8", "0+", "none", None),
            "resource_name": ("string", "0+", "none", None),
            "configuration_keys": ("[]string", "0+", "0+", None),
        }

        resource_type: int = 0
        resource_name: str = ""
        configuration_keys: list[str] | None = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "resources": ("[]DescribeConfigsResource", "0+", "none", None),
        "include_synonyms": ("bool", "1+", "none", None),
        "include_documentation": ("bool", "3+", "none", None),
    }

    resources: list[DescribeConfigsRequest.DescribeConfigsResource] = field(default_factory=list)
    include_synonyms: bool = False
    include_documentation: bool = False

    def decode_response(self, data: memoryview, version: int) -> DescribeConfigsResponse:
        return DescribeConfigsResponse.decode(data, version)


@dataclass(slots=True)
class IncrementalAlterConfigsResponse(Response):
    """IncrementalAlterConfigsResponse (API key 44): versions 0-1, flexible from 1."""

    NAME: ClassVar[str] = "IncrementalAlterConfigsResponse"
    API_KEY: ClassVar[int] = 44
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 1

    @dataclass(slots=True)
    class AlterConfigsResourceResponse(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "0+", "0+", None),
            "resource_type": ("int8", "0+", "none", None),
            "resource_name": ("string", "0+", "none", None),
        }

        error_code: int = 0
        error_message: str | None = ""
        resource_type: int = 0
        resource_name: str = ""

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "responses": ("[]AlterConfigsResourceResponse", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    responses: list[IncrementalAlterConfigsResponse.AlterConfigsResourceResponse] = field(
        default_factory=list
    )


@dataclass(slots=True)
class IncrementalAlterConfigsRequest(Request[IncrementalAlterConfigsResponse]):
    """IncrementalAlterConfigsRequest (API key 44): versions 0-1, flexible from 1."""

    NAME: ClassVar[str] = "IncrementalAlterConfigsRequest"
    API_KEY: ClassVar[int] = 44
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 1

    @dataclass(slots=True)
    class AlterableConfig(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0+", "none", None),
            "config_operation": ("int8", "0+", "none", None),
            "value": ("string", "0+", "0+", None),
        }

        name: str = ""
        config_operation: int = 0
        value: str | None = ""

    @dataclass(slots=True)
    class AlterConfigsResource(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "resource_type": ("int8", "0+", "none", None),
            "resource_name": ("string", "0+", "none", None),
            "configs": ("[]AlterableConfig", "0+", "none", None),
        }

        resource_type: int = 0
        resource_name: str = ""
        configs: list[IncrementalAlterConfigsRequest.AlterableConfig] = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "resources": ("[]AlterConfigsResource", "0+", "none", None),
        "validate_only": ("bool", "0+", "none", None),
    }

    resources: list[IncrementalAlterConfigsRequest.AlterConfigsResource] = field(
        default_factory=list
    )
    validate_only: bool = False

    def decode_response(self, data: memoryview, version: int) -> IncrementalAlterConfigsResponse:
        return IncrementalAlterConfigsResponse.decode(data, version)


@dataclass(slots=True)
class DeleteRecordsResponse(Response):
    """DeleteRecordsResponse (API key 21): versions 0-2, flexible from 2."""

    NAME: ClassVar[str] = "DeleteRecordsResponse"
    API_KEY: ClassVar[int] = 21
    MIN_VERSION: ClassVar[int] = 2
    MAX_VERSION: ClassVar[int] = 2
    MAX_STABLE_VERSION: ClassVar[int] = 2
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 2

    @dataclass(slots=True)
    class DeleteRecordsPartitionResult(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "low_watermark": ("int64", "0+", "none", None),
            "error_code": ("int16", "0+", "none", None),
        }

        partition_index: int = 0
        low_watermark: int = 0
        error_code: int = 0

    @dataclass(slots=True)
    class DeleteRecordsTopicResult(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0+", "none", None),
            "partitions": ("[]DeleteRecordsPartitionResult", "0+", "none", None),
        }

        name: str = ""
        partitions: list[DeleteRecordsResponse.DeleteRecordsPartitionResult] = field(
            default_factory=list
        )

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "topics": ("[]DeleteRecordsTopicResult", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    topics: list[DeleteRecordsResponse.DeleteRecordsTopicResult] = field(default_factory=list)


@dataclass(slots=True)
class DeleteRecordsRequest(Request[DeleteRecordsResponse]):
    """DeleteRecordsRequest (API key 21): versions 0-2, flexible from 2."""

    NAME: ClassVar[str] = "DeleteRecordsRequest"
    API_KEY: ClassVar[int] = 21
    MIN_VERSION: ClassVar[int] = 2
    MAX_VERSION: ClassVar[int] = 2
    MAX_STABLE_VERSION: ClassVar[int] = 2
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 2

    @dataclass(slots=True)
    class DeleteRecordsPartition(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "offset": ("int64", "0+", "none", None),
        }

        partition_index: int = 0
        offset: int = 0

    @dataclass(slots=True)
    class DeleteRecordsTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0+", "none", None),
            "partitions": ("[]DeleteRecordsPartition", "0+", "none", None),
        }

        name: str = ""
        partitions: list[DeleteRecordsRequest.DeleteRecordsPartition] = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "topics": ("[]DeleteRecordsTopic", "0+", "none", None),
        "timeout_ms": ("int32", "0+", "none", None),
    }

    topics: list[DeleteRecordsRequest.DeleteRecordsTopic] = field(default_factory=list)
    timeout_ms: int = 0

    def decode_response(self, data: memoryview, version: int) -> DeleteRecordsResponse:
        return DeleteRecordsResponse.decode(data, version)


@dataclass(slots=True)
class ListOffsetsResponse(Response):
    """ListOffsetsResponse (API key 2): versions 1-11, flexible from 6."""

    NAME: ClassVar[str] = "ListOffsetsResponse"
    API_KEY: ClassVar[int] = 2
    MIN_VERSION: ClassVar[int] = 6
    MAX_VERSION: ClassVar[int] = 11
    MAX_STABLE_VERSION: ClassVar[int] = 11
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 6

    @dataclass(slots=True)
    class ListOffsetsPartitionResponse(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "error_code": ("int16", "0+", "none", None),
            "timestamp": ("int64", "1+", "none", None),
            "offset": ("int64", "1+", "none", None),
            "leader_epoch": ("int32", "4+", "none", None),
        }

        partition_index: int = 0
        error_code: int = 0
        timestamp: int = -1
        offset: int = -1
        leader_epoch: int = -1

    @dataclass(slots=True)
    class ListOffsetsTopicResponse(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0+", "none", None),
            "partitions": ("[]ListOffsetsPartitionResponse", "0+", "none", None),
        }

        name: str = ""
        partitions: list[ListOffsetsResponse.ListOffsetsPartitionResponse] = field(
            default_factory=list
        )

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "2+", "none", None),
        "topics": ("[]ListOffsetsTopicResponse", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    topics: list[ListOffsetsResponse.ListOffsetsTopicResponse] = field(default_factory=list)


@dataclass(slots=True)
class ListOffsetsRequest(Request[ListOffsetsResponse]):
    """ListOffsetsRequest (API key 2): versions 1-11, flexible from 6."""

    NAME: ClassVar[str] = "ListOffsetsRequest"
    API_KEY: ClassVar[int] = 2
    MIN_VERSION: ClassVar[int] = 6
    MAX_VERSION: ClassVar[int] = 11
    MAX_STABLE_VERSION: ClassVar[int] = 11
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 6

    @dataclass(slots=True)
    class ListOffsetsPartition(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "current_leader_epoch": ("int32", "4+", "none", None),
            "timestamp": ("int64", "0+", "none", None),
        }

        partition_index: int = 0
        current_leader_epoch: int = -1
        timestamp: int = 0

    @dataclass(slots=True)
    class ListOffsetsTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0+", "none", None),
            "partitions": ("[]ListOffsetsPartition", "0+", "none", None),
        }

        name: str = ""
        partitions: list[ListOffsetsRequest.ListOffsetsPartition] = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "replica_id": ("int32", "0+", "none", None),
        "isolation_level": ("int8", "2+", "none", None),
        "topics": ("[]ListOffsetsTopic", "0+", "none", None),
        "timeout_ms": ("int32", "10+", "none", None),
    }

    replica_id: int = 0
    isolation_level: int = 0
    topics: list[ListOffsetsRequest.ListOffsetsTopic] = field(default_factory=list)
    timeout_ms: int = 0

    def decode_response(self, data: memoryview, version: int) -> ListOffsetsResponse:
        return ListOffsetsResponse.decode(data, version)


@dataclass(slots=True)
class ProduceResponse(Response):
    """ProduceResponse (API key 0): versions 3-13, flexible from 9."""

    NAME: ClassVar[str] = "ProduceResponse"
    API_KEY: ClassVar[int] = 0
    MIN_VERSION: ClassVar[int] = 9
    MAX_VERSION: ClassVar[int] = 13
    MAX_STABLE_VERSION: ClassVar[int] = 13
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 9

    @dataclass(slots=True)
    class BatchIndexAndErrorMessage(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "batch_index": ("int32", "8+", "none", None),
            "batch_index_error_message": ("string", "8+", "8+", None),
        }

        batch_index: int = 0
        batch_index_error_message: str | None = None

    @dataclass(slots=True)
    class LeaderIdAndEpoch(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "leader_id": ("int32", "10+", "none", None),
            "leader_epoch": ("int32", "10+", "none", None),
        }

        leader_id: int = -1
        leader_epoch: int = -1

    @dataclass(slots=True)
    class PartitionProduceResponse(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "index": ("int32", "0+", "none", None),
            "error_code": ("int16", "0+", "none", None),
            "base_offset": ("int64", "0+", "none", None),
            "log_append_time_ms": ("int64", "2+", "none", None),
            "log_start_offset": ("int64", "5+", "none", None),
            "record_errors": ("[]BatchIndexAndErrorMessage", "8+", "none", None),
            "error_message": ("string", "8+", "8+", None),
            "current_leader": ("LeaderIdAndEpoch", "10+", "none", 0),
        }

        index: int = 0
        error_code: int = 0
        base_offset: int = 0
        log_append_time_ms: int = -1
        log_start_offset: int = -1
        record_errors: list[ProduceResponse.BatchIndexAndErrorMessage] = field(default_factory=list)
        error_message: str | None = None
        current_leader: ProduceResponse.LeaderIdAndEpoch = field(
            default_factory=lambda: ProduceResponse.LeaderIdAndEpoch()
        )

    @dataclass(slots=True)
    class TopicProduceResponse(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0-12", "none", None),
            "topic_id": ("uuid", "13+", "none", None),
            "partition_responses": ("[]PartitionProduceResponse", "0+", "none", None),
        }

        name: str = ""
        topic_id: UUID = ZERO_UUID
        partition_responses: list[ProduceResponse.PartitionProduceResponse] = field(
            default_factory=list
        )

    @dataclass(slots=True)
    class NodeEndpoint(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "node_id": ("int32", "10+", "none", None),
            "host": ("string", "10+", "none", None),
            "port": ("int32", "10+", "none", None),
            "rack": ("string", "10+", "10+", None),
        }

        node_id: int = 0
        host: str = ""
        port: int = 0
        rack: str | None = None

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "responses": ("[]TopicProduceResponse", "0+", "none", None),
        "throttle_time_ms": ("int32", "1+", "none", None),
        "node_endpoints": ("[]NodeEndpoint", "10+", "none", 0),
    }

    responses: list[ProduceResponse.TopicProduceResponse] = field(default_factory=list)
    throttle_time_ms: int = 0
    node_endpoints: list[ProduceResponse.NodeEndpoint] = field(default_factory=list)


@dataclass(slots=True)
class ProduceRequest(Request[ProduceResponse]):
    """ProduceRequest (API key 0): versions 3-13, flexible from 9."""

    NAME: ClassVar[str] = "ProduceRequest"
    API_KEY: ClassVar[int] = 0
    MIN_VERSION: ClassVar[int] = 9
    MAX_VERSION: ClassVar[int] = 13
    MAX_STABLE_VERSION: ClassVar[int] = 13
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 9

    @dataclass(slots=True)
    class PartitionProduceData(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "index": ("int32", "0+", "none", None),
            "records": ("records", "0+", "0+", None),
        }

        index: int = 0
        records: Buffer | None = None

    @dataclass(slots=True)
    class TopicProduceData(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0-12", "none", None),
            "topic_id": ("uuid", "13+", "none", None),
            "partition_data": ("[]PartitionProduceData", "0+", "none", None),
        }

        name: str = ""
        topic_id: UUID = ZERO_UUID
        partition_data: list[ProduceRequest.PartitionProduceData] = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "transactional_id": ("string", "3+", "3+", None),
        "acks": ("int16", "0+", "none", None),
        "timeout_ms": ("int32", "0+", "none", None),
        "topic_data": ("[]TopicProduceData", "0+", "none", None),
    }

    transactional_id: str | None = None
    acks: int = 0
    timeout_ms: int = 0
    topic_data: list[ProduceRequest.TopicProduceData] = field(default_factory=list)

    def decode_response(self, data: memoryview, version: int) -> ProduceResponse:
        return ProduceResponse.decode(data, version)


@dataclass(slots=True)
class FetchResponse(Response):
    """FetchResponse (API key 1): versions 4-18, flexible from 12."""

    NAME: ClassVar[str] = "FetchResponse"
    API_KEY: ClassVar[int] = 1
    MIN_VERSION: ClassVar[int] = 12
    MAX_VERSION: ClassVar[int] = 18
    MAX_STABLE_VERSION: ClassVar[int] = 18
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 12

    @dataclass(slots=True)
    class EpochEndOffset(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "epoch": ("int32", "12+", "none", None),
            "end_offset": ("int64", "12+", "none", None),
        }

        epoch: int = -1
        end_offset: int = -1

    @dataclass(slots=True)
    class LeaderIdAndEpoch(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "leader_id": ("int32", "12+", "none", None),
            "leader_epoch": ("int32", "12+", "none", None),
        }

        leader_id: int = -1
        leader_epoch: int = -1

    @dataclass(slots=True)
    class SnapshotId(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "end_offset": ("int64", "0+", "none", None),
            "epoch": ("int32", "0+", "none", None),
        }

        end_offset: int = -1
        epoch: int = -1

    @dataclass(slots=True)
    class AbortedTransaction(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "producer_id": ("int64", "4+", "none", None),
            "first_offset": ("int64", "4+", "none", None),
        }

        producer_id: int = 0
        first_offset: int = 0

    @dataclass(slots=True)
    class PartitionData(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "error_code": ("int16", "0+", "none", None),
            "high_watermark": ("int64", "0+", "none", None),
            "last_stable_offset": ("int64", "4+", "none", None),
            "log_start_offset": ("int64", "5+", "none", None),
            "diverging_epoch": ("EpochEndOffset", "12+", "none", 0),
            "current_leader": ("LeaderIdAndEpoch", "12+", "none", 1),
            "snapshot_id": ("SnapshotId", "12+", "none", 2),
            "aborted_transactions": ("[]AbortedTransaction", "4+", "4+", None),
            "preferred_read_replica": ("int32", "11+", "none", None),
            "records": ("records", "0+", "0+", None),
        }

        partition_index: int = 0
        error_code: int = 0
        high_watermark: int = 0
        last_stable_offset: int = -1
        log_start_offset: int = -1
        diverging_epoch: FetchResponse.EpochEndOffset = field(
            default_factory=lambda: FetchResponse.EpochEndOffset()
        )
        current_leader: FetchResponse.LeaderIdAndEpoch = field(
            default_factory=lambda: FetchResponse.LeaderIdAndEpoch()
        )
        snapshot_id: FetchResponse.SnapshotId = field(
            default_factory=lambda: FetchResponse.SnapshotId()
        )
        aborted_transactions: list[FetchResponse.AbortedTransaction] | None = field(
            default_factory=list
        )
        preferred_read_replica: int = -1
        records: Buffer | None = None

    @dataclass(slots=True)
    class FetchableTopicResponse(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic": ("string", "0-12", "none", None),
            "topic_id": ("uuid", "13+", "none", None),
            "partitions": ("[]PartitionData", "0+", "none", None),
        }

        topic: str = ""
        topic_id: UUID = ZERO_UUID
        partitions: list[FetchResponse.PartitionData] = field(default_factory=list)

    @dataclass(slots=True)
    class NodeEndpoint(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "node_id": ("int32", "16+", "none", None),
            "host": ("string", "16+", "none", None),
            "port": ("int32", "16+", "none", None),
            "rack": ("string", "16+", "16+", None),
        }

        node_id: int = 0
        host: str = ""
        port: int = 0
        rack: str | None = None

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "1+", "none", None),
        "error_code": ("int16", "7+", "none", None),
        "session_id": ("int32", "7+", "none", None),
        "responses": ("[]FetchableTopicResponse", "0+", "none", None),
        "node_endpoints": ("[]NodeEndpoint", "16+", "none", 0),
    }

    throttle_time_ms: int = 0
    error_code: int = 0
    session_id: int = 0
    responses: list[FetchResponse.FetchableTopicResponse] = field(default_factory=list)
    node_endpoints: list[FetchResponse.NodeEndpoint] = field(default_factory=list)


@dataclass(slots=True)
class FetchRequest(Request[FetchResponse]):
    """FetchRequest (API key 1): versions 4-18, flexible from 12."""

    NAME: ClassVar[str] = "FetchRequest"
    API_KEY: ClassVar[int] = 1
    MIN_VERSION: ClassVar[int] = 12
    MAX_VERSION: ClassVar[int] = 18
    MAX_STABLE_VERSION: ClassVar[int] = 18
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 12

    @dataclass(slots=True)
    class ReplicaState(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "replica_id": ("int32", "15+", "none", None),
            "replica_epoch": ("int64", "15+", "none", None),
        }

        replica_id: int = -1
        replica_epoch: int = -1

    @dataclass(slots=True)
    class FetchPartition(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition": ("int32", "0+", "none", None),
            "current_leader_epoch": ("int32", "9+", "none", None),
            "fetch_offset": ("int64", "0+", "none", None),
            "last_fetched_epoch": ("int32", "12+", "none", None),
            "log_start_offset": ("int64", "5+", "none", None),
            "partition_max_bytes": ("int32", "0+", "none", None),
            "replica_directory_id": ("uuid", "17+", "none", 0),
            "high_watermark": ("int64", "18+", "none", 1),
        }

        partition: int = 0
        current_leader_epoch: int = -1
        fetch_offset: int = 0
        last_fetched_epoch: int = -1
        log_start_offset: int = -1
        partition_max_bytes: int = 0
        replica_directory_id: UUID = ZERO_UUID
        high_watermark: int = 9223372036854775807

    @dataclass(slots=True)
    class FetchTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic": ("string", "0-12", "none", None),
            "topic_id": ("uuid", "13+", "none", None),
            "partitions": ("[]FetchPartition", "0+", "none", None),
        }

        topic: str = ""
        topic_id: UUID = ZERO_UUID
        partitions: list[FetchRequest.FetchPartition] = field(default_factory=list)

    @dataclass(slots=True)
    class ForgottenTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic": ("string", "7-12", "none", None),
            "topic_id": ("uuid", "13+", "none", None),
            "partitions": ("[]int32", "7+", "none", None),
        }

        topic: str = ""
        topic_id: UUID = ZERO_UUID
        partitions: list[int] = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "cluster_id": ("string", "12+", "12+", 0),
        "replica_id": ("int32", "0-14", "none", None),
        "replica_state": ("ReplicaState", "15+", "none", 1),
        "max_wait_ms": ("int32", "0+", "none", None),
        "min_bytes": ("int32", "0+", "none", None),
        "max_bytes": ("int32", "3+", "none", None),
        "isolation_level": ("int8", "4+", "none", None),
        "session_id": ("int32", "7+", "none", None),
        "session_epoch": ("int32", "7+", "none", None),
        "topics": ("[]FetchTopic", "0+", "none", None),
        "forgotten_topics_data": ("[]ForgottenTopic", "7+", "none", None),
        "rack_id": ("string", "11+", "none", None),
    }

    cluster_id: str | None = None
    replica_id: int = -1
    replica_state: FetchRequest.ReplicaState = field(
        default_factory=lambda: FetchRequest.ReplicaState()
    )
    max_wait_ms: int = 0
    min_bytes: int = 0
    max_bytes: int = 2147483647
    isolation_level: int = 0
    session_id: int = 0
    session_epoch: int = -1
    topics: list[FetchRequest.FetchTopic] = field(default_factory=list)
    forgotten_topics_data: list[FetchRequest.ForgottenTopic] = field(default_factory=list)
    rack_id: str = ""

    def decode_response(self, data: memoryview, version: int) -> FetchResponse:
        return FetchResponse.decode(data, version)


@dataclass(slots=True)
class InitProducerIdResponse(Response):
    """InitProducerIdResponse (API key 22): versions 0-6, flexible from 2."""

    NAME: ClassVar[str] = "InitProducerIdResponse"
    API_KEY: ClassVar[int] = 22
    MIN_VERSION: ClassVar[int] = 2
    MAX_VERSION: ClassVar[int] = 6
    MAX_STABLE_VERSION: ClassVar[int] = 6
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 2

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "error_code": ("int16", "0+", "none", None),
        "producer_id": ("int64", "0+", "none", None),
        "producer_epoch": ("int16", "0+", "none", None),
        "ongoing_txn_producer_id": ("int64", "6+", "none", None),
        "ongoing_txn_producer_epoch": ("int16", "6+", "none", None),
    }

    throttle_time_ms: int = 0
    error_code: int = 0
    producer_id: int = -1
    producer_epoch: int = 0
    ongoing_txn_producer_id: int = -1
    ongoing_txn_producer_epoch: int = -1


@dataclass(slots=True)
class InitProducerIdRequest(Request[InitProducerIdResponse]):
    """InitProducerIdRequest (API key 22): versions 0-6, flexible from 2."""

    NAME: ClassVar[str] = "InitProducerIdRequest"
    API_KEY: ClassVar[int] = 22
    MIN_VERSION: ClassVar[int] = 2
    MAX_VERSION: ClassVar[int] = 6
    MAX_STABLE_VERSION: ClassVar[int] = 5
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 2

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "transactional_id": ("string", "0+", "0+", None),
        "transaction_timeout_ms": ("int32", "0+", "none", None),
        "producer_id": ("int64", "3+", "none", None),
        "producer_epoch": ("int16", "3+", "none", None),
        "enable2_pc": ("bool", "6+", "none", None),
        "keep_prepared_txn": ("bool", "6+", "none", None),
    }

    transactional_id: str | None = ""
    transaction_timeout_ms: int = 0
    producer_id: int = -1
    producer_epoch: int = -1
    enable2_pc: bool = False
    keep_prepared_txn: bool = False

    def decode_response(self, data: memoryview, version: int) -> InitProducerIdResponse:
        return InitProducerIdResponse.decode(data, version)


@dataclass(slots=True)
class AddPartitionsToTxnResponse(Response):
    """AddPartitionsToTxnResponse (API key 24): versions 0-5, flexible from 3."""

    NAME: ClassVar[str] = "AddPartitionsToTxnResponse"
    API_KEY: ClassVar[int] = 24
    MIN_VERSION: ClassVar[int] = 3
    MAX_VERSION: ClassVar[int] = 5
    MAX_STABLE_VERSION: ClassVar[int] = 5
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 3

    @dataclass(slots=True)
    class AddPartitionsToTxnPartitionResult(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "partition_error_code": ("int16", "0+", "none", None),
        }

        partition_index: int = 0
        partition_error_code: int = 0

    @dataclass(slots=True)
    class AddPartitionsToTxnTopicResult(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0+", "none", None),
            "results_by_partition": ("[]AddPartitionsToTxnPartitionResult", "0+", "none", None),
        }

        name: str = ""
        results_by_partition: list[AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult] = (
            field(default_factory=list)
        )

    @dataclass(slots=True)
    class AddPartitionsToTxnResult(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "transactional_id": ("string", "4+", "none", None),
            "topic_results": ("[]AddPartitionsToTxnTopicResult", "4+", "none", None),
        }

        transactional_id: str = ""
        topic_results: list[AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult] = field(
            default_factory=list
        )

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "error_code": ("int16", "4+", "none", None),
        "results_by_transaction": ("[]AddPartitionsToTxnResult", "4+", "none", None),
        "results_by_topic_v3_and_below": ("[]AddPartitionsToTxnTopicResult", "0-3", "none", None),
    }

    throttle_time_ms: int = 0
    error_code: int = 0
    results_by_transaction: list[AddPartitionsToTxnResponse.AddPartitionsToTxnResult] = field(
        default_factory=list
    )
    results_by_topic_v3_and_below: list[
        AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult
    ] = field(default_factory=list)


@dataclass(slots=True)
class AddPartitionsToTxnRequest(Request[AddPartitionsToTxnResponse]):
    """AddPartitionsToTxnRequest (API key 24): versions 0-5, flexible from 3."""

    NAME: ClassVar[str] = "AddPartitionsToTxnRequest"
    API_KEY: ClassVar[int] = 24
    MIN_VERSION: ClassVar[int] = 3
    MAX_VERSION: ClassVar[int] = 5
    MAX_STABLE_VERSION: ClassVar[int] = 5
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 3

    @dataclass(slots=True)
    class AddPartitionsToTxnTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0+", "none", None),
            "partitions": ("[]int32", "0+", "none", None),
        }

        name: str = ""
        partitions: list[int] = field(default_factory=list)

    @dataclass(slots=True)
    class AddPartitionsToTxnTransaction(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "transactional_id": ("string", "4+", "none", None),
            "producer_id": ("int64", "4+", "none", None),
            "producer_epoch": ("int16", "4+", "none", None),
            "verify_only": ("bool", "4+", "none", None),
            "topics": ("[]AddPartitionsToTxnTopic", "4+", "none", None),
        }

        transactional_id: str = ""
        producer_id: int = 0
        producer_epoch: int = 0
        verify_only: bool = False
        topics: list[AddPartitionsToTxnRequest.AddPartitionsToTxnTopic] = field(
            default_factory=list
        )

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "transactions": ("[]AddPartitionsToTxnTransaction", "4+", "none", None),
        "v3_and_below_transactional_id": ("string", "0-3", "none", None),
        "v3_and_below_producer_id": ("int64", "0-3", "none", None),
        "v3_and_below_producer_epoch": ("int16", "0-3", "none", None),
        "v3_and_below_topics": ("[]AddPartitionsToTxnTopic", "0-3", "none", None),
    }

    transactions: list[AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction] = field(
        default_factory=list
    )
    v3_and_below_transactional_id: str = ""
    v3_and_below_producer_id: int = 0
    v3_and_below_producer_epoch: int = 0
    v3_and_below_topics: list[AddPartitionsToTxnRequest.AddPartitionsToTxnTopic] = field(
        default_factory=list
    )

    def decode_response(self, data: memoryview, version: int) -> AddPartitionsToTxnResponse:
        return AddPartitionsToTxnResponse.decode(data, version)


@dataclass(slots=True)
class AddOffsetsToTxnResponse(Response):
    """AddOffsetsToTxnResponse (API key 25): versions 0-4, flexible from 3."""

    NAME: ClassVar[str] = "AddOffsetsToTxnResponse"
    API_KEY: ClassVar[int] = 25
    MIN_VERSION: ClassVar[int] = 3
    MAX_VERSION: ClassVar[int] = 4
    MAX_STABLE_VERSION: ClassVar[int] = 4
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 3

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "error_code": ("int16", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    error_code: int = 0


@dataclass(slots=True)
class AddOffsetsToTxnRequest(Request[AddOffsetsToTxnResponse]):
    """AddOffsetsToTxnRequest (API key 25): versions 0-4, flexible from 3."""

    NAME: ClassVar[str] = "AddOffsetsToTxnRequest"
    API_KEY: ClassVar[int] = 25
    MIN_VERSION: ClassVar[int] = 3
    MAX_VERSION: ClassVar[int] = 4
    MAX_STABLE_VERSION: ClassVar[int] = 4
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 3

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "transactional_id": ("string", "0+", "none", None),
        "producer_id": ("int64", "0+", "none", None),
        "producer_epoch": ("int16", "0+", "none", None),
        "group_id": ("string", "0+", "none", None),
    }

    transactional_id: str = ""
    producer_id: int = 0
    producer_epoch: int = 0
    group_id: str = ""

    def decode_response(self, data: memoryview, version: int) -> AddOffsetsToTxnResponse:
        return AddOffsetsToTxnResponse.decode(data, version)


@dataclass(slots=True)
class TxnOffsetCommitResponse(Response):
    """TxnOffsetCommitResponse (API key 28): versions 0-6, flexible from 3."""

    NAME: ClassVar[str] = "TxnOffsetCommitResponse"
    API_KEY: ClassVar[int] = 28
    MIN_VERSION: ClassVar[int] = 3
    MAX_VERSION: ClassVar[int] = 6
    MAX_STABLE_VERSION: ClassVar[int] = 6
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 3

    @dataclass(slots=True)
    class TxnOffsetCommitResponsePartition(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "error_code": ("int16", "0+", "none", None),
        }

        partition_index: int = 0
        error_code: int = 0

    @dataclass(slots=True)
    class TxnOffsetCommitResponseTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0-5", "none", None),
            "topic_id": ("uuid", "6+", "none", None),
            "partitions": ("[]TxnOffsetCommitResponsePartition", "0+", "none", None),
        }

        name: str = ""
        topic_id: UUID = ZERO_UUID
        partitions: list[TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition] = field(
            default_factory=list
        )

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "topics": ("[]TxnOffsetCommitResponseTopic", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    topics: list[TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic] = field(default_factory=list)


@dataclass(slots=True)
class TxnOffsetCommitRequest(Request[TxnOffsetCommitResponse]):
    """TxnOffsetCommitRequest (API key 28): versions 0-6, flexible from 3."""

    NAME: ClassVar[str] = "TxnOffsetCommitRequest"
    API_KEY: ClassVar[int] = 28
    MIN_VERSION: ClassVar[int] = 3
    MAX_VERSION: ClassVar[int] = 6
    MAX_STABLE_VERSION: ClassVar[int] = 6
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 3

    @dataclass(slots=True)
    class TxnOffsetCommitRequestPartition(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "committed_offset": ("int64", "0+", "none", None),
            "committed_leader_epoch": ("int32", "2+", "none", None),
            "committed_metadata": ("string", "0+", "0+", None),
        }

        partition_index: int = 0
        committed_offset: int = 0
        committed_leader_epoch: int = -1
        committed_metadata: str | None = ""

    @dataclass(slots=True)
    class TxnOffsetCommitRequestTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0-5", "none", None),
            "topic_id": ("uuid", "6+", "none", None),
            "partitions": ("[]TxnOffsetCommitRequestPartition", "0+", "none", None),
        }

        name: str = ""
        topic_id: UUID = ZERO_UUID
        partitions: list[TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition] = field(
            default_factory=list
        )

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "transactional_id": ("string", "0+", "none", None),
        "group_id": ("string", "0+", "none", None),
        "producer_id": ("int64", "0+", "none", None),
        "producer_epoch": ("int16", "0+", "none", None),
        "generation_id_or_member_epoch": ("int32", "3+", "none", None),
        "member_id": ("string", "3+", "none", None),
        "group_instance_id": ("string", "3+", "3+", None),
        "topics": ("[]TxnOffsetCommitRequestTopic", "0+", "none", None),
    }

    transactional_id: str = ""
    group_id: str = ""
    producer_id: int = 0
    producer_epoch: int = 0
    generation_id_or_member_epoch: int = -1
    member_id: str = ""
    group_instance_id: str | None = None
    topics: list[TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic] = field(default_factory=list)

    def decode_response(self, data: memoryview, version: int) -> TxnOffsetCommitResponse:
        return TxnOffsetCommitResponse.decode(data, version)


@dataclass(slots=True)
class EndTxnResponse(Response):
    """EndTxnResponse (API key 26): versions 0-5, flexible from 3."""

    NAME: ClassVar[str] = "EndTxnResponse"
    API_KEY: ClassVar[int] = 26
    MIN_VERSION: ClassVar[int] = 3
    MAX_VERSION: ClassVar[int] = 5
    MAX_STABLE_VERSION: ClassVar[int] = 5
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 3

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "error_code": ("int16", "0+", "none", None),
        "producer_id": ("int64", "5+", "none", None),
        "producer_epoch": ("int16", "5+", "none", None),
    }

    throttle_time_ms: int = 0
    error_code: int = 0
    producer_id: int = -1
    producer_epoch: int = -1


@dataclass(slots=True)
class EndTxnRequest(Request[EndTxnResponse]):
    """EndTxnRequest (API key 26): versions 0-5, flexible from 3."""

    NAME: ClassVar[str] = "EndTxnRequest"
    API_KEY: ClassVar[int] = 26
    MIN_VERSION: ClassVar[int] = 3
    MAX_VERSION: ClassVar[int] = 5
    MAX_STABLE_VERSION: ClassVar[int] = 5
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 3

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "transactional_id": ("string", "0+", "none", None),
        "producer_id": ("int64", "0+", "none", None),
        "producer_epoch": ("int16", "0+", "none", None),
        "committed": ("bool", "0+", "none", None),
    }

    transactional_id: str = ""
    producer_id: int = 0
    producer_epoch: int = 0
    committed: bool = False

    def decode_response(self, data: memoryview, version: int) -> EndTxnResponse:
        return EndTxnResponse.decode(data, version)


@dataclass(slots=True)
class DescribeProducersResponse(Response):
    """DescribeProducersResponse (API key 61): versions 0, flexible from 0."""

    NAME: ClassVar[str] = "DescribeProducersResponse"
    API_KEY: ClassVar[int] = 61
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    MAX_STABLE_VERSION: ClassVar[int] = 0
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class ProducerState(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "producer_id": ("int64", "0+", "none", None),
            "producer_epoch": ("int32", "0+", "none", None),
            "last_sequence": ("int32", "0+", "none", None),
            "last_timestamp": ("int64", "0+", "none", None),
            "coordinator_epoch": ("int32", "0+", "none", None),
            "current_txn_start_offset": ("int64", "0+", "none", None),
        }

        producer_id: int = 0
        producer_epoch: int = 0
        last_sequence: int = -1
        last_timestamp: int = -1
        coordinator_epoch: int = 0
        current_txn_start_offset: int = -1

    @dataclass(slots=True)
    class PartitionResponse(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "0+", "0+", None),
            "active_producers": ("[]ProducerState", "0+", "none", None),
        }

        partition_index: int = 0
        error_code: int = 0
        error_message: str | None = None
        active_producers: list[DescribeProducersResponse.ProducerState] = field(
            default_factory=list
        )

    @dataclass(slots=True)
    class TopicResponse(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0+", "none", None),
            "partitions": ("[]PartitionResponse", "0+", "none", None),
        }

        name: str = ""
        partitions: list[DescribeProducersResponse.PartitionResponse] = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "topics": ("[]TopicResponse", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    topics: list[DescribeProducersResponse.TopicResponse] = field(default_factory=list)


@dataclass(slots=True)
class DescribeProducersRequest(Request[DescribeProducersResponse]):
    """DescribeProducersRequest (API key 61): versions 0, flexible from 0."""

    NAME: ClassVar[str] = "DescribeProducersRequest"
    API_KEY: ClassVar[int] = 61
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    MAX_STABLE_VERSION: ClassVar[int] = 0
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class TopicRequest(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0+", "none", None),
            "partition_indexes": ("[]int32", "0+", "none", None),
        }

        name: str = ""
        partition_indexes: list[int] = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "topics": ("[]TopicRequest", "0+", "none", None),
    }

    topics: list[DescribeProducersRequest.TopicRequest] = field(default_factory=list)

    def decode_response(self, data: memoryview, version: int) -> DescribeProducersResponse:
        return DescribeProducersResponse.decode(data, version)


@dataclass(slots=True)
class DescribeTransactionsResponse(Response):
    """DescribeTransactionsResponse (API key 65): versions 0, flexible from 0."""

    NAME: ClassVar[str] = "DescribeTransactionsResponse"
    API_KEY: ClassVar[int] = 65
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    MAX_STABLE_VERSION: ClassVar[int] = 0
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class TopicData(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic": ("string", "0+", "none", None),
            "partitions": ("[]int32", "0+", "none", None),
        }

        topic: str = ""
        partitions: list[int] = field(default_factory=list)

    @dataclass(slots=True)
    class TransactionState(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "error_code": ("int16", "0+", "none", None),
            "transactional_id": ("string", "0+", "none", None),
            "transaction_state": ("string", "0+", "none", None),
            "transaction_timeout_ms": ("int32", "0+", "none", None),
            "transaction_start_time_ms": ("int64", "0+", "none", None),
            "producer_id": ("int64", "0+", "none", None),
            "producer_epoch": ("int16", "0+", "none", None),
            "topics": ("[]TopicData", "0+", "none", None),
        }

        error_code: int = 0
        transactional_id: str = ""
        transaction_state: str = ""
        transaction_timeout_ms: int = 0
        transaction_start_time_ms: int = 0
        producer_id: int = 0
        producer_epoch: int = 0
        topics: list[DescribeTransactionsResponse.TopicData] = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "transaction_states": ("[]TransactionState", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    transaction_states: list[DescribeTransactionsResponse.TransactionState] = field(
        default_factory=list
    )


@dataclass(slots=True)
class DescribeTransactionsRequest(Request[DescribeTransactionsResponse]):
    """DescribeTransactionsRequest (API key 65): versions 0, flexible from 0."""

    NAME: ClassVar[str] = "DescribeTransactionsRequest"
    API_KEY: ClassVar[int] = 65
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    MAX_STABLE_VERSION: ClassVar[int] = 0
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "transactional_ids": ("[]string", "0+", "none", None),
    }

    transactional_ids: list[str] = field(default_factory=list)

    def decode_response(self, data: memoryview, version: int) -> DescribeTransactionsResponse:
        return DescribeTransactionsResponse.decode(data, version)


@dataclass(slots=True)
class ListTransactionsResponse(Response):
    """ListTransactionsResponse (API key 66): versions 0-2, flexible from 0."""

    NAME: ClassVar[str] = "ListTransactionsResponse"
    API_KEY: ClassVar[int] = 66
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 2
    MAX_STABLE_VERSION: ClassVar[int] = 2
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class TransactionState(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "transactional_id": ("string", "0+", "none", None),
            "producer_id": ("int64", "0+", "none", None),
            "transaction_state": ("string", "0+", "none", None),
        }

        transactional_id: str = ""
        producer_id: int = 0
        transaction_state: str = ""

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "error_code": ("int16", "0+", "none", None),
        "unknown_state_filters": ("[]string", "0+", "none", None),
        "transaction_states": ("[]TransactionState", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    error_code: int = 0
    unknown_state_filters: list[str] = field(default_factory=list)
    transaction_states: list[ListTransactionsResponse.TransactionState] = field(
        default_factory=list
    )


@dataclass(slots=True)
class ListTransactionsRequest(Request[ListTransactionsResponse]):
    """ListTransactionsRequest (API key 66): versions 0-2, flexible from 0."""

    NAME: ClassVar[str] = "ListTransactionsRequest"
    API_KEY: ClassVar[int] = 66
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 2
    MAX_STABLE_VERSION: ClassVar[int] = 2
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "state_filters": ("[]string", "0+", "none", None),
        "producer_id_filters": ("[]int64", "0+", "none", None),
        "duration_filter": ("int64", "1+", "none", None),
        "transactional_id_pattern": ("string", "2+", "2+", None),
    }

    state_filters: list[str] = field(default_factory=list)
    producer_id_filters: list[int] = field(default_factory=list)
    duration_filter: int = -1
    transactional_id_pattern: str | None = None

    def decode_response(self, data: memoryview, version: int) -> ListTransactionsResponse:
        return ListTransactionsResponse.decode(data, version)


@dataclass(slots=True)
class ConsumerGroupHeartbeatResponse(Response):
    """ConsumerGroupHeartbeatResponse (API key 68): versions 0-1, flexible from 0."""

    NAME: ClassVar[str] = "ConsumerGroupHeartbeatResponse"
    API_KEY: ClassVar[int] = 68
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class TopicPartitions(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_id": ("uuid", "0+", "none", None),
            "partitions": ("[]int32", "0+", "none", None),
        }

        topic_id: UUID = ZERO_UUID
        partitions: list[int] = field(default_factory=list)

    @dataclass(slots=True)
    class Assignment(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_partitions": ("[]TopicPartitions", "0+", "none", None),
        }

        topic_partitions: list[ConsumerGroupHeartbeatResponse.TopicPartitions] = field(
            default_factory=list
        )

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "error_code": ("int16", "0+", "none", None),
        "error_message": ("string", "0+", "0+", None),
        "member_id": ("string", "0+", "0+", None),
        "member_epoch": ("int32", "0+", "none", None),
        "heartbeat_interval_ms": ("int32", "0+", "none", None),
        "assignment": ("Assignment", "0+", "0+", None),
    }

    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = None
    member_id: str | None = None
    member_epoch: int = 0
    heartbeat_interval_ms: int = 0
    assignment: ConsumerGroupHeartbeatResponse.Assignment | None = None


@dataclass(slots=True)
class ConsumerGroupHeartbeatRequest(Request[ConsumerGroupHeartbeatResponse]):
    """ConsumerGroupHeartbeatRequest (API key 68): versions 0-1, flexible from 0."""

    NAME: ClassVar[str] = "ConsumerGroupHeartbeatRequest"
    API_KEY: ClassVar[int] = 68
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class TopicPartitions(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_id": ("uuid", "0+", "none", None),
            "partitions": ("[]int32", "0+", "none", None),
        }

        topic_id: UUID = ZERO_UUID
        partitions: list[int] = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "group_id": ("string", "0+", "none", None),
        "member_id": ("string", "0+", "none", None),
        "member_epoch": ("int32", "0+", "none", None),
        "instance_id": ("string", "0+", "0+", None),
        "rack_id": ("string", "0+", "0+", None),
        "rebalance_timeout_ms": ("int32", "0+", "none", None),
        "subscribed_topic_names": ("[]string", "0+", "0+", None),
        "subscribed_topic_regex": ("string", "1+", "1+", None),
        "server_assignor": ("string", "0+", "0+", None),
        "topic_partitions": ("[]TopicPartitions", "0+", "0+", None),
    }

    group_id: str = ""
    member_id: str = ""
    member_epoch: int = 0
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    subscribed_topic_names: list[str] | None = None
    subscribed_topic_regex: str | None = None
    server_assignor: str | None = None
    topic_partitions: list[ConsumerGroupHeartbeatRequest.TopicPartitions] | None = None

    def decode_response(self, data: memoryview, version: int) -> ConsumerGroupHeartbeatResponse:
        return ConsumerGroupHeartbeatResponse.decode(data, version)


@dataclass(slots=True)
class ConsumerGroupDescribeResponse(Response):
    """ConsumerGroupDescribeResponse (API key 69): versions 0-1, flexible from 0."""

    NAME: ClassVar[str] = "ConsumerGroupDescribeResponse"
    API_KEY: ClassVar[int] = 69
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class TopicPartitions(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_id": ("uuid", "0+", "none", None),
            "topic_name": ("string", "0+", "none", None),
            "partitions": ("[]int32", "0+", "none", None),
        }

        topic_id: UUID = ZERO_UUID
        topic_name: str = ""
        partitions: list[int] = field(default_factory=list)

    @dataclass(slots=True)
    class Assignment(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_partitions": ("[]TopicPartitions", "0+", "none", None),
        }

        topic_partitions: list[ConsumerGroupDescribeResponse.TopicPartitions] = field(
            default_factory=list
        )

    @dataclass(slots=True)
    class Member(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "member_id": ("string", "0+", "none", None),
            "instance_id": ("string", "0+", "0+", None),
            "rack_id": ("string", "0+", "0+", None),
            "member_epoch": ("int32", "0+", "none", None),
            "client_id": ("string", "0+", "none", None),
            "client_host": ("string", "0+", "none", None),
            "subscribed_topic_names": ("[]string", "0+", "none", None),
            "subscribed_topic_regex": ("string", "0+", "0+", None),
            "assignment": ("Assignment", "0+", "none", None),
            "target_assignment": ("Assignment", "0+", "none", None),
            "member_type": ("int8", "1+", "none", None),
        }

        member_id: str = ""
        instance_id: str | None = None
        rack_id: str | None = None
        member_epoch: int = 0
        client_id: str = ""
        client_host: str = ""
        subscribed_topic_names: list[str] = field(default_factory=list)
        subscribed_topic_regex: str | None = None
        assignment: ConsumerGroupDescribeResponse.Assignment = field(
            default_factory=lambda: ConsumerGroupDescribeResponse.Assignment()
        )
        target_assignment: ConsumerGroupDescribeResponse.Assignment = field(
            default_factory=lambda: ConsumerGroupDescribeResponse.Assignment()
        )
        member_type: int = -1

    @dataclass(slots=True)
    class DescribedGroup(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "0+", "0+", None),
            "group_id": ("string", "0+", "none", None),
            "group_state": ("string", "0+", "none", None),
            "group_epoch": ("int32", "0+", "none", None),
            "assignment_epoch": ("int32", "0+", "none", None),
            "assignor_name": ("string", "0+", "none", None),
            "members": ("[]Member", "0+", "none", None),
            "authorized_operations": ("int32", "0+", "none", None),
        }

        error_code: int = 0
        error_message: str | None = None
        group_id: str = ""
        group_state: str = ""
        group_epoch: int = 0
        assignment_epoch: int = 0
        assignor_name: str = ""
        members: list[ConsumerGroupDescribeResponse.Member] = field(default_factory=list)
        authorized_operations: int = -2147483648

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "groups": ("[]DescribedGroup", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    groups: list[ConsumerGroupDescribeResponse.DescribedGroup] = field(default_factory=list)


@dataclass(slots=True)
class ConsumerGroupDescribeRequest(Request[ConsumerGroupDescribeResponse]):
    """ConsumerGroupDescribeRequest (API key 69): versions 0-1, flexible from 0."""

    NAME: ClassVar[str] = "ConsumerGroupDescribeRequest"
    API_KEY: ClassVar[int] = 69
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "group_ids": ("[]string", "0+", "none", None),
        "include_authorized_operations": ("bool", "0+", "none", None),
    }

    group_ids: list[str] = field(default_factory=list)
    include_authorized_operations: bool = False

    def decode_response(self, data: memoryview, version: int) -> ConsumerGroupDescribeResponse:
        return ConsumerGroupDescribeResponse.decode(data, version)


@dataclass(slots=True)
class OffsetCommitResponse(Response):
    """OffsetCommitResponse (API key 8): versions 2-10, flexible from 8."""

    NAME: ClassVar[str] = "OffsetCommitResponse"
    API_KEY: ClassVar[int] = 8
    MIN_VERSION: ClassVar[int] = 8
    MAX_VERSION: ClassVar[int] = 10
    MAX_STABLE_VERSION: ClassVar[int] = 10
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 8

    @dataclass(slots=True)
    class OffsetCommitResponsePartition(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "error_code": ("int16", "0+", "none", None),
        }

        partition_index: int = 0
        error_code: int = 0

    @dataclass(slots=True)
    class OffsetCommitResponseTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0-9", "none", None),
            "topic_id": ("uuid", "10+", "none", None),
            "partitions": ("[]OffsetCommitResponsePartition", "0+", "none", None),
        }

        name: str = ""
        topic_id: UUID = ZERO_UUID
        partitions: list[OffsetCommitResponse.OffsetCommitResponsePartition] = field(
            default_factory=list
        )

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "3+", "none", None),
        "topics": ("[]OffsetCommitResponseTopic", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    topics: list[OffsetCommitResponse.OffsetCommitResponseTopic] = field(default_factory=list)


@dataclass(slots=True)
class OffsetCommitRequest(Request[OffsetCommitResponse]):
    """OffsetCommitRequest (API key 8): versions 2-10, flexible from 8."""

    NAME: ClassVar[str] = "OffsetCommitRequest"
    API_KEY: ClassVar[int] = 8
    MIN_VERSION: ClassVar[int] = 8
    MAX_VERSION: ClassVar[int] = 10
    MAX_STABLE_VERSION: ClassVar[int] = 10
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 8

    @dataclass(slots=True)
    class OffsetCommitRequestPartition(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "committed_offset": ("int64", "0+", "none", None),
            "committed_leader_epoch": ("int32", "6+", "none", None),
            "committed_metadata": ("string", "0+", "0+", None),
        }

        partition_index: int = 0
        committed_offset: int = 0
        committed_leader_epoch: int = -1
        committed_metadata: str | None = ""

    @dataclass(slots=True)
    class OffsetCommitRequestTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0-9", "none", None),
            "topic_id": ("uuid", "10+", "none", None),
            "partitions": ("[]OffsetCommitRequestPartition", "0+", "none", None),
        }

        name: str = ""
        topic_id: UUID = ZERO_UUID
        partitions: list[OffsetCommitRequest.OffsetCommitRequestPartition] = field(
            default_factory=list
        )

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "group_id": ("string", "0+", "none", None),
        "generation_id_or_member_epoch": ("int32", "1+", "none", None),
        "member_id": ("string", "1+", "none", None),
        "group_instance_id": ("string", "7+", "7+", None),
        "topics": ("[]OffsetCommitRequestTopic", "0+", "none", None),
    }

    group_id: str = ""
    generation_id_or_member_epoch: int = -1
    member_id: str = ""
    group_instance_id: str | None = None
    topics: list[OffsetCommitRequest.OffsetCommitRequestTopic] = field(default_factory=list)

    def decode_response(self, data: memoryview, version: int) -> OffsetCommitResponse:
        return OffsetCommitResponse.decode(data, version)


@dataclass(slots=True)
class OffsetFetchResponse(Response):
    """OffsetFetchResponse (API key 9): versions 1-10, flexible from 6."""

    NAME: ClassVar[str] = "OffsetFetchResponse"
    API_KEY: ClassVar[int] = 9
    MIN_VERSION: ClassVar[int] = 6
    MAX_VERSION: ClassVar[int] = 10
    MAX_STABLE_VERSION: ClassVar[int] = 10
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 6

    @dataclass(slots=True)
    class OffsetFetchResponsePartition(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0-7", "none", None),
            "committed_offset": ("int64", "0-7", "none", None),
            "committed_leader_epoch": ("int32", "5-7", "none", None),
            "metadata": ("string", "0-7", "0-7", None),
            "error_code": ("int16", "0-7", "none", None),
        }

        partition_index: int = 0
        committed_offset: int = 0
        committed_leader_epoch: int = -1
        metadata: str | None = ""
        error_code: int = 0

    @dataclass(slots=True)
    class OffsetFetchResponseTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0-7", "none", None),
            "partitions": ("[]OffsetFetchResponsePartition", "0-7", "none", None),
        }

        name: str = ""
        partitions: list[OffsetFetchResponse.OffsetFetchResponsePartition] = field(
            default_factory=list
        )

    @dataclass(slots=True)
    class OffsetFetchResponsePartitions(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "8+", "none", None),
            "committed_offset": ("int64", "8+", "none", None),
            "committed_leader_epoch": ("int32", "8+", "none", None),
            "metadata": ("string", "8+", "8+", None),
            "error_code": ("int16", "8+", "none", None),
        }

        partition_index: int = 0
        committed_offset: int = 0
        committed_leader_epoch: int = -1
        metadata: str | None = ""
        error_code: int = 0

    @dataclass(slots=True)
    class OffsetFetchResponseTopics(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "8-9", "none", None),
            "topic_id": ("uuid", "10+", "none", None),
            "partitions": ("[]OffsetFetchResponsePartitions", "8+", "none", None),
        }

        name: str = ""
        topic_id: UUID = ZERO_UUID
        partitions: list[OffsetFetchResponse.OffsetFetchResponsePartitions] = field(
            default_factory=list
        )

    @dataclass(slots=True)
    class OffsetFetchResponseGroup(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "group_id": ("string", "8+", "none", None),
            "topics": ("[]OffsetFetchResponseTopics", "8+", "none", None),
            "error_code": ("int16", "8+", "none", None),
        }

        group_id: str = ""
        topics: list[OffsetFetchResponse.OffsetFetchResponseTopics] = field(default_factory=list)
        error_code: int = 0

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "3+", "none", None),
        "topics": ("[]OffsetFetchResponseTopic", "0-7", "none", None),
        "error_code": ("int16", "2-7", "none", None),
        "groups": ("[]OffsetFetchResponseGroup", "8+", "none", None),
    }

    throttle_time_ms: int = 0
    topics: list[OffsetFetchResponse.OffsetFetchResponseTopic] = field(default_factory=list)
    error_code: int = 0
    groups: list[OffsetFetchResponse.OffsetFetchResponseGroup] = field(default_factory=list)


@dataclass(slots=True)
class OffsetFetchRequest(Request[OffsetFetchResponse]):
    """OffsetFetchRequest (API key 9): versions 1-10, flexible from 6."""

    NAME: ClassVar[str] = "OffsetFetchRequest"
    API_KEY: ClassVar[int] = 9
    MIN_VERSION: ClassVar[int] = 6
    MAX_VERSION: ClassVar[int] = 10
    MAX_STABLE_VERSION: ClassVar[int] = 10
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 6

    @dataclass(slots=True)
    class OffsetFetchRequestTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0-7", "none", None),
            "partition_indexes": ("[]int32", "0-7", "none", None),
        }

        name: str = ""
        partition_indexes: list[int] = field(default_factory=list)

    @dataclass(slots=True)
    class OffsetFetchRequestTopics(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "8-9", "none", None),
            "topic_id": ("uuid", "10+", "none", None),
            "partition_indexes": ("[]int32", "8+", "none", None),
        }

        name: str = ""
        topic_id: UUID = ZERO_UUID
        partition_indexes: list[int] = field(default_factory=list)

    @dataclass(slots=True)
    class OffsetFetchRequestGroup(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "group_id": ("string", "8+", "none", None),
            "member_id": ("string", "9+", "9+", None),
            "member_epoch": ("int32", "9+", "none", None),
            "topics": ("[]OffsetFetchRequestTopics", "8+", "8+", None),
        }

        group_id: str = ""
        member_id: str | None = None
        member_epoch: int = -1
        topics: list[OffsetFetchRequest.OffsetFetchRequestTopics] | None = field(
            default_factory=list
        )

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "group_id": ("string", "0-7", "none", None),
        "topics": ("[]OffsetFetchRequestTopic", "0-7", "2-7", None),
        "groups": ("[]OffsetFetchRequestGroup", "8+", "none", None),
        "require_stable": ("bool", "7+", "none", None),
    }

    group_id: str = ""
    topics: list[OffsetFetchRequest.OffsetFetchRequestTopic] | None = field(default_factory=list)
    groups: list[OffsetFetchRequest.OffsetFetchRequestGroup] = field(default_factory=list)
    require_stable: bool = False

    def decode_response(self, data: memoryview, version: int) -> OffsetFetchResponse:
        return OffsetFetchResponse.decode(data, version)


@dataclass(slots=True)
class OffsetDeleteResponse(Response):
    """OffsetDeleteResponse (API key 47): versions 0, flexible in none."""

    NAME: ClassVar[str] = "OffsetDeleteResponse"
    API_KEY: ClassVar[int] = 47
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    MAX_STABLE_VERSION: ClassVar[int] = 0
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = None

    @dataclass(slots=True)
    class OffsetDeleteResponsePartition(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "error_code": ("int16", "0+", "none", None),
        }

        partition_index: int = 0
        error_code: int = 0

    @dataclass(slots=True)
    class OffsetDeleteResponseTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0+", "none", None),
            "partitions": ("[]OffsetDeleteResponsePartition", "0+", "none", None),
        }

        name: str = ""
        partitions: list[OffsetDeleteResponse.OffsetDeleteResponsePartition] = field(
            default_factory=list
        )

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "error_code": ("int16", "0+", "none", None),
        "throttle_time_ms": ("int32", "0+", "none", None),
        "topics": ("[]OffsetDeleteResponseTopic", "0+", "none", None),
    }

    error_code: int = 0
    throttle_time_ms: int = 0
    topics: list[OffsetDeleteResponse.OffsetDeleteResponseTopic] = field(default_factory=list)


@dataclass(slots=True)
class OffsetDeleteRequest(Request[OffsetDeleteResponse]):
    """OffsetDeleteRequest (API key 47): versions 0, flexible in none."""

    NAME: ClassVar[str] = "OffsetDeleteRequest"
    API_KEY: ClassVar[int] = 47
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    MAX_STABLE_VERSION: ClassVar[int] = 0
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = None

    @dataclass(slots=True)
    class OffsetDeleteRequestPartition(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
        }

        partition_index: int = 0

    @dataclass(slots=True)
    class OffsetDeleteRequestTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "name": ("string", "0+", "none", None),
            "partitions": ("[]OffsetDeleteRequestPartition", "0+", "none", None),
        }

        name: str = ""
        partitions: list[OffsetDeleteRequest.OffsetDeleteRequestPartition] = field(
            default_factory=list
        )

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "group_id": ("string", "0+", "none", None),
        "topics": ("[]OffsetDeleteRequestTopic", "0+", "none", None),
    }

    group_id: str = ""
    topics: list[OffsetDeleteRequest.OffsetDeleteRequestTopic] = field(default_factory=list)

    def decode_response(self, data: memoryview, version: int) -> OffsetDeleteResponse:
        return OffsetDeleteResponse.decode(data, version)


@dataclass(slots=True)
class ListGroupsResponse(Response):
    """ListGroupsResponse (API key 16): versions 0-5, flexible from 3."""

    NAME: ClassVar[str] = "ListGroupsResponse"
    API_KEY: ClassVar[int] = 16
    MIN_VERSION: ClassVar[int] = 3
    MAX_VERSION: ClassVar[int] = 5
    MAX_STABLE_VERSION: ClassVar[int] = 5
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 3

    @dataclass(slots=True)
    class ListedGroup(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "group_id": ("string", "0+", "none", None),
            "protocol_type": ("string", "0+", "none", None),
            "group_state": ("string", "4+", "none", None),
            "group_type": ("string", "5+", "none", None),
        }

        group_id: str = ""
        protocol_type: str = ""
        group_state: str = ""
        group_type: str = ""

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "1+", "none", None),
        "error_code": ("int16", "0+", "none", None),
        "groups": ("[]ListedGroup", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    error_code: int = 0
    groups: list[ListGroupsResponse.ListedGroup] = field(default_factory=list)


@dataclass(slots=True)
class ListGroupsRequest(Request[ListGroupsResponse]):
    """ListGroupsRequest (API key 16): versions 0-5, flexible from 3."""

    NAME: ClassVar[str] = "ListGroupsRequest"
    API_KEY: ClassVar[int] = 16
    MIN_VERSION: ClassVar[int] = 3
    MAX_VERSION: ClassVar[int] = 5
    MAX_STABLE_VERSION: ClassVar[int] = 5
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 3

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "states_filter": ("[]string", "4+", "none", None),
        "types_filter": ("[]string", "5+", "none", None),
    }

    states_filter: list[str] = field(default_factory=list)
    types_filter: list[str] = field(default_factory=list)

    def decode_response(self, data: memoryview, version: int) -> ListGroupsResponse:
        return ListGroupsResponse.decode(data, version)


@dataclass(slots=True)
class DeleteGroupsResponse(Response):
    """DeleteGroupsResponse (API key 42): versions 0-3, flexible from 2."""

    NAME: ClassVar[str] = "DeleteGroupsResponse"
    API_KEY: ClassVar[int] = 42
    MIN_VERSION: ClassVar[int] = 2
    MAX_VERSION: ClassVar[int] = 3
    MAX_STABLE_VERSION: ClassVar[int] = 3
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 2

    @dataclass(slots=True)
    class DeletableGroupResult(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "group_id": ("string", "0+", "none", None),
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "3+", "3+", None),
        }

        group_id: str = ""
        error_code: int = 0
        error_message: str | None = None

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "results": ("[]DeletableGroupResult", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    results: list[DeleteGroupsResponse.DeletableGroupResult] = field(default_factory=list)


@dataclass(slots=True)
class DeleteGroupsRequest(Request[DeleteGroupsResponse]):
    """DeleteGroupsRequest (API key 42): versions 0-3, flexible from 2."""

    NAME: ClassVar[str] = "DeleteGroupsRequest"
    API_KEY: ClassVar[int] = 42
    MIN_VERSION: ClassVar[int] = 2
    MAX_VERSION: ClassVar[int] = 3
    MAX_STABLE_VERSION: ClassVar[int] = 3
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 2

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "groups_names": ("[]string", "0+", "none", None),
    }

    groups_names: list[str] = field(default_factory=list)

    def decode_response(self, data: memoryview, version: int) -> DeleteGroupsResponse:
        return DeleteGroupsResponse.decode(data, version)


@dataclass(slots=True)
class ShareGroupHeartbeatResponse(Response):
    """ShareGroupHeartbeatResponse (API key 76): versions 1, flexible from 0."""

    NAME: ClassVar[str] = "ShareGroupHeartbeatResponse"
    API_KEY: ClassVar[int] = 76
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class TopicPartitions(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_id": ("uuid", "0+", "none", None),
            "partitions": ("[]int32", "0+", "none", None),
        }

        topic_id: UUID = ZERO_UUID
        partitions: list[int] = field(default_factory=list)

    @dataclass(slots=True)
    class Assignment(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_partitions": ("[]TopicPartitions", "0+", "none", None),
        }

        topic_partitions: list[ShareGroupHeartbeatResponse.TopicPartitions] = field(
            default_factory=list
        )

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "error_code": ("int16", "0+", "none", None),
        "error_message": ("string", "0+", "0+", None),
        "member_id": ("string", "0+", "0+", None),
        "member_epoch": ("int32", "0+", "none", None),
        "heartbeat_interval_ms": ("int32", "0+", "none", None),
        "assignment": ("Assignment", "0+", "0+", None),
    }

    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = None
    member_id: str | None = None
    member_epoch: int = 0
    heartbeat_interval_ms: int = 0
    assignment: ShareGroupHeartbeatResponse.Assignment | None = None


@dataclass(slots=True)
class ShareGroupHeartbeatRequest(Request[ShareGroupHeartbeatResponse]):
    """ShareGroupHeartbeatRequest (API key 76): versions 1, flexible from 0."""

    NAME: ClassVar[str] = "ShareGroupHeartbeatRequest"
    API_KEY: ClassVar[int] = 76
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "group_id": ("string", "0+", "none", None),
        "member_id": ("string", "0+", "none", None),
        "member_epoch": ("int32", "0+", "none", None),
        "rack_id": ("string", "0+", "0+", None),
        "subscribed_topic_names": ("[]string", "0+", "0+", None),
    }

    group_id: str = ""
    member_id: str = ""
    member_epoch: int = 0
    rack_id: str | None = None
    subscribed_topic_names: list[str] | None = None

    def decode_response(self, data: memoryview, version: int) -> ShareGroupHeartbeatResponse:
        return ShareGroupHeartbeatResponse.decode(data, version)


@dataclass(slots=True)
class ShareGroupDescribeResponse(Response):
    """ShareGroupDescribeResponse (API key 77): versions 1, flexible from 0."""

    NAME: ClassVar[str] = "ShareGroupDescribeResponse"
    API_KEY: ClassVar[int] = 77
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class TopicPartitions(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_id": ("uuid", "0+", "none", None),
            "topic_name": ("string", "0+", "none", None),
            "partitions": ("[]int32", "0+", "none", None),
        }

        topic_id: UUID = ZERO_UUID
        topic_name: str = ""
        partitions: list[int] = field(default_factory=list)

    @dataclass(slots=True)
    class Assignment(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_partitions": ("[]TopicPartitions", "0+", "none", None),
        }

        topic_partitions: list[ShareGroupDescribeResponse.TopicPartitions] = field(
            default_factory=list
        )

    @dataclass(slots=True)
    class Member(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "member_id": ("string", "0+", "none", None),
            "rack_id": ("string", "0+", "0+", None),
            "member_epoch": ("int32", "0+", "none", None),
            "client_id": ("string", "0+", "none", None),
            "client_host": ("string", "0+", "none", None),
            "subscribed_topic_names": ("[]string", "0+", "none", None),
            "assignment": ("Assignment", "0+", "none", None),
        }

        member_id: str = ""
        rack_id: str | None = None
        member_epoch: int = 0
        client_id: str = ""
        client_host: str = ""
        subscribed_topic_names: list[str] = field(default_factory=list)
        assignment: ShareGroupDescribeResponse.Assignment = field(
            default_factory=lambda: ShareGroupDescribeResponse.Assignment()
        )

    @dataclass(slots=True)
    class DescribedGroup(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "0+", "0+", None),
            "group_id": ("string", "0+", "none", None),
            "group_state": ("string", "0+", "none", None),
            "group_epoch": ("int32", "0+", "none", None),
            "assignment_epoch": ("int32", "0+", "none", None),
            "assignor_name": ("string", "0+", "none", None),
            "members": ("[]Member", "0+", "none", None),
            "authorized_operations": ("int32", "0+", "none", None),
        }

        error_code: int = 0
        error_message: str | None = None
        group_id: str = ""
        group_state: str = ""
        group_epoch: int = 0
        assignment_epoch: int = 0
        assignor_name: str = ""
        members: list[ShareGroupDescribeResponse.Member] = field(default_factory=list)
        authorized_operations: int = -2147483648

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "groups": ("[]DescribedGroup", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    groups: list[ShareGroupDescribeResponse.DescribedGroup] = field(default_factory=list)


@dataclass(slots=True)
class ShareGroupDescribeRequest(Request[ShareGroupDescribeResponse]):
    """ShareGroupDescribeRequest (API key 77): versions 1, flexible from 0."""

    NAME: ClassVar[str] = "ShareGroupDescribeRequest"
    API_KEY: ClassVar[int] = 77
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "group_ids": ("[]string", "0+", "none", None),
        "include_authorized_operations": ("bool", "0+", "none", None),
    }

    group_ids: list[str] = field(default_factory=list)
    include_authorized_operations: bool = False

    def decode_response(self, data: memoryview, version: int) -> ShareGroupDescribeResponse:
        return ShareGroupDescribeResponse.decode(data, version)


@dataclass(slots=True)
class ShareFetchResponse(Response):
    """ShareFetchResponse (API key 78): versions 1-2, flexible from 0."""

    NAME: ClassVar[str] = "ShareFetchResponse"
    API_KEY: ClassVar[int] = 78
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 2
    MAX_STABLE_VERSION: ClassVar[int] = 2
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class LeaderIdAndEpoch(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "leader_id": ("int32", "0+", "none", None),
            "leader_epoch": ("int32", "0+", "none", None),
        }

        leader_id: int = 0
        leader_epoch: int = 0

    @dataclass(slots=True)
    class AcquiredRecords(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "first_offset": ("int64", "0+", "none", None),
            "last_offset": ("int64", "0+", "none", None),
            "delivery_count": ("int16", "0+", "none", None),
        }

        first_offset: int = 0
        last_offset: int = 0
        delivery_count: int = 0

    @dataclass(slots=True)
    class PartitionData(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "0+", "0+", None),
            "acknowledge_error_code": ("int16", "0+", "none", None),
            "acknowledge_error_message": ("string", "0+", "0+", None),
            "current_leader": ("LeaderIdAndEpoch", "0+", "none", None),
            "records": ("records", "0+", "0", None),
            "acquired_records": ("[]AcquiredRecords", "0+", "none", None),
        }

        partition_index: int = 0
        error_code: int = 0
        error_message: str | None = None
        acknowledge_error_code: int = 0
        acknowledge_error_message: str | None = None
        current_leader: ShareFetchResponse.LeaderIdAndEpoch = field(
            default_factory=lambda: ShareFetchResponse.LeaderIdAndEpoch()
        )
        records: Buffer | None = None
        acquired_records: list[ShareFetchResponse.AcquiredRecords] = field(default_factory=list)

    @dataclass(slots=True)
    class ShareFetchableTopicResponse(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_id": ("uuid", "0+", "none", None),
            "partitions": ("[]PartitionData", "0+", "none", None),
        }

        topic_id: UUID = ZERO_UUID
        partitions: list[ShareFetchResponse.PartitionData] = field(default_factory=list)

    @dataclass(slots=True)
    class NodeEndpoint(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "node_id": ("int32", "0+", "none", None),
            "host": ("string", "0+", "none", None),
            "port": ("int32", "0+", "none", None),
            "rack": ("string", "0+", "0+", None),
        }

        node_id: int = 0
        host: str = ""
        port: int = 0
        rack: str | None = None

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "error_code": ("int16", "0+", "none", None),
        "error_message": ("string", "0+", "0+", None),
        "acquisition_lock_timeout_ms": ("int32", "1+", "none", None),
        "responses": ("[]ShareFetchableTopicResponse", "0+", "none", None),
        "node_endpoints": ("[]NodeEndpoint", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = None
    acquisition_lock_timeout_ms: int = 0
    responses: list[ShareFetchResponse.ShareFetchableTopicResponse] = field(default_factory=list)
    node_endpoints: list[ShareFetchResponse.NodeEndpoint] = field(default_factory=list)


@dataclass(slots=True)
class ShareFetchRequest(Request[ShareFetchResponse]):
    """ShareFetchRequest (API key 78): versions 1-2, flexible from 0."""

    NAME: ClassVar[str] = "ShareFetchRequest"
    API_KEY: ClassVar[int] = 78
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 2
    MAX_STABLE_VERSION: ClassVar[int] = 2
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class AcknowledgementBatch(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "first_offset": ("int64", "0+", "none", None),
            "last_offset": ("int64", "0+", "none", None),
            "acknowledge_types": ("[]int8", "0+", "none", None),
        }

        first_offset: int = 0
        last_offset: int = 0
        acknowledge_types: list[int] = field(default_factory=list)

    @dataclass(slots=True)
    class FetchPartition(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "acknowledgement_batches": ("[]AcknowledgementBatch", "0+", "none", None),
        }

        partition_index: int = 0
        acknowledgement_batches: list[ShareFetchRequest.AcknowledgementBatch] = field(
            default_factory=list
        )

    @dataclass(slots=True)
    class FetchTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_id": ("uuid", "0+", "none", None),
            "partitions": ("[]FetchPartition", "0+", "none", None),
        }

        topic_id: UUID = ZERO_UUID
        partitions: list[ShareFetchRequest.FetchPartition] = field(default_factory=list)

    @dataclass(slots=True)
    class ForgottenTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_id": ("uuid", "0+", "none", None),
            "partitions": ("[]int32", "0+", "none", None),
        }

        topic_id: UUID = ZERO_UUID
        partitions: list[int] = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "group_id": ("string", "0+", "0+", None),
        "member_id": ("string", "0+", "0+", None),
        "share_session_epoch": ("int32", "0+", "none", None),
        "max_wait_ms": ("int32", "0+", "none", None),
        "min_bytes": ("int32", "0+", "none", None),
        "max_bytes": ("int32", "0+", "none", None),
        "max_records": ("int32", "1+", "none", None),
        "batch_size": ("int32", "1+", "none", None),
        "share_acquire_mode": ("int8", "2+", "none", None),
        "is_renew_ack": ("bool", "2+", "none", None),
        "topics": ("[]FetchTopic", "0+", "none", None),
        "forgotten_topics_data": ("[]ForgottenTopic", "0+", "none", None),
    }

    group_id: str | None = None
    member_id: str | None = ""
    share_session_epoch: int = 0
    max_wait_ms: int = 0
    min_bytes: int = 0
    max_bytes: int = 2147483647
    max_records: int = 0
    batch_size: int = 0
    share_acquire_mode: int = 0
    is_renew_ack: bool = False
    topics: list[ShareFetchRequest.FetchTopic] = field(default_factory=list)
    forgotten_topics_data: list[ShareFetchRequest.ForgottenTopic] = field(default_factory=list)

    def decode_response(self, data: memoryview, version: int) -> ShareFetchResponse:
        return ShareFetchResponse.decode(data, version)


@dataclass(slots=True)
class ShareAcknowledgeResponse(Response):
    """ShareAcknowledgeResponse (API key 79): versions 1-2, flexible from 0."""

    NAME: ClassVar[str] = "ShareAcknowledgeResponse"
    API_KEY: ClassVar[int] = 79
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 2
    MAX_STABLE_VERSION: ClassVar[int] = 2
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class LeaderIdAndEpoch(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "leader_id": ("int32", "0+", "none", None),
            "leader_epoch": ("int32", "0+", "none", None),
        }

        leader_id: int = 0
        leader_epoch: int = 0

    @dataclass(slots=True)
    class PartitionData(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "0+", "0+", None),
            "current_leader": ("LeaderIdAndEpoch", "0+", "none", None),
        }

        partition_index: int = 0
        error_code: int = 0
        error_message: str | None = None
        current_leader: ShareAcknowledgeResponse.LeaderIdAndEpoch = field(
            default_factory=lambda: ShareAcknowledgeResponse.LeaderIdAndEpoch()
        )

    @dataclass(slots=True)
    class ShareAcknowledgeTopicResponse(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_id": ("uuid", "0+", "none", None),
            "partitions": ("[]PartitionData", "0+", "none", None),
        }

        topic_id: UUID = ZERO_UUID
        partitions: list[ShareAcknowledgeResponse.PartitionData] = field(default_factory=list)

    @dataclass(slots=True)
    class NodeEndpoint(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "node_id": ("int32", "0+", "none", None),
            "host": ("string", "0+", "none", None),
            "port": ("int32", "0+", "none", None),
            "rack": ("string", "0+", "0+", None),
        }

        node_id: int = 0
        host: str = ""
        port: int = 0
        rack: str | None = None

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "error_code": ("int16", "0+", "none", None),
        "error_message": ("string", "0+", "0+", None),
        "acquisition_lock_timeout_ms": ("int32", "2+", "none", None),
        "responses": ("[]ShareAcknowledgeTopicResponse", "0+", "none", None),
        "node_endpoints": ("[]NodeEndpoint", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = None
    acquisition_lock_timeout_ms: int = 0
    responses: list[ShareAcknowledgeResponse.ShareAcknowledgeTopicResponse] = field(
        default_factory=list
    )
    node_endpoints: list[ShareAcknowledgeResponse.NodeEndpoint] = field(default_factory=list)


@dataclass(slots=True)
class ShareAcknowledgeRequest(Request[ShareAcknowledgeResponse]):
    """ShareAcknowledgeRequest (API key 79): versions 1-2, flexible from 0."""

    NAME: ClassVar[str] = "ShareAcknowledgeRequest"
    API_KEY: ClassVar[int] = 79
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 2
    MAX_STABLE_VERSION: ClassVar[int] = 2
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class AcknowledgementBatch(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "first_offset": ("int64", "0+", "none", None),
            "last_offset": ("int64", "0+", "none", None),
            "acknowledge_types": ("[]int8", "0+", "none", None),
        }

        first_offset: int = 0
        last_offset: int = 0
        acknowledge_types: list[int] = field(default_factory=list)

    @dataclass(slots=True)
    class AcknowledgePartition(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "acknowledgement_batches": ("[]AcknowledgementBatch", "0+", "none", None),
        }

        partition_index: int = 0
        acknowledgement_batches: list[ShareAcknowledgeRequest.AcknowledgementBatch] = field(
            default_factory=list
        )

    @dataclass(slots=True)
    class AcknowledgeTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_id": ("uuid", "0+", "none", None),
            "partitions": ("[]AcknowledgePartition", "0+", "none", None),
        }

        topic_id: UUID = ZERO_UUID
        partitions: list[ShareAcknowledgeRequest.AcknowledgePartition] = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "group_id": ("string", "0+", "0+", None),
        "member_id": ("string", "0+", "0+", None),
        "share_session_epoch": ("int32", "0+", "none", None),
        "is_renew_ack": ("bool", "2+", "none", None),
        "topics": ("[]AcknowledgeTopic", "0+", "none", None),
    }

    group_id: str | None = None
    member_id: str | None = ""
    share_session_epoch: int = 0
    is_renew_ack: bool = False
    topics: list[ShareAcknowledgeRequest.AcknowledgeTopic] = field(default_factory=list)

    def decode_response(self, data: memoryview, version: int) -> ShareAcknowledgeResponse:
        return ShareAcknowledgeResponse.decode(data, version)


@dataclass(slots=True)
class DescribeShareGroupOffsetsResponse(Response):
    """DescribeShareGroupOffsetsResponse (API key 90): versions 0-1, flexible from 0."""

    NAME: ClassVar[str] = "DescribeShareGroupOffsetsResponse"
    API_KEY: ClassVar[int] = 90
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class DescribeShareGroupOffsetsResponsePartition(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "start_offset": ("int64", "0+", "none", None),
            "leader_epoch": ("int32", "0+", "none", None),
            "lag": ("int64", "1+", "none", None),
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "0+", "0+", None),
        }

        partition_index: int = 0
        start_offset: int = 0
        leader_epoch: int = 0
        lag: int = -1
        error_code: int = 0
        error_message: str | None = None

    @dataclass(slots=True)
    class DescribeShareGroupOffsetsResponseTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_name": ("string", "0+", "none", None),
            "topic_id": ("uuid", "0+", "none", None),
            "partitions": ("[]DescribeShareGroupOffsetsResponsePartition", "0+", "none", None),
        }

        topic_name: str = ""
        topic_id: UUID = ZERO_UUID
        partitions: list[
            DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponsePartition
        ] = field(default_factory=list)

    @dataclass(slots=True)
    class DescribeShareGroupOffsetsResponseGroup(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "group_id": ("string", "0+", "none", None),
            "topics": ("[]DescribeShareGroupOffsetsResponseTopic", "0+", "none", None),
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "0+", "0+", None),
        }

        group_id: str = ""
        topics: list[DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseTopic] = (
            field(default_factory=list)
        )
        error_code: int = 0
        error_message: str | None = None

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "groups": ("[]DescribeShareGroupOffsetsResponseGroup", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    groups: list[DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup] = field(
        default_factory=list
    )


@dataclass(slots=True)
class DescribeShareGroupOffsetsRequest(Request[DescribeShareGroupOffsetsResponse]):
    """DescribeShareGroupOffsetsRequest (API key 90): versions 0-1, flexible from 0."""

    NAME: ClassVar[str] = "DescribeShareGroupOffsetsRequest"
    API_KEY: ClassVar[int] = 90
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class DescribeShareGroupOffsetsRequestTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_name": ("string", "0+", "none", None),
            "partitions": ("[]int32", "0+", "none", None),
        }

        topic_name: str = ""
        partitions: list[int] = field(default_factory=list)

    @dataclass(slots=True)
    class DescribeShareGroupOffsetsRequestGroup(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "group_id": ("string", "0+", "none", None),
            "topics": ("[]DescribeShareGroupOffsetsRequestTopic", "0+", "0+", None),
        }

        group_id: str = ""
        topics: (
            list[DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestTopic] | None
        ) = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "groups": ("[]DescribeShareGroupOffsetsRequestGroup", "0+", "none", None),
    }

    groups: list[DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestGroup] = field(
        default_factory=list
    )

    def decode_response(self, data: memoryview, version: int) -> DescribeShareGroupOffsetsResponse:
        return DescribeShareGroupOffsetsResponse.decode(data, version)


@dataclass(slots=True)
class AlterShareGroupOffsetsResponse(Response):
    """AlterShareGroupOffsetsResponse (API key 91): versions 0, flexible from 0."""

    NAME: ClassVar[str] = "AlterShareGroupOffsetsResponse"
    API_KEY: ClassVar[int] = 91
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    MAX_STABLE_VERSION: ClassVar[int] = 0
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class AlterShareGroupOffsetsResponsePartition(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "0+", "0+", None),
        }

        partition_index: int = 0
        error_code: int = 0
        error_message: str | None = None

    @dataclass(slots=True)
    class AlterShareGroupOffsetsResponseTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_name": ("string", "0+", "none", None),
            "topic_id": ("uuid", "0+", "none", None),
            "partitions": ("[]AlterShareGroupOffsetsResponsePartition", "0+", "none", None),
        }

        topic_name: str = ""
        topic_id: UUID = ZERO_UUID
        partitions: list[AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponsePartition] = (
            field(default_factory=list)
        )

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "error_code": ("int16", "0+", "none", None),
        "error_message": ("string", "0+", "0+", None),
        "responses": ("[]AlterShareGroupOffsetsResponseTopic", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = None
    responses: list[AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponseTopic] = field(
        default_factory=list
    )


@dataclass(slots=True)
class AlterShareGroupOffsetsRequest(Request[AlterShareGroupOffsetsResponse]):
    """AlterShareGroupOffsetsRequest (API key 91): versions 0, flexible from 0."""

    NAME: ClassVar[str] = "AlterShareGroupOffsetsRequest"
    API_KEY: ClassVar[int] = 91
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    MAX_STABLE_VERSION: ClassVar[int] = 0
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class AlterShareGroupOffsetsRequestPartition(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "partition_index": ("int32", "0+", "none", None),
            "start_offset": ("int64", "0+", "none", None),
        }

        partition_index: int = 0
        start_offset: int = 0

    @dataclass(slots=True)
    class AlterShareGroupOffsetsRequestTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_name": ("string", "0+", "none", None),
            "partitions": ("[]AlterShareGroupOffsetsRequestPartition", "0+", "none", None),
        }

        topic_name: str = ""
        partitions: list[AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestPartition] = (
            field(default_factory=list)
        )

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "group_id": ("string", "0+", "none", None),
        "topics": ("[]AlterShareGroupOffsetsRequestTopic", "0+", "none", None),
    }

    group_id: str = ""
    topics: list[AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestTopic] = field(
        default_factory=list
    )

    def decode_response(self, data: memoryview, version: int) -> AlterShareGroupOffsetsResponse:
        return AlterShareGroupOffsetsResponse.decode(data, version)


@dataclass(slots=True)
class DeleteShareGroupOffsetsResponse(Response):
    """DeleteShareGroupOffsetsResponse (API key 92): versions 0, flexible from 0."""

    NAME: ClassVar[str] = "DeleteShareGroupOffsetsResponse"
    API_KEY: ClassVar[int] = 92
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    MAX_STABLE_VERSION: ClassVar[int] = 0
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class DeleteShareGroupOffsetsResponseTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_name": ("string", "0+", "none", None),
            "topic_id": ("uuid", "0+", "none", None),
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "0+", "0+", None),
        }

        topic_name: str = ""
        topic_id: UUID = ZERO_UUID
        error_code: int = 0
        error_message: str | None = None

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "error_code": ("int16", "0+", "none", None),
        "error_message": ("string", "0+", "0+", None),
        "responses": ("[]DeleteShareGroupOffsetsResponseTopic", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = None
    responses: list[DeleteShareGroupOffsetsResponse.DeleteShareGroupOffsetsResponseTopic] = field(
        default_factory=list
    )


@dataclass(slots=True)
class DeleteShareGroupOffsetsRequest(Request[DeleteShareGroupOffsetsResponse]):
    """DeleteShareGroupOffsetsRequest (API key 92): versions 0, flexible from 0."""

    NAME: ClassVar[str] = "DeleteShareGroupOffsetsRequest"
    API_KEY: ClassVar[int] = 92
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    MAX_STABLE_VERSION: ClassVar[int] = 0
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 0

    @dataclass(slots=True)
    class DeleteShareGroupOffsetsRequestTopic(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "topic_name": ("string", "0+", "none", None),
        }

        topic_name: str = ""

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "group_id": ("string", "0+", "none", None),
        "topics": ("[]DeleteShareGroupOffsetsRequestTopic", "0+", "none", None),
    }

    group_id: str = ""
    topics: list[DeleteShareGroupOffsetsRequest.DeleteShareGroupOffsetsRequestTopic] = field(
        default_factory=list
    )

    def decode_response(self, data: memoryview, version: int) -> DeleteShareGroupOffsetsResponse:
        return DeleteShareGroupOffsetsResponse.decode(data, version)


@dataclass(slots=True)
class DescribeAclsResponse(Response):
    """DescribeAclsResponse (API key 29): versions 1-3, flexible from 2."""

    NAME: ClassVar[str] = "DescribeAclsResponse"
    API_KEY: ClassVar[int] = 29
    MIN_VERSION: ClassVar[int] = 2
    MAX_VERSION: ClassVar[int] = 3
    MAX_STABLE_VERSION: ClassVar[int] = 3
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 2

    @dataclass(slots=True)
    class AclDescription(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "principal": ("string", "0+", "none", None),
            "host": ("string", "0+", "none", None),
            "operation": ("int8", "0+", "none", None),
            "permission_type": ("int8", "0+", "none", None),
        }

        principal: str = ""
        host: str = ""
        operation: int = 0
        permission_type: int = 0

    @dataclass(slots=True)
    class DescribeAclsResource(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "resource_type": ("int8", "0+", "none", None),
            "resource_name": ("string", "0+", "none", None),
            "pattern_type": ("int8", "1+", "none", None),
            "acls": ("[]AclDescription", "0+", "none", None),
        }

        resource_type: int = 0
        resource_name: str = ""
        pattern_type: int = 3
        acls: list[DescribeAclsResponse.AclDescription] = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "error_code": ("int16", "0+", "none", None),
        "error_message": ("string", "0+", "0+", None),
        "resources": ("[]DescribeAclsResource", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = ""
    resources: list[DescribeAclsResponse.DescribeAclsResource] = field(default_factory=list)


@dataclass(slots=True)
class DescribeAclsRequest(Request[DescribeAclsResponse]):
    """DescribeAclsRequest (API key 29): versions 1-3, flexible from 2."""

    NAME: ClassVar[str] = "DescribeAclsRequest"
    API_KEY: ClassVar[int] = 29
    MIN_VERSION: ClassVar[int] = 2
    MAX_VERSION: ClassVar[int] = 3
    MAX_STABLE_VERSION: ClassVar[int] = 3
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 2

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "resource_type_filter": ("int8", "0+", "none", None),
        "resource_name_filter": ("string", "0+", "0+", None),
        "pattern_type_filter": ("int8", "1+", "none", None),
        "principal_filter": ("string", "0+", "0+", None),
        "host_filter": ("string", "0+", "0+", None),
        "operation": ("int8", "0+", "none", None),
        "permission_type": ("int8", "0+", "none", None),
    }

    resource_type_filter: int = 0
    resource_name_filter: str | None = ""
    pattern_type_filter: int = 3
    principal_filter: str | None = ""
    host_filter: str | None = ""
    operation: int = 0
    permission_type: int = 0

    def decode_response(self, data: memoryview, version: int) -> DescribeAclsResponse:
        return DescribeAclsResponse.decode(data, version)


@dataclass(slots=True)
class CreateAclsResponse(Response):
    """CreateAclsResponse (API key 30): versions 1-3, flexible from 2."""

    NAME: ClassVar[str] = "CreateAclsResponse"
    API_KEY: ClassVar[int] = 30
    MIN_VERSION: ClassVar[int] = 2
    MAX_VERSION: ClassVar[int] = 3
    MAX_STABLE_VERSION: ClassVar[int] = 3
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 2

    @dataclass(slots=True)
    class AclCreationResult(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "0+", "0+", None),
        }

        error_code: int = 0
        error_message: str | None = ""

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "results": ("[]AclCreationResult", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    results: list[CreateAclsResponse.AclCreationResult] = field(default_factory=list)


@dataclass(slots=True)
class CreateAclsRequest(Request[CreateAclsResponse]):
    """CreateAclsRequest (API key 30): versions 1-3, flexible from 2."""

    NAME: ClassVar[str] = "CreateAclsRequest"
    API_KEY: ClassVar[int] = 30
    MIN_VERSION: ClassVar[int] = 2
    MAX_VERSION: ClassVar[int] = 3
    MAX_STABLE_VERSION: ClassVar[int] = 3
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 2

    @dataclass(slots=True)
    class AclCreation(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "resource_type": ("int8", "0+", "none", None),
            "resource_name": ("string", "0+", "none", None),
            "resource_pattern_type": ("int8", "1+", "none", None),
            "principal": ("string", "0+", "none", None),
            "host": ("string", "0+", "none", None),
            "operation": ("int8", "0+", "none", None),
            "permission_type": ("int8", "0+", "none", None),
        }

        resource_type: int = 0
        resource_name: str = ""
        resource_pattern_type: int = 3
        principal: str = ""
        host: str = ""
        operation: int = 0
        permission_type: int = 0

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "creations": ("[]AclCreation", "0+", "none", None),
    }

    creations: list[CreateAclsRequest.AclCreation] = field(default_factory=list)

    def decode_response(self, data: memoryview, version: int) -> CreateAclsResponse:
        return CreateAclsResponse.decode(data, version)


@dataclass(slots=True)
class DeleteAclsResponse(Response):
    """DeleteAclsResponse (API key 31): versions 1-3, flexible from 2."""

    NAME: ClassVar[str] = "DeleteAclsResponse"
    API_KEY: ClassVar[int] = 31
    MIN_VERSION: ClassVar[int] = 2
    MAX_VERSION: ClassVar[int] = 3
    MAX_STABLE_VERSION: ClassVar[int] = 3
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 2

    @dataclass(slots=True)
    class DeleteAclsMatchingAcl(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "0+", "0+", None),
            "resource_type": ("int8", "0+", "none", None),
            "resource_name": ("string", "0+", "none", None),
            "pattern_type": ("int8", "1+", "none", None),
            "principal": ("string", "0+", "none", None),
            "host": ("string", "0+", "none", None),
            "operation": ("int8", "0+", "none", None),
            "permission_type": ("int8", "0+", "none", None),
        }

        error_code: int = 0
        error_message: str | None = ""
        resource_type: int = 0
        resource_name: str = ""
        pattern_type: int = 3
        principal: str = ""
        host: str = ""
        operation: int = 0
        permission_type: int = 0

    @dataclass(slots=True)
    class DeleteAclsFilterResult(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "0+", "0+", None),
            "matching_acls": ("[]DeleteAclsMatchingAcl", "0+", "none", None),
        }

        error_code: int = 0
        error_message: str | None = ""
        matching_acls: list[DeleteAclsResponse.DeleteAclsMatchingAcl] = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "filter_results": ("[]DeleteAclsFilterResult", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    filter_results: list[DeleteAclsResponse.DeleteAclsFilterResult] = field(default_factory=list)


@dataclass(slots=True)
class DeleteAclsRequest(Request[DeleteAclsResponse]):
    """DeleteAclsRequest (API key 31): versions 1-3, flexible from 2."""

    NAME: ClassVar[str] = "DeleteAclsRequest"
    API_KEY: ClassVar[int] = 31
    MIN_VERSION: ClassVar[int] = 2
    MAX_VERSION: ClassVar[int] = 3
    MAX_STABLE_VERSION: ClassVar[int] = 3
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 2

    @dataclass(slots=True)
    class DeleteAclsFilter(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "resource_type_filter": ("int8", "0+", "none", None),
            "resource_name_filter": ("string", "0+", "0+", None),
            "pattern_type_filter": ("int8", "1+", "none", None),
            "principal_filter": ("string", "0+", "0+", None),
            "host_filter": ("string", "0+", "0+", None),
            "operation": ("int8", "0+", "none", None),
            "permission_type": ("int8", "0+", "none", None),
        }

        resource_type_filter: int = 0
        resource_name_filter: str | None = ""
        pattern_type_filter: int = 3
        principal_filter: str | None = ""
        host_filter: str | None = ""
        operation: int = 0
        permission_type: int = 0

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "filters": ("[]DeleteAclsFilter", "0+", "none", None),
    }

    filters: list[DeleteAclsRequest.DeleteAclsFilter] = field(default_factory=list)

    def decode_response(self, data: memoryview, version: int) -> DeleteAclsResponse:
        return DeleteAclsResponse.decode(data, version)


@dataclass(slots=True)
class DescribeClientQuotasResponse(Response):
    """DescribeClientQuotasResponse (API key 48): versions 0-1, flexible from 1."""

    NAME: ClassVar[str] = "DescribeClientQuotasResponse"
    API_KEY: ClassVar[int] = 48
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 1

    @dataclass(slots=True)
    class EntityData(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "entity_type": ("string", "0+", "none", None),
            "entity_name": ("string", "0+", "0+", None),
        }

        entity_type: str = ""
        entity_name: str | None = ""

    @dataclass(slots=True)
    class ValueData(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "key": ("string", "0+", "none", None),
            "value": ("float64", "0+", "none", None),
        }

        key: str = ""
        value: float = 0.0

    @dataclass(slots=True)
    class EntryData(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "entity": ("[]EntityData", "0+", "none", None),
            "values": ("[]ValueData", "0+", "none", None),
        }

        entity: list[DescribeClientQuotasResponse.EntityData] = field(default_factory=list)
        values: list[DescribeClientQuotasResponse.ValueData] = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "error_code": ("int16", "0+", "none", None),
        "error_message": ("string", "0+", "0+", None),
        "entries": ("[]EntryData", "0+", "0+", None),
    }

    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = ""
    entries: list[DescribeClientQuotasResponse.EntryData] | None = field(default_factory=list)


@dataclass(slots=True)
class DescribeClientQuotasRequest(Request[DescribeClientQuotasResponse]):
    """DescribeClientQuotasRequest (API key 48): versions 0-1, flexible from 1."""

    NAME: ClassVar[str] = "DescribeClientQuotasRequest"
    API_KEY: ClassVar[int] = 48
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 1

    @dataclass(slots=True)
    class ComponentData(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "entity_type": ("string", "0+", "none", None),
            "match_type": ("int8", "0+", "none", None),
            "match": ("string", "0+", "0+", None),
        }

        entity_type: str = ""
        match_type: int = 0
        match: str | None = ""

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "components": ("[]ComponentData", "0+", "none", None),
        "strict": ("bool", "0+", "none", None),
    }

    components: list[DescribeClientQuotasRequest.ComponentData] = field(default_factory=list)
    strict: bool = False

    def decode_response(self, data: memoryview, version: int) -> DescribeClientQuotasResponse:
        return DescribeClientQuotasResponse.decode(data, version)


@dataclass(slots=True)
class AlterClientQuotasResponse(Response):
    """AlterClientQuotasResponse (API key 49): versions 0-1, flexible from 1."""

    NAME: ClassVar[str] = "AlterClientQuotasResponse"
    API_KEY: ClassVar[int] = 49
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 1

    @dataclass(slots=True)
    class EntityData(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "entity_type": ("string", "0+", "none", None),
            "entity_name": ("string", "0+", "0+", None),
        }

        entity_type: str = ""
        entity_name: str | None = ""

    @dataclass(slots=True)
    class EntryData(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "error_code": ("int16", "0+", "none", None),
            "error_message": ("string", "0+", "0+", None),
            "entity": ("[]EntityData", "0+", "none", None),
        }

        error_code: int = 0
        error_message: str | None = ""
        entity: list[AlterClientQuotasResponse.EntityData] = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "throttle_time_ms": ("int32", "0+", "none", None),
        "entries": ("[]EntryData", "0+", "none", None),
    }

    throttle_time_ms: int = 0
    entries: list[AlterClientQuotasResponse.EntryData] = field(default_factory=list)


@dataclass(slots=True)
class AlterClientQuotasRequest(Request[AlterClientQuotasResponse]):
    """AlterClientQuotasRequest (API key 49): versions 0-1, flexible from 1."""

    NAME: ClassVar[str] = "AlterClientQuotasRequest"
    API_KEY: ClassVar[int] = 49
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 1
    MAX_STABLE_VERSION: ClassVar[int] = 1
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = 1

    @dataclass(slots=True)
    class EntityData(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "entity_type": ("string", "0+", "none", None),
            "entity_name": ("string", "0+", "0+", None),
        }

        entity_type: str = ""
        entity_name: str | None = ""

    @dataclass(slots=True)
    class OpData(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "key": ("string", "0+", "none", None),
            "value": ("float64", "0+", "none", None),
            "remove": ("bool", "0+", "none", None),
        }

        key: str = ""
        value: float = 0.0
        remove: bool = False

    @dataclass(slots=True)
    class EntryData(Struct):
        FIELDS: ClassVar[dict[str, FieldSpec]] = {
            "entity": ("[]EntityData", "0+", "none", None),
            "ops": ("[]OpData", "0+", "none", None),
        }

        entity: list[AlterClientQuotasRequest.EntityData] = field(default_factory=list)
        ops: list[AlterClientQuotasRequest.OpData] = field(default_factory=list)

    FIELDS: ClassVar[dict[str, FieldSpec]] = {
        "entries": ("[]EntryData", "0+", "none", None),
        "validate_only": ("bool", "0+", "none", None),
    }

    entries: list[AlterClientQuotasRequest.EntryData] = field(default_factory=list)
    validate_only: bool = False

    def decode_response(self, data: memoryview, version: int) -> AlterClientQuotasResponse:
        return AlterClientQuotasResponse.decode(data, version)


def _encode_RequestHeader_v1(o: RequestHeader, b: bytearray) -> None:
    """Versions 1."""
    b += _S_hhi.pack(o.request_api_key, o.request_api_version, o.correlation_id)
    write_nullable_string(b, o.client_id)


def _encode_RequestHeader_v2(o: RequestHeader, b: bytearray) -> None:
    """Versions 2."""
    b += _S_hhi.pack(o.request_api_key, o.request_api_version, o.correlation_id)
    write_nullable_string(b, o.client_id)
    b.append(0)  # no tagged fields


def _decode_RequestHeader_v1(buf: memoryview, pos: int) -> tuple[RequestHeader, int]:
    """Versions 1."""
    f_request_api_key, f_request_api_version, f_correlation_id = _S_hhi.unpack_from(buf, pos)
    pos += 8
    f_client_id, pos = read_nullable_string(buf, pos)
    return RequestHeader(
        f_request_api_key, f_request_api_version, f_correlation_id, f_client_id
    ), pos


def _decode_RequestHeader_v2(buf: memoryview, pos: int) -> tuple[RequestHeader, int]:
    """Versions 2."""
    f_request_api_key, f_request_api_version, f_correlation_id = _S_hhi.unpack_from(buf, pos)
    pos += 8
    f_client_id, pos = read_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return RequestHeader(
        f_request_api_key, f_request_api_version, f_correlation_id, f_client_id
    ), pos


def _encode_ResponseHeader_v0(o: ResponseHeader, b: bytearray) -> None:
    """Versions 0."""
    b += _S_i.pack(o.correlation_id)


def _encode_ResponseHeader_v1(o: ResponseHeader, b: bytearray) -> None:
    """Versions 1."""
    b += _S_i.pack(o.correlation_id)
    b.append(0)  # no tagged fields


def _decode_ResponseHeader_v0(buf: memoryview, pos: int) -> tuple[ResponseHeader, int]:
    """Versions 0."""
    (f_correlation_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    return ResponseHeader(f_correlation_id), pos


def _decode_ResponseHeader_v1(buf: memoryview, pos: int) -> tuple[ResponseHeader, int]:
    """Versions 1."""
    (f_correlation_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ResponseHeader(f_correlation_id), pos


def _encode_ApiVersionsResponse_ApiVersion_v0(
    o: ApiVersionsResponse.ApiVersion, b: bytearray
) -> None:
    """Versions 0-2."""
    b += _S_hhh.pack(o.api_key, o.min_version, o.max_version)


def _encode_ApiVersionsResponse_v0(o: ApiVersionsResponse, b: bytearray) -> None:
    """Versions 0."""
    b += _S_h.pack(o.error_code)
    x_api_keys = o.api_keys
    write_array_length(b, len(x_api_keys))
    for e_api_keys in x_api_keys:
        _encode_ApiVersionsResponse_ApiVersion_v0(e_api_keys, b)


def _encode_ApiVersionsResponse_v1(o: ApiVersionsResponse, b: bytearray) -> None:
    """Versions 1-2."""
    b += _S_h.pack(o.error_code)
    x_api_keys = o.api_keys
    write_array_length(b, len(x_api_keys))
    for e_api_keys in x_api_keys:
        _encode_ApiVersionsResponse_ApiVersion_v0(e_api_keys, b)
    b += _S_i.pack(o.throttle_time_ms)


def _encode_ApiVersionsResponse_ApiVersion_v3(
    o: ApiVersionsResponse.ApiVersion, b: bytearray
) -> None:
    """Versions 3-5."""
    b += _S_hhh.pack(o.api_key, o.min_version, o.max_version)
    b.append(0)  # no tagged fields


def _encode_ApiVersionsResponse_SupportedFeatureKey_v3(
    o: ApiVersionsResponse.SupportedFeatureKey, b: bytearray
) -> None:
    """Versions 3-5."""
    write_compact_string(b, o.name)
    b += _S_hh.pack(o.min_version, o.max_version)
    b.append(0)  # no tagged fields


def _encode_ApiVersionsResponse_FinalizedFeatureKey_v3(
    o: ApiVersionsResponse.FinalizedFeatureKey, b: bytearray
) -> None:
    """Versions 3-5."""
    write_compact_string(b, o.name)
    b += _S_hh.pack(o.max_version_level, o.min_version_level)
    b.append(0)  # no tagged fields


def _encode_ApiVersionsResponse_v3(o: ApiVersionsResponse, b: bytearray) -> None:
    """Versions 3-5."""
    b += _S_h.pack(o.error_code)
    x_api_keys = o.api_keys
    write_compact_array_length(b, len(x_api_keys))
    for e_api_keys in x_api_keys:
        _encode_ApiVersionsResponse_ApiVersion_v3(e_api_keys, b)
    b += _S_i.pack(o.throttle_time_ms)
    tagged: list[tuple[int, Buffer]] = []
    if o.supported_features != []:
        t = bytearray()
        x_supported_features = o.supported_features
        write_compact_array_length(t, len(x_supported_features))
        for e_supported_features in x_supported_features:
            _encode_ApiVersionsResponse_SupportedFeatureKey_v3(e_supported_features, t)
        tagged.append((0, t))
    if o.finalized_features_epoch != -1:
        t = bytearray()
        t += _S_q.pack(o.finalized_features_epoch)
        tagged.append((1, t))
    if o.finalized_features != []:
        t = bytearray()
        x_finalized_features = o.finalized_features
        write_compact_array_length(t, len(x_finalized_features))
        for e_finalized_features in x_finalized_features:
            _encode_ApiVersionsResponse_FinalizedFeatureKey_v3(e_finalized_features, t)
        tagged.append((2, t))
    if o.zk_migration_ready:
        t = bytearray()
        t += _S_o.pack(o.zk_migration_ready)
        tagged.append((3, t))
    write_tagged_fields(b, tagged)


def _decode_ApiVersionsResponse_ApiVersion_v0(
    buf: memoryview, pos: int
) -> tuple[ApiVersionsResponse.ApiVersion, int]:
    """Versions 0-2."""
    f_api_key, f_min_version, f_max_version = _S_hhh.unpack_from(buf, pos)
    pos += 6
    return ApiVersionsResponse.ApiVersion(f_api_key, f_min_version, f_max_version), pos


def _decode_ApiVersionsResponse_v0(buf: memoryview, pos: int) -> tuple[ApiVersionsResponse, int]:
    """Versions 0."""
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    n, pos = read_array_length(buf, pos)
    f_api_keys: list[ApiVersionsResponse.ApiVersion]
    if n < 0:
        raise DecodeError("ApiKeys: null where it is not nullable")
    f_api_keys = []
    for _ in range(n):
        e_api_keys, pos = _decode_ApiVersionsResponse_ApiVersion_v0(buf, pos)
        f_api_keys.append(e_api_keys)
    return ApiVersionsResponse(f_error_code, f_api_keys, 0, [], -1, [], False), pos


def _decode_ApiVersionsResponse_v1(buf: memoryview, pos: int) -> tuple[ApiVersionsResponse, int]:
    """Versions 1-2."""
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    n, pos = read_array_length(buf, pos)
    f_api_keys: list[ApiVersionsResponse.ApiVersion]
    if n < 0:
        raise DecodeError("ApiKeys: null where it is not nullable")
    f_api_keys = []
    for _ in range(n):
        e_api_keys, pos = _decode_ApiVersionsResponse_ApiVersion_v0(buf, pos)
        f_api_keys.append(e_api_keys)
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    return ApiVersionsResponse(f_error_code, f_api_keys, f_throttle_time_ms, [], -1, [], False), pos


def _decode_ApiVersionsResponse_ApiVersion_v3(
    buf: memoryview, pos: int
) -> tuple[ApiVersionsResponse.ApiVersion, int]:
    """Versions 3-5."""
    f_api_key, f_min_version, f_max_version = _S_hhh.unpack_from(buf, pos)
    pos += 6
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ApiVersionsResponse.ApiVersion(f_api_key, f_min_version, f_max_version), pos


def _decode_ApiVersionsResponse_SupportedFeatureKey_v3(
    buf: memoryview, pos: int
) -> tuple[ApiVersionsResponse.SupportedFeatureKey, int]:
    """Versions 3-5."""
    f_name, pos = read_compact_string(buf, pos)
    f_min_version, f_max_version = _S_hh.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ApiVersionsResponse.SupportedFeatureKey(f_name, f_min_version, f_max_version), pos


def _decode_ApiVersionsResponse_FinalizedFeatureKey_v3(
    buf: memoryview, pos: int
) -> tuple[ApiVersionsResponse.FinalizedFeatureKey, int]:
    """Versions 3-5."""
    f_name, pos = read_compact_string(buf, pos)
    f_max_version_level, f_min_version_level = _S_hh.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ApiVersionsResponse.FinalizedFeatureKey(
        f_name, f_max_version_level, f_min_version_level
    ), pos


def _decode_ApiVersionsResponse_v3(buf: memoryview, pos: int) -> tuple[ApiVersionsResponse, int]:
    """Versions 3-5."""
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    n, pos = read_compact_array_length(buf, pos)
    f_api_keys: list[ApiVersionsResponse.ApiVersion]
    if n < 0:
        raise DecodeError("ApiKeys: null where it is not nullable")
    f_api_keys = []
    for _ in range(n):
        e_api_keys, pos = _decode_ApiVersionsResponse_ApiVersion_v3(buf, pos)
        f_api_keys.append(e_api_keys)
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_supported_features: list[ApiVersionsResponse.SupportedFeatureKey] = []
    f_finalized_features_epoch: int = -1
    f_finalized_features: list[ApiVersionsResponse.FinalizedFeatureKey] = []
    f_zk_migration_ready: bool = False
    if buf[pos]:
        n_tags, pos = read_unsigned_varint(buf, pos)
        for _ in range(n_tags):
            tag, pos, end = read_tag_header(buf, pos)
            if tag == 0:
                n, pos = read_compact_array_length(buf, pos)
                if n < 0:
                    raise DecodeError("SupportedFeatures: null where it is not nullable")
                f_supported_features = []
                for _ in range(n):
                    e_supported_features, pos = _decode_ApiVersionsResponse_SupportedFeatureKey_v3(
                        buf, pos
                    )
                    f_supported_features.append(e_supported_features)
            elif tag == 1:
                (f_finalized_features_epoch,) = _S_q.unpack_from(buf, pos)
                pos += 8
            elif tag == 2:
                n, pos = read_compact_array_length(buf, pos)
                if n < 0:
                    raise DecodeError("FinalizedFeatures: null where it is not nullable")
                f_finalized_features = []
                for _ in range(n):
                    e_finalized_features, pos = _decode_ApiVersionsResponse_FinalizedFeatureKey_v3(
                        buf, pos
                    )
                    f_finalized_features.append(e_finalized_features)
            elif tag == 3:
                (f_zk_migration_ready,) = _S_o.unpack_from(buf, pos)
                pos += 1
            pos = end
    else:
        pos += 1
    return ApiVersionsResponse(
        f_error_code,
        f_api_keys,
        f_throttle_time_ms,
        f_supported_features,
        f_finalized_features_epoch,
        f_finalized_features,
        f_zk_migration_ready,
    ), pos


def _encode_ApiVersionsRequest_v0(o: ApiVersionsRequest, b: bytearray) -> None:
    """Versions 0-2."""
    pass


def _encode_ApiVersionsRequest_v3(o: ApiVersionsRequest, b: bytearray) -> None:
    """Versions 3-4."""
    write_compact_string(b, o.client_software_name)
    write_compact_string(b, o.client_software_version)
    b.append(0)  # no tagged fields


def _encode_ApiVersionsRequest_v5(o: ApiVersionsRequest, b: bytearray) -> None:
    """Versions 5."""
    write_compact_string(b, o.client_software_name)
    write_compact_string(b, o.client_software_version)
    write_compact_nullable_string(b, o.cluster_id)
    b += _S_i.pack(o.node_id)
    b.append(0)  # no tagged fields


def _decode_ApiVersionsRequest_v0(buf: memoryview, pos: int) -> tuple[ApiVersionsRequest, int]:
    """Versions 0-2."""
    return ApiVersionsRequest("", "", None, -1), pos


def _decode_ApiVersionsRequest_v3(buf: memoryview, pos: int) -> tuple[ApiVersionsRequest, int]:
    """Versions 3-4."""
    f_client_software_name, pos = read_compact_string(buf, pos)
    f_client_software_version, pos = read_compact_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ApiVersionsRequest(f_client_software_name, f_client_software_version, None, -1), pos


def _decode_ApiVersionsRequest_v5(buf: memoryview, pos: int) -> tuple[ApiVersionsRequest, int]:
    """Versions 5."""
    f_client_software_name, pos = read_compact_string(buf, pos)
    f_client_software_version, pos = read_compact_string(buf, pos)
    f_cluster_id, pos = read_compact_nullable_string(buf, pos)
    (f_node_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ApiVersionsRequest(
        f_client_software_name, f_client_software_version, f_cluster_id, f_node_id
    ), pos


def _encode_SaslHandshakeResponse_v0(o: SaslHandshakeResponse, b: bytearray) -> None:
    """Versions 0-1."""
    b += _S_h.pack(o.error_code)
    x_mechanisms = o.mechanisms
    write_array_length(b, len(x_mechanisms))
    for e_mechanisms in x_mechanisms:
        write_string(b, e_mechanisms)


def _decode_SaslHandshakeResponse_v0(
    buf: memoryview, pos: int
) -> tuple[SaslHandshakeResponse, int]:
    """Versions 0-1."""
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    n, pos = read_array_length(buf, pos)
    f_mechanisms: list[str]
    if n < 0:
        raise DecodeError("Mechanisms: null where it is not nullable")
    f_mechanisms = []
    for _ in range(n):
        e_mechanisms, pos = read_string(buf, pos)
        f_mechanisms.append(e_mechanisms)
    return SaslHandshakeResponse(f_error_code, f_mechanisms), pos


def _encode_SaslHandshakeRequest_v0(o: SaslHandshakeRequest, b: bytearray) -> None:
    """Versions 0-1."""
    write_string(b, o.mechanism)


def _decode_SaslHandshakeRequest_v0(buf: memoryview, pos: int) -> tuple[SaslHandshakeRequest, int]:
    """Versions 0-1."""
    f_mechanism, pos = read_string(buf, pos)
    return SaslHandshakeRequest(f_mechanism), pos


def _encode_SaslAuthenticateResponse_v2(o: SaslAuthenticateResponse, b: bytearray) -> None:
    """Versions 2."""
    b += _S_h.pack(o.error_code)
    write_compact_nullable_string(b, o.error_message)
    write_compact_bytes(b, o.auth_bytes)
    b += _S_q.pack(o.session_lifetime_ms)
    b.append(0)  # no tagged fields


def _decode_SaslAuthenticateResponse_v2(
    buf: memoryview, pos: int
) -> tuple[SaslAuthenticateResponse, int]:
    """Versions 2."""
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    f_auth_bytes, pos = read_compact_bytes(buf, pos)
    (f_session_lifetime_ms,) = _S_q.unpack_from(buf, pos)
    pos += 8
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return SaslAuthenticateResponse(
        f_error_code, f_error_message, f_auth_bytes, f_session_lifetime_ms
    ), pos


def _encode_SaslAuthenticateRequest_v2(o: SaslAuthenticateRequest, b: bytearray) -> None:
    """Versions 2."""
    write_compact_bytes(b, o.auth_bytes)
    b.append(0)  # no tagged fields


def _decode_SaslAuthenticateRequest_v2(
    buf: memoryview, pos: int
) -> tuple[SaslAuthenticateRequest, int]:
    """Versions 2."""
    f_auth_bytes, pos = read_compact_bytes(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return SaslAuthenticateRequest(f_auth_bytes), pos


def _encode_MetadataResponse_MetadataResponseBroker_v9(
    o: MetadataResponse.MetadataResponseBroker, b: bytearray
) -> None:
    """Versions 9-13."""
    b += _S_i.pack(o.node_id)
    write_compact_string(b, o.host)
    b += _S_i.pack(o.port)
    write_compact_nullable_string(b, o.rack)
    b.append(0)  # no tagged fields


def _encode_MetadataResponse_MetadataResponsePartition_v9(
    o: MetadataResponse.MetadataResponsePartition, b: bytearray
) -> None:
    """Versions 9-13."""
    b += _S_hiii.pack(o.error_code, o.partition_index, o.leader_id, o.leader_epoch)
    x_replica_nodes = o.replica_nodes
    write_compact_array_length(b, len(x_replica_nodes))
    write_number_array(b, "i", x_replica_nodes)
    x_isr_nodes = o.isr_nodes
    write_compact_array_length(b, len(x_isr_nodes))
    write_number_array(b, "i", x_isr_nodes)
    x_offline_replicas = o.offline_replicas
    write_compact_array_length(b, len(x_offline_replicas))
    write_number_array(b, "i", x_offline_replicas)
    b.append(0)  # no tagged fields


def _encode_MetadataResponse_MetadataResponseTopic_v9(
    o: MetadataResponse.MetadataResponseTopic, b: bytearray
) -> None:
    """Versions 9."""
    b += _S_h.pack(o.error_code)
    x_name = o.name
    if x_name is None:
        raise UnsupportedVersionError("Name is null, which version 9 cannot carry")
    write_compact_string(b, x_name)
    b += _S_o.pack(o.is_internal)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_MetadataResponse_MetadataResponsePartition_v9(e_partitions, b)
    b += _S_i.pack(o.topic_authorized_operations)
    b.append(0)  # no tagged fields


def _encode_MetadataResponse_v9(o: MetadataResponse, b: bytearray) -> None:
    """Versions 9."""
    b += _S_i.pack(o.throttle_time_ms)
    x_brokers = o.brokers
    write_compact_array_length(b, len(x_brokers))
    for e_brokers in x_brokers:
        _encode_MetadataResponse_MetadataResponseBroker_v9(e_brokers, b)
    write_compact_nullable_string(b, o.cluster_id)
    b += _S_i.pack(o.controller_id)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_MetadataResponse_MetadataResponseTopic_v9(e_topics, b)
    b += _S_i.pack(o.cluster_authorized_operations)
    b.append(0)  # no tagged fields


def _encode_MetadataResponse_MetadataResponseTopic_v10(
    o: MetadataResponse.MetadataResponseTopic, b: bytearray
) -> None:
    """Versions 10-11."""
    b += _S_h.pack(o.error_code)
    x_name = o.name
    if x_name is None:
        raise UnsupportedVersionError("Name is null, which version 10 cannot carry")
    write_compact_string(b, x_name)
    b += _S_uo.pack(o.topic_id.bytes, o.is_internal)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_MetadataResponse_MetadataResponsePartition_v9(e_partitions, b)
    b += _S_i.pack(o.topic_authorized_operations)
    b.append(0)  # no tagged fields


def _encode_MetadataResponse_v10(o: MetadataResponse, b: bytearray) -> None:
    """Versions 10."""
    b += _S_i.pack(o.throttle_time_ms)
    x_brokers = o.brokers
    write_compact_array_length(b, len(x_brokers))
    for e_brokers in x_brokers:
        _encode_MetadataResponse_MetadataResponseBroker_v9(e_brokers, b)
    write_compact_nullable_string(b, o.cluster_id)
    b += _S_i.pack(o.controller_id)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_MetadataResponse_MetadataResponseTopic_v10(e_topics, b)
    b += _S_i.pack(o.cluster_authorized_operations)
    b.append(0)  # no tagged fields


def _encode_MetadataResponse_v11(o: MetadataResponse, b: bytearray) -> None:
    """Versions 11."""
    if o.cluster_authorized_operations != -2147483648:
        raise UnsupportedVersionError(
            "MetadataResponse v11: ClusterAuthorizedOperations cannot be carried"
        )
    b += _S_i.pack(o.throttle_time_ms)
    x_brokers = o.brokers
    write_compact_array_length(b, len(x_brokers))
    for e_brokers in x_brokers:
        _encode_MetadataResponse_MetadataResponseBroker_v9(e_brokers, b)
    write_compact_nullable_string(b, o.cluster_id)
    b += _S_i.pack(o.controller_id)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_MetadataResponse_MetadataResponseTopic_v10(e_topics, b)
    b.append(0)  # no tagged fields


def _encode_MetadataResponse_MetadataResponseTopic_v12(
    o: MetadataResponse.MetadataResponseTopic, b: bytearray
) -> None:
    """Versions 12-13."""
    b += _S_h.pack(o.error_code)
    write_compact_nullable_string(b, o.name)
    b += _S_uo.pack(o.topic_id.bytes, o.is_internal)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_MetadataResponse_MetadataResponsePartition_v9(e_partitions, b)
    b += _S_i.pack(o.topic_authorized_operations)
    b.append(0)  # no tagged fields


def _encode_MetadataResponse_v12(o: MetadataResponse, b: bytearray) -> None:
    """Versions 12."""
    if o.cluster_authorized_operations != -2147483648:
        raise UnsupportedVersionError(
            "MetadataResponse v12: ClusterAuthorizedOperations cannot be carried"
        )
    b += _S_i.pack(o.throttle_time_ms)
    x_brokers = o.brokers
    write_compact_array_length(b, len(x_brokers))
    for e_brokers in x_brokers:
        _encode_MetadataResponse_MetadataResponseBroker_v9(e_brokers, b)
    write_compact_nullable_string(b, o.cluster_id)
    b += _S_i.pack(o.controller_id)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_MetadataResponse_MetadataResponseTopic_v12(e_topics, b)
    b.append(0)  # no tagged fields


def _encode_MetadataResponse_v13(o: MetadataResponse, b: bytearray) -> None:
    """Versions 13."""
    if o.cluster_authorized_operations != -2147483648:
        raise UnsupportedVersionError(
            "MetadataResponse v13: ClusterAuthorizedOperations cannot be carried"
        )
    b += _S_i.pack(o.throttle_time_ms)
    x_brokers = o.brokers
    write_compact_array_length(b, len(x_brokers))
    for e_brokers in x_brokers:
        _encode_MetadataResponse_MetadataResponseBroker_v9(e_brokers, b)
    write_compact_nullable_string(b, o.cluster_id)
    b += _S_i.pack(o.controller_id)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_MetadataResponse_MetadataResponseTopic_v12(e_topics, b)
    b += _S_h.pack(o.error_code)
    b.append(0)  # no tagged fields


def _decode_MetadataResponse_MetadataResponseBroker_v9(
    buf: memoryview, pos: int
) -> tuple[MetadataResponse.MetadataResponseBroker, int]:
    """Versions 9-13."""
    (f_node_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_host, pos = read_compact_string(buf, pos)
    (f_port,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_rack, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return MetadataResponse.MetadataResponseBroker(f_node_id, f_host, f_port, f_rack), pos


def _decode_MetadataResponse_MetadataResponsePartition_v9(
    buf: memoryview, pos: int
) -> tuple[MetadataResponse.MetadataResponsePartition, int]:
    """Versions 9-13."""
    f_error_code, f_partition_index, f_leader_id, f_leader_epoch = _S_hiii.unpack_from(buf, pos)
    pos += 14
    n, pos = read_compact_array_length(buf, pos)
    f_replica_nodes: list[int]
    if n < 0:
        raise DecodeError("ReplicaNodes: null where it is not nullable")
    f_replica_nodes, pos = read_number_array(buf, pos, n, "i", 4)
    n, pos = read_compact_array_length(buf, pos)
    f_isr_nodes: list[int]
    if n < 0:
        raise DecodeError("IsrNodes: null where it is not nullable")
    f_isr_nodes, pos = read_number_array(buf, pos, n, "i", 4)
    n, pos = read_compact_array_length(buf, pos)
    f_offline_replicas: list[int]
    if n < 0:
        raise DecodeError("OfflineReplicas: null where it is not nullable")
    f_offline_replicas, pos = read_number_array(buf, pos, n, "i", 4)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return MetadataResponse.MetadataResponsePartition(
        f_error_code,
        f_partition_index,
        f_leader_id,
        f_leader_epoch,
        f_replica_nodes,
        f_isr_nodes,
        f_offline_replicas,
    ), pos


def _decode_MetadataResponse_MetadataResponseTopic_v9(
    buf: memoryview, pos: int
) -> tuple[MetadataResponse.MetadataResponseTopic, int]:
    """Versions 9."""
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_name, pos = read_compact_string(buf, pos)
    (f_is_internal,) = _S_o.unpack_from(buf, pos)
    pos += 1
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[MetadataResponse.MetadataResponsePartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_MetadataResponse_MetadataResponsePartition_v9(buf, pos)
        f_partitions.append(e_partitions)
    (f_topic_authorized_operations,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return MetadataResponse.MetadataResponseTopic(
        f_error_code, f_name, ZERO_UUID, f_is_internal, f_partitions, f_topic_authorized_operations
    ), pos


def _decode_MetadataResponse_v9(buf: memoryview, pos: int) -> tuple[MetadataResponse, int]:
    """Versions 9."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_brokers: list[MetadataResponse.MetadataResponseBroker]
    if n < 0:
        raise DecodeError("Brokers: null where it is not nullable")
    f_brokers = []
    for _ in range(n):
        e_brokers, pos = _decode_MetadataResponse_MetadataResponseBroker_v9(buf, pos)
        f_brokers.append(e_brokers)
    f_cluster_id, pos = read_compact_nullable_string(buf, pos)
    (f_controller_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[MetadataResponse.MetadataResponseTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_MetadataResponse_MetadataResponseTopic_v9(buf, pos)
        f_topics.append(e_topics)
    (f_cluster_authorized_operations,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return MetadataResponse(
        f_throttle_time_ms,
        f_brokers,
        f_cluster_id,
        f_controller_id,
        f_topics,
        f_cluster_authorized_operations,
        0,
    ), pos


def _decode_MetadataResponse_MetadataResponseTopic_v10(
    buf: memoryview, pos: int
) -> tuple[MetadataResponse.MetadataResponseTopic, int]:
    """Versions 10-11."""
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_name, pos = read_compact_string(buf, pos)
    u_topic_id, f_is_internal = _S_uo.unpack_from(buf, pos)
    pos += 17
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[MetadataResponse.MetadataResponsePartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_MetadataResponse_MetadataResponsePartition_v9(buf, pos)
        f_partitions.append(e_partitions)
    (f_topic_authorized_operations,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return MetadataResponse.MetadataResponseTopic(
        f_error_code, f_name, f_topic_id, f_is_internal, f_partitions, f_topic_authorized_operations
    ), pos


def _decode_MetadataResponse_v10(buf: memoryview, pos: int) -> tuple[MetadataResponse, int]:
    """Versions 10."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_brokers: list[MetadataResponse.MetadataResponseBroker]
    if n < 0:
        raise DecodeError("Brokers: null where it is not nullable")
    f_brokers = []
    for _ in range(n):
        e_brokers, pos = _decode_MetadataResponse_MetadataResponseBroker_v9(buf, pos)
        f_brokers.append(e_brokers)
    f_cluster_id, pos = read_compact_nullable_string(buf, pos)
    (f_controller_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[MetadataResponse.MetadataResponseTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_MetadataResponse_MetadataResponseTopic_v10(buf, pos)
        f_topics.append(e_topics)
    (f_cluster_authorized_operations,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return MetadataResponse(
        f_throttle_time_ms,
        f_brokers,
        f_cluster_id,
        f_controller_id,
        f_topics,
        f_cluster_authorized_operations,
        0,
    ), pos


def _decode_MetadataResponse_v11(buf: memoryview, pos: int) -> tuple[MetadataResponse, int]:
    """Versions 11."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_brokers: list[MetadataResponse.MetadataResponseBroker]
    if n < 0:
        raise DecodeError("Brokers: null where it is not nullable")
    f_brokers = []
    for _ in range(n):
        e_brokers, pos = _decode_MetadataResponse_MetadataResponseBroker_v9(buf, pos)
        f_brokers.append(e_brokers)
    f_cluster_id, pos = read_compact_nullable_string(buf, pos)
    (f_controller_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[MetadataResponse.MetadataResponseTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_MetadataResponse_MetadataResponseTopic_v10(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return MetadataResponse(
        f_throttle_time_ms, f_brokers, f_cluster_id, f_controller_id, f_topics, -2147483648, 0
    ), pos


def _decode_MetadataResponse_MetadataResponseTopic_v12(
    buf: memoryview, pos: int
) -> tuple[MetadataResponse.MetadataResponseTopic, int]:
    """Versions 12-13."""
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_name, pos = read_compact_nullable_string(buf, pos)
    u_topic_id, f_is_internal = _S_uo.unpack_from(buf, pos)
    pos += 17
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[MetadataResponse.MetadataResponsePartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_MetadataResponse_MetadataResponsePartition_v9(buf, pos)
        f_partitions.append(e_partitions)
    (f_topic_authorized_operations,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return MetadataResponse.MetadataResponseTopic(
        f_error_code, f_name, f_topic_id, f_is_internal, f_partitions, f_topic_authorized_operations
    ), pos


def _decode_MetadataResponse_v12(buf: memoryview, pos: int) -> tuple[MetadataResponse, int]:
    """Versions 12."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_brokers: list[MetadataResponse.MetadataResponseBroker]
    if n < 0:
        raise DecodeError("Brokers: null where it is not nullable")
    f_brokers = []
    for _ in range(n):
        e_brokers, pos = _decode_MetadataResponse_MetadataResponseBroker_v9(buf, pos)
        f_brokers.append(e_brokers)
    f_cluster_id, pos = read_compact_nullable_string(buf, pos)
    (f_controller_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[MetadataResponse.MetadataResponseTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_MetadataResponse_MetadataResponseTopic_v12(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return MetadataResponse(
        f_throttle_time_ms, f_brokers, f_cluster_id, f_controller_id, f_topics, -2147483648, 0
    ), pos


def _decode_MetadataResponse_v13(buf: memoryview, pos: int) -> tuple[MetadataResponse, int]:
    """Versions 13."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_brokers: list[MetadataResponse.MetadataResponseBroker]
    if n < 0:
        raise DecodeError("Brokers: null where it is not nullable")
    f_brokers = []
    for _ in range(n):
        e_brokers, pos = _decode_MetadataResponse_MetadataResponseBroker_v9(buf, pos)
        f_brokers.append(e_brokers)
    f_cluster_id, pos = read_compact_nullable_string(buf, pos)
    (f_controller_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[MetadataResponse.MetadataResponseTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_MetadataResponse_MetadataResponseTopic_v12(buf, pos)
        f_topics.append(e_topics)
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return MetadataResponse(
        f_throttle_time_ms,
        f_brokers,
        f_cluster_id,
        f_controller_id,
        f_topics,
        -2147483648,
        f_error_code,
    ), pos


def _encode_MetadataRequest_MetadataRequestTopic_v9(
    o: MetadataRequest.MetadataRequestTopic, b: bytearray
) -> None:
    """Versions 9."""
    x_name = o.name
    if x_name is None:
        raise UnsupportedVersionError("Name is null, which version 9 cannot carry")
    write_compact_string(b, x_name)
    b.append(0)  # no tagged fields


def _encode_MetadataRequest_v9(o: MetadataRequest, b: bytearray) -> None:
    """Versions 9."""
    x_topics = o.topics
    write_compact_array_length(b, None if x_topics is None else len(x_topics))
    if x_topics is not None:
        for e_topics in x_topics:
            _encode_MetadataRequest_MetadataRequestTopic_v9(e_topics, b)
    b += _S_ooo.pack(
        o.allow_auto_topic_creation,
        o.include_cluster_authorized_operations,
        o.include_topic_authorized_operations,
    )
    b.append(0)  # no tagged fields


def _encode_MetadataRequest_MetadataRequestTopic_v10(
    o: MetadataRequest.MetadataRequestTopic, b: bytearray
) -> None:
    """Versions 10-13."""
    b += _S_u.pack(o.topic_id.bytes)
    write_compact_nullable_string(b, o.name)
    b.append(0)  # no tagged fields


def _encode_MetadataRequest_v10(o: MetadataRequest, b: bytearray) -> None:
    """Versions 10."""
    x_topics = o.topics
    write_compact_array_length(b, None if x_topics is None else len(x_topics))
    if x_topics is not None:
        for e_topics in x_topics:
            _encode_MetadataRequest_MetadataRequestTopic_v10(e_topics, b)
    b += _S_ooo.pack(
        o.allow_auto_topic_creation,
        o.include_cluster_authorized_operations,
        o.include_topic_authorized_operations,
    )
    b.append(0)  # no tagged fields


def _encode_MetadataRequest_v11(o: MetadataRequest, b: bytearray) -> None:
    """Versions 11-13."""
    if o.include_cluster_authorized_operations:
        raise UnsupportedVersionError(
            "MetadataRequest v11: IncludeClusterAuthorizedOperations cannot be carried"
        )
    x_topics = o.topics
    write_compact_array_length(b, None if x_topics is None else len(x_topics))
    if x_topics is not None:
        for e_topics in x_topics:
            _encode_MetadataRequest_MetadataRequestTopic_v10(e_topics, b)
    b += _S_oo.pack(o.allow_auto_topic_creation, o.include_topic_authorized_operations)
    b.append(0)  # no tagged fields


def _decode_MetadataRequest_MetadataRequestTopic_v9(
    buf: memoryview, pos: int
) -> tuple[MetadataRequest.MetadataRequestTopic, int]:
    """Versions 9."""
    f_name, pos = read_compact_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return MetadataRequest.MetadataRequestTopic(ZERO_UUID, f_name), pos


def _decode_MetadataRequest_v9(buf: memoryview, pos: int) -> tuple[MetadataRequest, int]:
    """Versions 9."""
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[MetadataRequest.MetadataRequestTopic] | None
    if n < 0:
        f_topics = None
    else:
        f_topics = []
        for _ in range(n):
            e_topics, pos = _decode_MetadataRequest_MetadataRequestTopic_v9(buf, pos)
            f_topics.append(e_topics)
    (
        f_allow_auto_topic_creation,
        f_include_cluster_authorized_operations,
        f_include_topic_authorized_operations,
    ) = _S_ooo.unpack_from(buf, pos)
    pos += 3
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return MetadataRequest(
        f_topics,
        f_allow_auto_topic_creation,
        f_include_cluster_authorized_operations,
        f_include_topic_authorized_operations,
    ), pos


def _decode_MetadataRequest_MetadataRequestTopic_v10(
    buf: memoryview, pos: int
) -> tuple[MetadataRequest.MetadataRequestTopic, int]:
    """Versions 10-13."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    f_name, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return MetadataRequest.MetadataRequestTopic(f_topic_id, f_name), pos


def _decode_MetadataRequest_v10(buf: memoryview, pos: int) -> tuple[MetadataRequest, int]:
    """Versions 10."""
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[MetadataRequest.MetadataRequestTopic] | None
    if n < 0:
        f_topics = None
    else:
        f_topics = []
        for _ in range(n):
            e_topics, pos = _decode_MetadataRequest_MetadataRequestTopic_v10(buf, pos)
            f_topics.append(e_topics)
    (
        f_allow_auto_topic_creation,
        f_include_cluster_authorized_operations,
        f_include_topic_authorized_operations,
    ) = _S_ooo.unpack_from(buf, pos)
    pos += 3
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return MetadataRequest(
        f_topics,
        f_allow_auto_topic_creation,
        f_include_cluster_authorized_operations,
        f_include_topic_authorized_operations,
    ), pos


def _decode_MetadataRequest_v11(buf: memoryview, pos: int) -> tuple[MetadataRequest, int]:
    """Versions 11-13."""
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[MetadataRequest.MetadataRequestTopic] | None
    if n < 0:
        f_topics = None
    else:
        f_topics = []
        for _ in range(n):
            e_topics, pos = _decode_MetadataRequest_MetadataRequestTopic_v10(buf, pos)
            f_topics.append(e_topics)
    f_allow_auto_topic_creation, f_include_topic_authorized_operations = _S_oo.unpack_from(buf, pos)
    pos += 2
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return MetadataRequest(
        f_topics, f_allow_auto_topic_creation, False, f_include_topic_authorized_operations
    ), pos


def _encode_DescribeClusterResponse_DescribeClusterBroker_v0(
    o: DescribeClusterResponse.DescribeClusterBroker, b: bytearray
) -> None:
    """Versions 0-1."""
    if o.is_fenced:
        raise UnsupportedVersionError("DescribeClusterResponse v0: IsFenced cannot be carried")
    b += _S_i.pack(o.broker_id)
    write_compact_string(b, o.host)
    b += _S_i.pack(o.port)
    write_compact_nullable_string(b, o.rack)
    b.append(0)  # no tagged fields


def _encode_DescribeClusterResponse_v0(o: DescribeClusterResponse, b: bytearray) -> None:
    """Versions 0."""
    if o.endpoint_type != 1:
        raise UnsupportedVersionError("DescribeClusterResponse v0: EndpointType cannot be carried")
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    write_compact_string(b, o.cluster_id)
    b += _S_i.pack(o.controller_id)
    x_brokers = o.brokers
    write_compact_array_length(b, len(x_brokers))
    for e_brokers in x_brokers:
        _encode_DescribeClusterResponse_DescribeClusterBroker_v0(e_brokers, b)
    b += _S_i.pack(o.cluster_authorized_operations)
    b.append(0)  # no tagged fields


def _encode_DescribeClusterResponse_v1(o: DescribeClusterResponse, b: bytearray) -> None:
    """Versions 1."""
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b += _S_b.pack(o.endpoint_type)
    write_compact_string(b, o.cluster_id)
    b += _S_i.pack(o.controller_id)
    x_brokers = o.brokers
    write_compact_array_length(b, len(x_brokers))
    for e_brokers in x_brokers:
        _encode_DescribeClusterResponse_DescribeClusterBroker_v0(e_brokers, b)
    b += _S_i.pack(o.cluster_authorized_operations)
    b.append(0)  # no tagged fields


def _encode_DescribeClusterResponse_DescribeClusterBroker_v2(
    o: DescribeClusterResponse.DescribeClusterBroker, b: bytearray
) -> None:
    """Versions 2."""
    b += _S_i.pack(o.broker_id)
    write_compact_string(b, o.host)
    b += _S_i.pack(o.port)
    write_compact_nullable_string(b, o.rack)
    b += _S_o.pack(o.is_fenced)
    b.append(0)  # no tagged fields


def _encode_DescribeClusterResponse_v2(o: DescribeClusterResponse, b: bytearray) -> None:
    """Versions 2."""
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b += _S_b.pack(o.endpoint_type)
    write_compact_string(b, o.cluster_id)
    b += _S_i.pack(o.controller_id)
    x_brokers = o.brokers
    write_compact_array_length(b, len(x_brokers))
    for e_brokers in x_brokers:
        _encode_DescribeClusterResponse_DescribeClusterBroker_v2(e_brokers, b)
    b += _S_i.pack(o.cluster_authorized_operations)
    b.append(0)  # no tagged fields


def _decode_DescribeClusterResponse_DescribeClusterBroker_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeClusterResponse.DescribeClusterBroker, int]:
    """Versions 0-1."""
    (f_broker_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_host, pos = read_compact_string(buf, pos)
    (f_port,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_rack, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeClusterResponse.DescribeClusterBroker(
        f_broker_id, f_host, f_port, f_rack, False
    ), pos


def _decode_DescribeClusterResponse_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeClusterResponse, int]:
    """Versions 0."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    f_cluster_id, pos = read_compact_string(buf, pos)
    (f_controller_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_brokers: list[DescribeClusterResponse.DescribeClusterBroker]
    if n < 0:
        raise DecodeError("Brokers: null where it is not nullable")
    f_brokers = []
    for _ in range(n):
        e_brokers, pos = _decode_DescribeClusterResponse_DescribeClusterBroker_v0(buf, pos)
        f_brokers.append(e_brokers)
    (f_cluster_authorized_operations,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeClusterResponse(
        f_throttle_time_ms,
        f_error_code,
        f_error_message,
        1,
        f_cluster_id,
        f_controller_id,
        f_brokers,
        f_cluster_authorized_operations,
    ), pos


def _decode_DescribeClusterResponse_v1(
    buf: memoryview, pos: int
) -> tuple[DescribeClusterResponse, int]:
    """Versions 1."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    (f_endpoint_type,) = _S_b.unpack_from(buf, pos)
    pos += 1
    f_cluster_id, pos = read_compact_string(buf, pos)
    (f_controller_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_brokers: list[DescribeClusterResponse.DescribeClusterBroker]
    if n < 0:
        raise DecodeError("Brokers: null where it is not nullable")
    f_brokers = []
    for _ in range(n):
        e_brokers, pos = _decode_DescribeClusterResponse_DescribeClusterBroker_v0(buf, pos)
        f_brokers.append(e_brokers)
    (f_cluster_authorized_operations,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeClusterResponse(
        f_throttle_time_ms,
        f_error_code,
        f_error_message,
        f_endpoint_type,
        f_cluster_id,
        f_controller_id,
        f_brokers,
        f_cluster_authorized_operations,
    ), pos


def _decode_DescribeClusterResponse_DescribeClusterBroker_v2(
    buf: memoryview, pos: int
) -> tuple[DescribeClusterResponse.DescribeClusterBroker, int]:
    """Versions 2."""
    (f_broker_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_host, pos = read_compact_string(buf, pos)
    (f_port,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_rack, pos = read_compact_nullable_string(buf, pos)
    (f_is_fenced,) = _S_o.unpack_from(buf, pos)
    pos += 1
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeClusterResponse.DescribeClusterBroker(
        f_broker_id, f_host, f_port, f_rack, f_is_fenced
    ), pos


def _decode_DescribeClusterResponse_v2(
    buf: memoryview, pos: int
) -> tuple[DescribeClusterResponse, int]:
    """Versions 2."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    (f_endpoint_type,) = _S_b.unpack_from(buf, pos)
    pos += 1
    f_cluster_id, pos = read_compact_string(buf, pos)
    (f_controller_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_brokers: list[DescribeClusterResponse.DescribeClusterBroker]
    if n < 0:
        raise DecodeError("Brokers: null where it is not nullable")
    f_brokers = []
    for _ in range(n):
        e_brokers, pos = _decode_DescribeClusterResponse_DescribeClusterBroker_v2(buf, pos)
        f_brokers.append(e_brokers)
    (f_cluster_authorized_operations,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeClusterResponse(
        f_throttle_time_ms,
        f_error_code,
        f_error_message,
        f_endpoint_type,
        f_cluster_id,
        f_controller_id,
        f_brokers,
        f_cluster_authorized_operations,
    ), pos


def _encode_DescribeClusterRequest_v0(o: DescribeClusterRequest, b: bytearray) -> None:
    """Versions 0."""
    if o.endpoint_type != 1:
        raise UnsupportedVersionError("DescribeClusterRequest v0: EndpointType cannot be carried")
    if o.include_fenced_brokers:
        raise UnsupportedVersionError(
            "DescribeClusterRequest v0: IncludeFencedBrokers cannot be carried"
        )
    b += _S_o.pack(o.include_cluster_authorized_operations)
    b.append(0)  # no tagged fields


def _encode_DescribeClusterRequest_v1(o: DescribeClusterRequest, b: bytearray) -> None:
    """Versions 1."""
    if o.include_fenced_brokers:
        raise UnsupportedVersionError(
            "DescribeClusterRequest v1: IncludeFencedBrokers cannot be carried"
        )
    b += _S_ob.pack(o.include_cluster_authorized_operations, o.endpoint_type)
    b.append(0)  # no tagged fields


def _encode_DescribeClusterRequest_v2(o: DescribeClusterRequest, b: bytearray) -> None:
    """Versions 2."""
    b += _S_obo.pack(
        o.include_cluster_authorized_operations, o.endpoint_type, o.include_fenced_brokers
    )
    b.append(0)  # no tagged fields


def _decode_DescribeClusterRequest_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeClusterRequest, int]:
    """Versions 0."""
    (f_include_cluster_authorized_operations,) = _S_o.unpack_from(buf, pos)
    pos += 1
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeClusterRequest(f_include_cluster_authorized_operations, 1, False), pos


def _decode_DescribeClusterRequest_v1(
    buf: memoryview, pos: int
) -> tuple[DescribeClusterRequest, int]:
    """Versions 1."""
    f_include_cluster_authorized_operations, f_endpoint_type = _S_ob.unpack_from(buf, pos)
    pos += 2
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeClusterRequest(
        f_include_cluster_authorized_operations, f_endpoint_type, False
    ), pos


def _decode_DescribeClusterRequest_v2(
    buf: memoryview, pos: int
) -> tuple[DescribeClusterRequest, int]:
    """Versions 2."""
    f_include_cluster_authorized_operations, f_endpoint_type, f_include_fenced_brokers = (
        _S_obo.unpack_from(buf, pos)
    )
    pos += 3
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeClusterRequest(
        f_include_cluster_authorized_operations, f_endpoint_type, f_include_fenced_brokers
    ), pos


def _encode_FindCoordinatorResponse_v3(o: FindCoordinatorResponse, b: bytearray) -> None:
    """Versions 3."""
    if o.coordinators != []:
        raise UnsupportedVersionError("FindCoordinatorResponse v3: Coordinators cannot be carried")
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b += _S_i.pack(o.node_id)
    write_compact_string(b, o.host)
    b += _S_i.pack(o.port)
    b.append(0)  # no tagged fields


def _encode_FindCoordinatorResponse_Coordinator_v4(
    o: FindCoordinatorResponse.Coordinator, b: bytearray
) -> None:
    """Versions 4-6."""
    write_compact_string(b, o.key)
    b += _S_i.pack(o.node_id)
    write_compact_string(b, o.host)
    b += _S_ih.pack(o.port, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b.append(0)  # no tagged fields


def _encode_FindCoordinatorResponse_v4(o: FindCoordinatorResponse, b: bytearray) -> None:
    """Versions 4-6."""
    if o.error_code != 0:
        raise UnsupportedVersionError("FindCoordinatorResponse v4: ErrorCode cannot be carried")
    if o.node_id != 0:
        raise UnsupportedVersionError("FindCoordinatorResponse v4: NodeId cannot be carried")
    if o.host != "":
        raise UnsupportedVersionError("FindCoordinatorResponse v4: Host cannot be carried")
    if o.port != 0:
        raise UnsupportedVersionError("FindCoordinatorResponse v4: Port cannot be carried")
    b += _S_i.pack(o.throttle_time_ms)
    x_coordinators = o.coordinators
    write_compact_array_length(b, len(x_coordinators))
    for e_coordinators in x_coordinators:
        _encode_FindCoordinatorResponse_Coordinator_v4(e_coordinators, b)
    b.append(0)  # no tagged fields


def _decode_FindCoordinatorResponse_v3(
    buf: memoryview, pos: int
) -> tuple[FindCoordinatorResponse, int]:
    """Versions 3."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    (f_node_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_host, pos = read_compact_string(buf, pos)
    (f_port,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FindCoordinatorResponse(
        f_throttle_time_ms, f_error_code, f_error_message, f_node_id, f_host, f_port, []
    ), pos


def _decode_FindCoordinatorResponse_Coordinator_v4(
    buf: memoryview, pos: int
) -> tuple[FindCoordinatorResponse.Coordinator, int]:
    """Versions 4-6."""
    f_key, pos = read_compact_string(buf, pos)
    (f_node_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_host, pos = read_compact_string(buf, pos)
    f_port, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FindCoordinatorResponse.Coordinator(
        f_key, f_node_id, f_host, f_port, f_error_code, f_error_message
    ), pos


def _decode_FindCoordinatorResponse_v4(
    buf: memoryview, pos: int
) -> tuple[FindCoordinatorResponse, int]:
    """Versions 4-6."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_coordinators: list[FindCoordinatorResponse.Coordinator]
    if n < 0:
        raise DecodeError("Coordinators: null where it is not nullable")
    f_coordinators = []
    for _ in range(n):
        e_coordinators, pos = _decode_FindCoordinatorResponse_Coordinator_v4(buf, pos)
        f_coordinators.append(e_coordinators)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FindCoordinatorResponse(f_throttle_time_ms, 0, "", 0, "", 0, f_coordinators), pos


def _encode_FindCoordinatorRequest_v3(o: FindCoordinatorRequest, b: bytearray) -> None:
    """Versions 3."""
    if o.coordinator_keys != []:
        raise UnsupportedVersionError(
            "FindCoordinatorRequest v3: CoordinatorKeys cannot be carried"
        )
    write_compact_string(b, o.key)
    b += _S_b.pack(o.key_type)
    b.append(0)  # no tagged fields


def _encode_FindCoordinatorRequest_v4(o: FindCoordinatorRequest, b: bytearray) -> None:
    """Versions 4-6."""
    if o.key != "":
        raise UnsupportedVersionError("FindCoordinatorRequest v4: Key cannot be carried")
    b += _S_b.pack(o.key_type)
    x_coordinator_keys = o.coordinator_keys
    write_compact_array_length(b, len(x_coordinator_keys))
    for e_coordinator_keys in x_coordinator_keys:
        write_compact_string(b, e_coordinator_keys)
    b.append(0)  # no tagged fields


def _decode_FindCoordinatorRequest_v3(
    buf: memoryview, pos: int
) -> tuple[FindCoordinatorRequest, int]:
    """Versions 3."""
    f_key, pos = read_compact_string(buf, pos)
    (f_key_type,) = _S_b.unpack_from(buf, pos)
    pos += 1
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FindCoordinatorRequest(f_key, f_key_type, []), pos


def _decode_FindCoordinatorRequest_v4(
    buf: memoryview, pos: int
) -> tuple[FindCoordinatorRequest, int]:
    """Versions 4-6."""
    (f_key_type,) = _S_b.unpack_from(buf, pos)
    pos += 1
    n, pos = read_compact_array_length(buf, pos)
    f_coordinator_keys: list[str]
    if n < 0:
        raise DecodeError("CoordinatorKeys: null where it is not nullable")
    f_coordinator_keys = []
    for _ in range(n):
        e_coordinator_keys, pos = read_compact_string(buf, pos)
        f_coordinator_keys.append(e_coordinator_keys)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FindCoordinatorRequest("", f_key_type, f_coordinator_keys), pos


def _encode_CreateTopicsResponse_CreatableTopicConfigs_v5(
    o: CreateTopicsResponse.CreatableTopicConfigs, b: bytearray
) -> None:
    """Versions 5-7."""
    write_compact_string(b, o.name)
    write_compact_nullable_string(b, o.value)
    b += _S_obo.pack(o.read_only, o.config_source, o.is_sensitive)
    b.append(0)  # no tagged fields


def _encode_CreateTopicsResponse_CreatableTopicResult_v5(
    o: CreateTopicsResponse.CreatableTopicResult, b: bytearray
) -> None:
    """Versions 5-6."""
    write_compact_string(b, o.name)
    b += _S_h.pack(o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b += _S_ih.pack(o.num_partitions, o.replication_factor)
    x_configs = o.configs
    write_compact_array_length(b, None if x_configs is None else len(x_configs))
    if x_configs is not None:
        for e_configs in x_configs:
            _encode_CreateTopicsResponse_CreatableTopicConfigs_v5(e_configs, b)
    tagged: list[tuple[int, Buffer]] = []
    if o.topic_config_error_code != 0:
        t = bytearray()
        t += _S_h.pack(o.topic_config_error_code)
        tagged.append((0, t))
    write_tagged_fields(b, tagged)


def _encode_CreateTopicsResponse_v5(o: CreateTopicsResponse, b: bytearray) -> None:
    """Versions 5-6."""
    b += _S_i.pack(o.throttle_time_ms)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_CreateTopicsResponse_CreatableTopicResult_v5(e_topics, b)
    b.append(0)  # no tagged fields


def _encode_CreateTopicsResponse_CreatableTopicResult_v7(
    o: CreateTopicsResponse.CreatableTopicResult, b: bytearray
) -> None:
    """Versions 7."""
    write_compact_string(b, o.name)
    b += _S_uh.pack(o.topic_id.bytes, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b += _S_ih.pack(o.num_partitions, o.replication_factor)
    x_configs = o.configs
    write_compact_array_length(b, None if x_configs is None else len(x_configs))
    if x_configs is not None:
        for e_configs in x_configs:
            _encode_CreateTopicsResponse_CreatableTopicConfigs_v5(e_configs, b)
    tagged: list[tuple[int, Buffer]] = []
    if o.topic_config_error_code != 0:
        t = bytearray()
        t += _S_h.pack(o.topic_config_error_code)
        tagged.append((0, t))
    write_tagged_fields(b, tagged)


def _encode_CreateTopicsResponse_v7(o: CreateTopicsResponse, b: bytearray) -> None:
    """Versions 7."""
    b += _S_i.pack(o.throttle_time_ms)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_CreateTopicsResponse_CreatableTopicResult_v7(e_topics, b)
    b.append(0)  # no tagged fields


def _decode_CreateTopicsResponse_CreatableTopicConfigs_v5(
    buf: memoryview, pos: int
) -> tuple[CreateTopicsResponse.CreatableTopicConfigs, int]:
    """Versions 5-7."""
    f_name, pos = read_compact_string(buf, pos)
    f_value, pos = read_compact_nullable_string(buf, pos)
    f_read_only, f_config_source, f_is_sensitive = _S_obo.unpack_from(buf, pos)
    pos += 3
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return CreateTopicsResponse.CreatableTopicConfigs(
        f_name, f_value, f_read_only, f_config_source, f_is_sensitive
    ), pos


def _decode_CreateTopicsResponse_CreatableTopicResult_v5(
    buf: memoryview, pos: int
) -> tuple[CreateTopicsResponse.CreatableTopicResult, int]:
    """Versions 5-6."""
    f_name, pos = read_compact_string(buf, pos)
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    f_num_partitions, f_replication_factor = _S_ih.unpack_from(buf, pos)
    pos += 6
    n, pos = read_compact_array_length(buf, pos)
    f_configs: list[CreateTopicsResponse.CreatableTopicConfigs] | None
    if n < 0:
        f_configs = None
    else:
        f_configs = []
        for _ in range(n):
            e_configs, pos = _decode_CreateTopicsResponse_CreatableTopicConfigs_v5(buf, pos)
            f_configs.append(e_configs)
    f_topic_config_error_code: int = 0
    if buf[pos]:
        n_tags, pos = read_unsigned_varint(buf, pos)
        for _ in range(n_tags):
            tag, pos, end = read_tag_header(buf, pos)
            if tag == 0:
                (f_topic_config_error_code,) = _S_h.unpack_from(buf, pos)
                pos += 2
            pos = end
    else:
        pos += 1
    return CreateTopicsResponse.CreatableTopicResult(
        f_name,
        ZERO_UUID,
        f_error_code,
        f_error_message,
        f_topic_config_error_code,
        f_num_partitions,
        f_replication_factor,
        f_configs,
    ), pos


def _decode_CreateTopicsResponse_v5(buf: memoryview, pos: int) -> tuple[CreateTopicsResponse, int]:
    """Versions 5-6."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[CreateTopicsResponse.CreatableTopicResult]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_CreateTopicsResponse_CreatableTopicResult_v5(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return CreateTopicsResponse(f_throttle_time_ms, f_topics), pos


def _decode_CreateTopicsResponse_CreatableTopicResult_v7(
    buf: memoryview, pos: int
) -> tuple[CreateTopicsResponse.CreatableTopicResult, int]:
    """Versions 7."""
    f_name, pos = read_compact_string(buf, pos)
    u_topic_id, f_error_code = _S_uh.unpack_from(buf, pos)
    pos += 18
    f_topic_id = UUID(bytes=u_topic_id)
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    f_num_partitions, f_replication_factor = _S_ih.unpack_from(buf, pos)
    pos += 6
    n, pos = read_compact_array_length(buf, pos)
    f_configs: list[CreateTopicsResponse.CreatableTopicConfigs] | None
    if n < 0:
        f_configs = None
    else:
        f_configs = []
        for _ in range(n):
            e_configs, pos = _decode_CreateTopicsResponse_CreatableTopicConfigs_v5(buf, pos)
            f_configs.append(e_configs)
    f_topic_config_error_code: int = 0
    if buf[pos]:
        n_tags, pos = read_unsigned_varint(buf, pos)
        for _ in range(n_tags):
            tag, pos, end = read_tag_header(buf, pos)
            if tag == 0:
                (f_topic_config_error_code,) = _S_h.unpack_from(buf, pos)
                pos += 2
            pos = end
    else:
        pos += 1
    return CreateTopicsResponse.CreatableTopicResult(
        f_name,
        f_topic_id,
        f_error_code,
        f_error_message,
        f_topic_config_error_code,
        f_num_partitions,
        f_replication_factor,
        f_configs,
    ), pos


def _decode_CreateTopicsResponse_v7(buf: memoryview, pos: int) -> tuple[CreateTopicsResponse, int]:
    """Versions 7."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[CreateTopicsResponse.CreatableTopicResult]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_CreateTopicsResponse_CreatableTopicResult_v7(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return CreateTopicsResponse(f_throttle_time_ms, f_topics), pos


def _encode_CreateTopicsRequest_CreatableReplicaAssignment_v5(
    o: CreateTopicsRequest.CreatableReplicaAssignment, b: bytearray
) -> None:
    """Versions 5-7."""
    b += _S_i.pack(o.partition_index)
    x_broker_ids = o.broker_ids
    write_compact_array_length(b, len(x_broker_ids))
    write_number_array(b, "i", x_broker_ids)
    b.append(0)  # no tagged fields


def _encode_CreateTopicsRequest_CreatableTopicConfig_v5(
    o: CreateTopicsRequest.CreatableTopicConfig, b: bytearray
) -> None:
    """Versions 5-7."""
    write_compact_string(b, o.name)
    write_compact_nullable_string(b, o.value)
    b.append(0)  # no tagged fields


def _encode_CreateTopicsRequest_CreatableTopic_v5(
    o: CreateTopicsRequest.CreatableTopic, b: bytearray
) -> None:
    """Versions 5-7."""
    write_compact_string(b, o.name)
    b += _S_ih.pack(o.num_partitions, o.replication_factor)
    x_assignments = o.assignments
    write_compact_array_length(b, len(x_assignments))
    for e_assignments in x_assignments:
        _encode_CreateTopicsRequest_CreatableReplicaAssignment_v5(e_assignments, b)
    x_configs = o.configs
    write_compact_array_length(b, len(x_configs))
    for e_configs in x_configs:
        _encode_CreateTopicsRequest_CreatableTopicConfig_v5(e_configs, b)
    b.append(0)  # no tagged fields


def _encode_CreateTopicsRequest_v5(o: CreateTopicsRequest, b: bytearray) -> None:
    """Versions 5-7."""
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_CreateTopicsRequest_CreatableTopic_v5(e_topics, b)
    b += _S_io.pack(o.timeout_ms, o.validate_only)
    b.append(0)  # no tagged fields


def _decode_CreateTopicsRequest_CreatableReplicaAssignment_v5(
    buf: memoryview, pos: int
) -> tuple[CreateTopicsRequest.CreatableReplicaAssignment, int]:
    """Versions 5-7."""
    (f_partition_index,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_broker_ids: list[int]
    if n < 0:
        raise DecodeError("BrokerIds: null where it is not nullable")
    f_broker_ids, pos = read_number_array(buf, pos, n, "i", 4)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return CreateTopicsRequest.CreatableReplicaAssignment(f_partition_index, f_broker_ids), pos


def _decode_CreateTopicsRequest_CreatableTopicConfig_v5(
    buf: memoryview, pos: int
) -> tuple[CreateTopicsRequest.CreatableTopicConfig, int]:
    """Versions 5-7."""
    f_name, pos = read_compact_string(buf, pos)
    f_value, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return CreateTopicsRequest.CreatableTopicConfig(f_name, f_value), pos


def _decode_CreateTopicsRequest_CreatableTopic_v5(
    buf: memoryview, pos: int
) -> tuple[CreateTopicsRequest.CreatableTopic, int]:
    """Versions 5-7."""
    f_name, pos = read_compact_string(buf, pos)
    f_num_partitions, f_replication_factor = _S_ih.unpack_from(buf, pos)
    pos += 6
    n, pos = read_compact_array_length(buf, pos)
    f_assignments: list[CreateTopicsRequest.CreatableReplicaAssignment]
    if n < 0:
        raise DecodeError("Assignments: null where it is not nullable")
    f_assignments = []
    for _ in range(n):
        e_assignments, pos = _decode_CreateTopicsRequest_CreatableReplicaAssignment_v5(buf, pos)
        f_assignments.append(e_assignments)
    n, pos = read_compact_array_length(buf, pos)
    f_configs: list[CreateTopicsRequest.CreatableTopicConfig]
    if n < 0:
        raise DecodeError("Configs: null where it is not nullable")
    f_configs = []
    for _ in range(n):
        e_configs, pos = _decode_CreateTopicsRequest_CreatableTopicConfig_v5(buf, pos)
        f_configs.append(e_configs)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return CreateTopicsRequest.CreatableTopic(
        f_name, f_num_partitions, f_replication_factor, f_assignments, f_configs
    ), pos


def _decode_CreateTopicsRequest_v5(buf: memoryview, pos: int) -> tuple[CreateTopicsRequest, int]:
    """Versions 5-7."""
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[CreateTopicsRequest.CreatableTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_CreateTopicsRequest_CreatableTopic_v5(buf, pos)
        f_topics.append(e_topics)
    f_timeout_ms, f_validate_only = _S_io.unpack_from(buf, pos)
    pos += 5
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return CreateTopicsRequest(f_topics, f_timeout_ms, f_validate_only), pos


def _encode_DeleteTopicsResponse_DeletableTopicResult_v4(
    o: DeleteTopicsResponse.DeletableTopicResult, b: bytearray
) -> None:
    """Versions 4."""
    x_name = o.name
    if x_name is None:
        raise UnsupportedVersionError("Name is null, which version 4 cannot carry")
    write_compact_string(b, x_name)
    b += _S_h.pack(o.error_code)
    b.append(0)  # no tagged fields


def _encode_DeleteTopicsResponse_v4(o: DeleteTopicsResponse, b: bytearray) -> None:
    """Versions 4."""
    b += _S_i.pack(o.throttle_time_ms)
    x_responses = o.responses
    write_compact_array_length(b, len(x_responses))
    for e_responses in x_responses:
        _encode_DeleteTopicsResponse_DeletableTopicResult_v4(e_responses, b)
    b.append(0)  # no tagged fields


def _encode_DeleteTopicsResponse_DeletableTopicResult_v5(
    o: DeleteTopicsResponse.DeletableTopicResult, b: bytearray
) -> None:
    """Versions 5."""
    x_name = o.name
    if x_name is None:
        raise UnsupportedVersionError("Name is null, which version 5 cannot carry")
    write_compact_string(b, x_name)
    b += _S_h.pack(o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b.append(0)  # no tagged fields


def _encode_DeleteTopicsResponse_v5(o: DeleteTopicsResponse, b: bytearray) -> None:
    """Versions 5."""
    b += _S_i.pack(o.throttle_time_ms)
    x_responses = o.responses
    write_compact_array_length(b, len(x_responses))
    for e_responses in x_responses:
        _encode_DeleteTopicsResponse_DeletableTopicResult_v5(e_responses, b)
    b.append(0)  # no tagged fields


def _encode_DeleteTopicsResponse_DeletableTopicResult_v6(
    o: DeleteTopicsResponse.DeletableTopicResult, b: bytearray
) -> None:
    """Versions 6."""
    write_compact_nullable_string(b, o.name)
    b += _S_uh.pack(o.topic_id.bytes, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b.append(0)  # no tagged fields


def _encode_DeleteTopicsResponse_v6(o: DeleteTopicsResponse, b: bytearray) -> None:
    """Versions 6."""
    b += _S_i.pack(o.throttle_time_ms)
    x_responses = o.responses
    write_compact_array_length(b, len(x_responses))
    for e_responses in x_responses:
        _encode_DeleteTopicsResponse_DeletableTopicResult_v6(e_responses, b)
    b.append(0)  # no tagged fields


def _decode_DeleteTopicsResponse_DeletableTopicResult_v4(
    buf: memoryview, pos: int
) -> tuple[DeleteTopicsResponse.DeletableTopicResult, int]:
    """Versions 4."""
    f_name, pos = read_compact_string(buf, pos)
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteTopicsResponse.DeletableTopicResult(f_name, ZERO_UUID, f_error_code, None), pos


def _decode_DeleteTopicsResponse_v4(buf: memoryview, pos: int) -> tuple[DeleteTopicsResponse, int]:
    """Versions 4."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_responses: list[DeleteTopicsResponse.DeletableTopicResult]
    if n < 0:
        raise DecodeError("Responses: null where it is not nullable")
    f_responses = []
    for _ in range(n):
        e_responses, pos = _decode_DeleteTopicsResponse_DeletableTopicResult_v4(buf, pos)
        f_responses.append(e_responses)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteTopicsResponse(f_throttle_time_ms, f_responses), pos


def _decode_DeleteTopicsResponse_DeletableTopicResult_v5(
    buf: memoryview, pos: int
) -> tuple[DeleteTopicsResponse.DeletableTopicResult, int]:
    """Versions 5."""
    f_name, pos = read_compact_string(buf, pos)
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteTopicsResponse.DeletableTopicResult(
        f_name, ZERO_UUID, f_error_code, f_error_message
    ), pos


def _decode_DeleteTopicsResponse_v5(buf: memoryview, pos: int) -> tuple[DeleteTopicsResponse, int]:
    """Versions 5."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_responses: list[DeleteTopicsResponse.DeletableTopicResult]
    if n < 0:
        raise DecodeError("Responses: null where it is not nullable")
    f_responses = []
    for _ in range(n):
        e_responses, pos = _decode_DeleteTopicsResponse_DeletableTopicResult_v5(buf, pos)
        f_responses.append(e_responses)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteTopicsResponse(f_throttle_time_ms, f_responses), pos


def _decode_DeleteTopicsResponse_DeletableTopicResult_v6(
    buf: memoryview, pos: int
) -> tuple[DeleteTopicsResponse.DeletableTopicResult, int]:
    """Versions 6."""
    f_name, pos = read_compact_nullable_string(buf, pos)
    u_topic_id, f_error_code = _S_uh.unpack_from(buf, pos)
    pos += 18
    f_topic_id = UUID(bytes=u_topic_id)
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteTopicsResponse.DeletableTopicResult(
        f_name, f_topic_id, f_error_code, f_error_message
    ), pos


def _decode_DeleteTopicsResponse_v6(buf: memoryview, pos: int) -> tuple[DeleteTopicsResponse, int]:
    """Versions 6."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_responses: list[DeleteTopicsResponse.DeletableTopicResult]
    if n < 0:
        raise DecodeError("Responses: null where it is not nullable")
    f_responses = []
    for _ in range(n):
        e_responses, pos = _decode_DeleteTopicsResponse_DeletableTopicResult_v6(buf, pos)
        f_responses.append(e_responses)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteTopicsResponse(f_throttle_time_ms, f_responses), pos


def _encode_DeleteTopicsRequest_v4(o: DeleteTopicsRequest, b: bytearray) -> None:
    """Versions 4-5."""
    if o.topics != []:
        raise UnsupportedVersionError("DeleteTopicsRequest v4: Topics cannot be carried")
    x_topic_names = o.topic_names
    write_compact_array_length(b, len(x_topic_names))
    for e_topic_names in x_topic_names:
        write_compact_string(b, e_topic_names)
    b += _S_i.pack(o.timeout_ms)
    b.append(0)  # no tagged fields


def _encode_DeleteTopicsRequest_DeleteTopicState_v6(
    o: DeleteTopicsRequest.DeleteTopicState, b: bytearray
) -> None:
    """Versions 6."""
    write_compact_nullable_string(b, o.name)
    b += _S_u.pack(o.topic_id.bytes)
    b.append(0)  # no tagged fields


def _encode_DeleteTopicsRequest_v6(o: DeleteTopicsRequest, b: bytearray) -> None:
    """Versions 6."""
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_DeleteTopicsRequest_DeleteTopicState_v6(e_topics, b)
    b += _S_i.pack(o.timeout_ms)
    b.append(0)  # no tagged fields


def _decode_DeleteTopicsRequest_v4(buf: memoryview, pos: int) -> tuple[DeleteTopicsRequest, int]:
    """Versions 4-5."""
    n, pos = read_compact_array_length(buf, pos)
    f_topic_names: list[str]
    if n < 0:
        raise DecodeError("TopicNames: null where it is not nullable")
    f_topic_names = []
    for _ in range(n):
        e_topic_names, pos = read_compact_string(buf, pos)
        f_topic_names.append(e_topic_names)
    (f_timeout_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteTopicsRequest([], f_topic_names, f_timeout_ms), pos


def _decode_DeleteTopicsRequest_DeleteTopicState_v6(
    buf: memoryview, pos: int
) -> tuple[DeleteTopicsRequest.DeleteTopicState, int]:
    """Versions 6."""
    f_name, pos = read_compact_nullable_string(buf, pos)
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteTopicsRequest.DeleteTopicState(f_name, f_topic_id), pos


def _decode_DeleteTopicsRequest_v6(buf: memoryview, pos: int) -> tuple[DeleteTopicsRequest, int]:
    """Versions 6."""
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[DeleteTopicsRequest.DeleteTopicState]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_DeleteTopicsRequest_DeleteTopicState_v6(buf, pos)
        f_topics.append(e_topics)
    (f_timeout_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteTopicsRequest(f_topics, [], f_timeout_ms), pos


def _encode_CreatePartitionsResponse_CreatePartitionsTopicResult_v2(
    o: CreatePartitionsResponse.CreatePartitionsTopicResult, b: bytearray
) -> None:
    """Versions 2-3."""
    write_compact_string(b, o.name)
    b += _S_h.pack(o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b.append(0)  # no tagged fields


def _encode_CreatePartitionsResponse_v2(o: CreatePartitionsResponse, b: bytearray) -> None:
    """Versions 2-3."""
    b += _S_i.pack(o.throttle_time_ms)
    x_results = o.results
    write_compact_array_length(b, len(x_results))
    for e_results in x_results:
        _encode_CreatePartitionsResponse_CreatePartitionsTopicResult_v2(e_results, b)
    b.append(0)  # no tagged fields


def _decode_CreatePartitionsResponse_CreatePartitionsTopicResult_v2(
    buf: memoryview, pos: int
) -> tuple[CreatePartitionsResponse.CreatePartitionsTopicResult, int]:
    """Versions 2-3."""
    f_name, pos = read_compact_string(buf, pos)
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return CreatePartitionsResponse.CreatePartitionsTopicResult(
        f_name, f_error_code, f_error_message
    ), pos


def _decode_CreatePartitionsResponse_v2(
    buf: memoryview, pos: int
) -> tuple[CreatePartitionsResponse, int]:
    """Versions 2-3."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_results: list[CreatePartitionsResponse.CreatePartitionsTopicResult]
    if n < 0:
        raise DecodeError("Results: null where it is not nullable")
    f_results = []
    for _ in range(n):
        e_results, pos = _decode_CreatePartitionsResponse_CreatePartitionsTopicResult_v2(buf, pos)
        f_results.append(e_results)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return CreatePartitionsResponse(f_throttle_time_ms, f_results), pos


def _encode_CreatePartitionsRequest_CreatePartitionsAssignment_v2(
    o: CreatePartitionsRequest.CreatePartitionsAssignment, b: bytearray
) -> None:
    """Versions 2-3."""
    x_broker_ids = o.broker_ids
    write_compact_array_length(b, len(x_broker_ids))
    write_number_array(b, "i", x_broker_ids)
    b.append(0)  # no tagged fields


def _encode_CreatePartitionsRequest_CreatePartitionsTopic_v2(
    o: CreatePartitionsRequest.CreatePartitionsTopic, b: bytearray
) -> None:
    """Versions 2-3."""
    write_compact_string(b, o.name)
    b += _S_i.pack(o.count)
    x_assignments = o.assignments
    write_compact_array_length(b, None if x_assignments is None else len(x_assignments))
    if x_assignments is not None:
        for e_assignments in x_assignments:
            _encode_CreatePartitionsRequest_CreatePartitionsAssignment_v2(e_assignments, b)
    b.append(0)  # no tagged fields


def _encode_CreatePartitionsRequest_v2(o: CreatePartitionsRequest, b: bytearray) -> None:
    """Versions 2-3."""
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_CreatePartitionsRequest_CreatePartitionsTopic_v2(e_topics, b)
    b += _S_io.pack(o.timeout_ms, o.validate_only)
    b.append(0)  # no tagged fields


def _decode_CreatePartitionsRequest_CreatePartitionsAssignment_v2(
    buf: memoryview, pos: int
) -> tuple[CreatePartitionsRequest.CreatePartitionsAssignment, int]:
    """Versions 2-3."""
    n, pos = read_compact_array_length(buf, pos)
    f_broker_ids: list[int]
    if n < 0:
        raise DecodeError("BrokerIds: null where it is not nullable")
    f_broker_ids, pos = read_number_array(buf, pos, n, "i", 4)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return CreatePartitionsRequest.CreatePartitionsAssignment(f_broker_ids), pos


def _decode_CreatePartitionsRequest_CreatePartitionsTopic_v2(
    buf: memoryview, pos: int
) -> tuple[CreatePartitionsRequest.CreatePartitionsTopic, int]:
    """Versions 2-3."""
    f_name, pos = read_compact_string(buf, pos)
    (f_count,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_assignments: list[CreatePartitionsRequest.CreatePartitionsAssignment] | None
    if n < 0:
        f_assignments = None
    else:
        f_assignments = []
        for _ in range(n):
            e_assignments, pos = _decode_CreatePartitionsRequest_CreatePartitionsAssignment_v2(
                buf, pos
            )
            f_assignments.append(e_assignments)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return CreatePartitionsRequest.CreatePartitionsTopic(f_name, f_count, f_assignments), pos


def _decode_CreatePartitionsRequest_v2(
    buf: memoryview, pos: int
) -> tuple[CreatePartitionsRequest, int]:
    """Versions 2-3."""
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[CreatePartitionsRequest.CreatePartitionsTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_CreatePartitionsRequest_CreatePartitionsTopic_v2(buf, pos)
        f_topics.append(e_topics)
    f_timeout_ms, f_validate_only = _S_io.unpack_from(buf, pos)
    pos += 5
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return CreatePartitionsRequest(f_topics, f_timeout_ms, f_validate_only), pos


def _encode_DescribeConfigsResponse_DescribeConfigsSynonym_v4(
    o: DescribeConfigsResponse.DescribeConfigsSynonym, b: bytearray
) -> None:
    """Versions 4."""
    write_compact_string(b, o.name)
    write_compact_nullable_string(b, o.value)
    b += _S_b.pack(o.source)
    b.append(0)  # no tagged fields


def _encode_DescribeConfigsResponse_DescribeConfigsResourceResult_v4(
    o: DescribeConfigsResponse.DescribeConfigsResourceResult, b: bytearray
) -> None:
    """Versions 4."""
    write_compact_string(b, o.name)
    write_compact_nullable_string(b, o.value)
    b += _S_obo.pack(o.read_only, o.config_source, o.is_sensitive)
    x_synonyms = o.synonyms
    write_compact_array_length(b, len(x_synonyms))
    for e_synonyms in x_synonyms:
        _encode_DescribeConfigsResponse_DescribeConfigsSynonym_v4(e_synonyms, b)
    b += _S_b.pack(o.config_type)
    write_compact_nullable_string(b, o.documentation)
    b.append(0)  # no tagged fields


def _encode_DescribeConfigsResponse_DescribeConfigsResult_v4(
    o: DescribeConfigsResponse.DescribeConfigsResult, b: bytearray
) -> None:
    """Versions 4."""
    b += _S_h.pack(o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b += _S_b.pack(o.resource_type)
    write_compact_string(b, o.resource_name)
    x_configs = o.configs
    write_compact_array_length(b, len(x_configs))
    for e_configs in x_configs:
        _encode_DescribeConfigsResponse_DescribeConfigsResourceResult_v4(e_configs, b)
    b.append(0)  # no tagged fields


def _encode_DescribeConfigsResponse_v4(o: DescribeConfigsResponse, b: bytearray) -> None:
    """Versions 4."""
    b += _S_i.pack(o.throttle_time_ms)
    x_results = o.results
    write_compact_array_length(b, len(x_results))
    for e_results in x_results:
        _encode_DescribeConfigsResponse_DescribeConfigsResult_v4(e_results, b)
    b.append(0)  # no tagged fields


def _decode_DescribeConfigsResponse_DescribeConfigsSynonym_v4(
    buf: memoryview, pos: int
) -> tuple[DescribeConfigsResponse.DescribeConfigsSynonym, int]:
    """Versions 4."""
    f_name, pos = read_compact_string(buf, pos)
    f_value, pos = read_compact_nullable_string(buf, pos)
    (f_source,) = _S_b.unpack_from(buf, pos)
    pos += 1
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeConfigsResponse.DescribeConfigsSynonym(f_name, f_value, f_source), pos


def _decode_DescribeConfigsResponse_DescribeConfigsResourceResult_v4(
    buf: memoryview, pos: int
) -> tuple[DescribeConfigsResponse.DescribeConfigsResourceResult, int]:
    """Versions 4."""
    f_name, pos = read_compact_string(buf, pos)
    f_value, pos = read_compact_nullable_string(buf, pos)
    f_read_only, f_config_source, f_is_sensitive = _S_obo.unpack_from(buf, pos)
    pos += 3
    n, pos = read_compact_array_length(buf, pos)
    f_synonyms: list[DescribeConfigsResponse.DescribeConfigsSynonym]
    if n < 0:
        raise DecodeError("Synonyms: null where it is not nullable")
    f_synonyms = []
    for _ in range(n):
        e_synonyms, pos = _decode_DescribeConfigsResponse_DescribeConfigsSynonym_v4(buf, pos)
        f_synonyms.append(e_synonyms)
    (f_config_type,) = _S_b.unpack_from(buf, pos)
    pos += 1
    f_documentation, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeConfigsResponse.DescribeConfigsResourceResult(
        f_name,
        f_value,
        f_read_only,
        f_config_source,
        f_is_sensitive,
        f_synonyms,
        f_config_type,
        f_documentation,
    ), pos


def _decode_DescribeConfigsResponse_DescribeConfigsResult_v4(
    buf: memoryview, pos: int
) -> tuple[DescribeConfigsResponse.DescribeConfigsResult, int]:
    """Versions 4."""
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    (f_resource_type,) = _S_b.unpack_from(buf, pos)
    pos += 1
    f_resource_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_configs: list[DescribeConfigsResponse.DescribeConfigsResourceResult]
    if n < 0:
        raise DecodeError("Configs: null where it is not nullable")
    f_configs = []
    for _ in range(n):
        e_configs, pos = _decode_DescribeConfigsResponse_DescribeConfigsResourceResult_v4(buf, pos)
        f_configs.append(e_configs)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeConfigsResponse.DescribeConfigsResult(
        f_error_code, f_error_message, f_resource_type, f_resource_name, f_configs
    ), pos


def _decode_DescribeConfigsResponse_v4(
    buf: memoryview, pos: int
) -> tuple[DescribeConfigsResponse, int]:
    """Versions 4."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_results: list[DescribeConfigsResponse.DescribeConfigsResult]
    if n < 0:
        raise DecodeError("Results: null where it is not nullable")
    f_results = []
    for _ in range(n):
        e_results, pos = _decode_DescribeConfigsResponse_DescribeConfigsResult_v4(buf, pos)
        f_results.append(e_results)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeConfigsResponse(f_throttle_time_ms, f_results), pos


def _encode_DescribeConfigsRequest_DescribeConfigsResource_v4(
    o: DescribeConfigsRequest.DescribeConfigsResource, b: bytearray
) -> None:
    """Versions 4."""
    b += _S_b.pack(o.resource_type)
    write_compact_string(b, o.resource_name)
    x_configuration_keys = o.configuration_keys
    write_compact_array_length(
        b, None if x_configuration_keys is None else len(x_configuration_keys)
    )
    if x_configuration_keys is not None:
        for e_configuration_keys in x_configuration_keys:
            write_compact_string(b, e_configuration_keys)
    b.append(0)  # no tagged fields


def _encode_DescribeConfigsRequest_v4(o: DescribeConfigsRequest, b: bytearray) -> None:
    """Versions 4."""
    x_resources = o.resources
    write_compact_array_length(b, len(x_resources))
    for e_resources in x_resources:
        _encode_DescribeConfigsRequest_DescribeConfigsResource_v4(e_resources, b)
    b += _S_oo.pack(o.include_synonyms, o.include_documentation)
    b.append(0)  # no tagged fields


def _decode_DescribeConfigsRequest_DescribeConfigsResource_v4(
    buf: memoryview, pos: int
) -> tuple[DescribeConfigsRequest.DescribeConfigsResource, int]:
    """Versions 4."""
    (f_resource_type,) = _S_b.unpack_from(buf, pos)
    pos += 1
    f_resource_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_configuration_keys: list[str] | None
    if n < 0:
        f_configuration_keys = None
    else:
        f_configuration_keys = []
        for _ in range(n):
            e_configuration_keys, pos = read_compact_string(buf, pos)
            f_configuration_keys.append(e_configuration_keys)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeConfigsRequest.DescribeConfigsResource(
        f_resource_type, f_resource_name, f_configuration_keys
    ), pos


def _decode_DescribeConfigsRequest_v4(
    buf: memoryview, pos: int
) -> tuple[DescribeConfigsRequest, int]:
    """Versions 4."""
    n, pos = read_compact_array_length(buf, pos)
    f_resources: list[DescribeConfigsRequest.DescribeConfigsResource]
    if n < 0:
        raise DecodeError("Resources: null where it is not nullable")
    f_resources = []
    for _ in range(n):
        e_resources, pos = _decode_DescribeConfigsRequest_DescribeConfigsResource_v4(buf, pos)
        f_resources.append(e_resources)
    f_include_synonyms, f_include_documentation = _S_oo.unpack_from(buf, pos)
    pos += 2
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeConfigsRequest(f_resources, f_include_synonyms, f_include_documentation), pos


def _encode_IncrementalAlterConfigsResponse_AlterConfigsResourceResponse_v1(
    o: IncrementalAlterConfigsResponse.AlterConfigsResourceResponse, b: bytearray
) -> None:
    """Versions 1."""
    b += _S_h.pack(o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b += _S_b.pack(o.resource_type)
    write_compact_string(b, o.resource_name)
    b.append(0)  # no tagged fields


def _encode_IncrementalAlterConfigsResponse_v1(
    o: IncrementalAlterConfigsResponse, b: bytearray
) -> None:
    """Versions 1."""
    b += _S_i.pack(o.throttle_time_ms)
    x_responses = o.responses
    write_compact_array_length(b, len(x_responses))
    for e_responses in x_responses:
        _encode_IncrementalAlterConfigsResponse_AlterConfigsResourceResponse_v1(e_responses, b)
    b.append(0)  # no tagged fields


def _decode_IncrementalAlterConfigsResponse_AlterConfigsResourceResponse_v1(
    buf: memoryview, pos: int
) -> tuple[IncrementalAlterConfigsResponse.AlterConfigsResourceResponse, int]:
    """Versions 1."""
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    (f_resource_type,) = _S_b.unpack_from(buf, pos)
    pos += 1
    f_resource_name, pos = read_compact_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return IncrementalAlterConfigsResponse.AlterConfigsResourceResponse(
        f_error_code, f_error_message, f_resource_type, f_resource_name
    ), pos


def _decode_IncrementalAlterConfigsResponse_v1(
    buf: memoryview, pos: int
) -> tuple[IncrementalAlterConfigsResponse, int]:
    """Versions 1."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_responses: list[IncrementalAlterConfigsResponse.AlterConfigsResourceResponse]
    if n < 0:
        raise DecodeError("Responses: null where it is not nullable")
    f_responses = []
    for _ in range(n):
        e_responses, pos = _decode_IncrementalAlterConfigsResponse_AlterConfigsResourceResponse_v1(
            buf, pos
        )
        f_responses.append(e_responses)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return IncrementalAlterConfigsResponse(f_throttle_time_ms, f_responses), pos


def _encode_IncrementalAlterConfigsRequest_AlterableConfig_v1(
    o: IncrementalAlterConfigsRequest.AlterableConfig, b: bytearray
) -> None:
    """Versions 1."""
    write_compact_string(b, o.name)
    b += _S_b.pack(o.config_operation)
    write_compact_nullable_string(b, o.value)
    b.append(0)  # no tagged fields


def _encode_IncrementalAlterConfigsRequest_AlterConfigsResource_v1(
    o: IncrementalAlterConfigsRequest.AlterConfigsResource, b: bytearray
) -> None:
    """Versions 1."""
    b += _S_b.pack(o.resource_type)
    write_compact_string(b, o.resource_name)
    x_configs = o.configs
    write_compact_array_length(b, len(x_configs))
    for e_configs in x_configs:
        _encode_IncrementalAlterConfigsRequest_AlterableConfig_v1(e_configs, b)
    b.append(0)  # no tagged fields


def _encode_IncrementalAlterConfigsRequest_v1(
    o: IncrementalAlterConfigsRequest, b: bytearray
) -> None:
    """Versions 1."""
    x_resources = o.resources
    write_compact_array_length(b, len(x_resources))
    for e_resources in x_resources:
        _encode_IncrementalAlterConfigsRequest_AlterConfigsResource_v1(e_resources, b)
    b += _S_o.pack(o.validate_only)
    b.append(0)  # no tagged fields


def _decode_IncrementalAlterConfigsRequest_AlterableConfig_v1(
    buf: memoryview, pos: int
) -> tuple[IncrementalAlterConfigsRequest.AlterableConfig, int]:
    """Versions 1."""
    f_name, pos = read_compact_string(buf, pos)
    (f_config_operation,) = _S_b.unpack_from(buf, pos)
    pos += 1
    f_value, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return IncrementalAlterConfigsRequest.AlterableConfig(f_name, f_config_operation, f_value), pos


def _decode_IncrementalAlterConfigsRequest_AlterConfigsResource_v1(
    buf: memoryview, pos: int
) -> tuple[IncrementalAlterConfigsRequest.AlterConfigsResource, int]:
    """Versions 1."""
    (f_resource_type,) = _S_b.unpack_from(buf, pos)
    pos += 1
    f_resource_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_configs: list[IncrementalAlterConfigsRequest.AlterableConfig]
    if n < 0:
        raise DecodeError("Configs: null where it is not nullable")
    f_configs = []
    for _ in range(n):
        e_configs, pos = _decode_IncrementalAlterConfigsRequest_AlterableConfig_v1(buf, pos)
        f_configs.append(e_configs)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return IncrementalAlterConfigsRequest.AlterConfigsResource(
        f_resource_type, f_resource_name, f_configs
    ), pos


def _decode_IncrementalAlterConfigsRequest_v1(
    buf: memoryview, pos: int
) -> tuple[IncrementalAlterConfigsRequest, int]:
    """Versions 1."""
    n, pos = read_compact_array_length(buf, pos)
    f_resources: list[IncrementalAlterConfigsRequest.AlterConfigsResource]
    if n < 0:
        raise DecodeError("Resources: null where it is not nullable")
    f_resources = []
    for _ in range(n):
        e_resources, pos = _decode_IncrementalAlterConfigsRequest_AlterConfigsResource_v1(buf, pos)
        f_resources.append(e_resources)
    (f_validate_only,) = _S_o.unpack_from(buf, pos)
    pos += 1
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return IncrementalAlterConfigsRequest(f_resources, f_validate_only), pos


def _encode_DeleteRecordsResponse_DeleteRecordsPartitionResult_v2(
    o: DeleteRecordsResponse.DeleteRecordsPartitionResult, b: bytearray
) -> None:
    """Versions 2."""
    b += _S_iqh.pack(o.partition_index, o.low_watermark, o.error_code)
    b.append(0)  # no tagged fields


def _encode_DeleteRecordsResponse_DeleteRecordsTopicResult_v2(
    o: DeleteRecordsResponse.DeleteRecordsTopicResult, b: bytearray
) -> None:
    """Versions 2."""
    write_compact_string(b, o.name)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_DeleteRecordsResponse_DeleteRecordsPartitionResult_v2(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_DeleteRecordsResponse_v2(o: DeleteRecordsResponse, b: bytearray) -> None:
    """Versions 2."""
    b += _S_i.pack(o.throttle_time_ms)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_DeleteRecordsResponse_DeleteRecordsTopicResult_v2(e_topics, b)
    b.append(0)  # no tagged fields


def _decode_DeleteRecordsResponse_DeleteRecordsPartitionResult_v2(
    buf: memoryview, pos: int
) -> tuple[DeleteRecordsResponse.DeleteRecordsPartitionResult, int]:
    """Versions 2."""
    f_partition_index, f_low_watermark, f_error_code = _S_iqh.unpack_from(buf, pos)
    pos += 14
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteRecordsResponse.DeleteRecordsPartitionResult(
        f_partition_index, f_low_watermark, f_error_code
    ), pos


def _decode_DeleteRecordsResponse_DeleteRecordsTopicResult_v2(
    buf: memoryview, pos: int
) -> tuple[DeleteRecordsResponse.DeleteRecordsTopicResult, int]:
    """Versions 2."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[DeleteRecordsResponse.DeleteRecordsPartitionResult]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_DeleteRecordsResponse_DeleteRecordsPartitionResult_v2(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteRecordsResponse.DeleteRecordsTopicResult(f_name, f_partitions), pos


def _decode_DeleteRecordsResponse_v2(
    buf: memoryview, pos: int
) -> tuple[DeleteRecordsResponse, int]:
    """Versions 2."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[DeleteRecordsResponse.DeleteRecordsTopicResult]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_DeleteRecordsResponse_DeleteRecordsTopicResult_v2(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteRecordsResponse(f_throttle_time_ms, f_topics), pos


def _encode_DeleteRecordsRequest_DeleteRecordsPartition_v2(
    o: DeleteRecordsRequest.DeleteRecordsPartition, b: bytearray
) -> None:
    """Versions 2."""
    b += _S_iq.pack(o.partition_index, o.offset)
    b.append(0)  # no tagged fields


def _encode_DeleteRecordsRequest_DeleteRecordsTopic_v2(
    o: DeleteRecordsRequest.DeleteRecordsTopic, b: bytearray
) -> None:
    """Versions 2."""
    write_compact_string(b, o.name)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_DeleteRecordsRequest_DeleteRecordsPartition_v2(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_DeleteRecordsRequest_v2(o: DeleteRecordsRequest, b: bytearray) -> None:
    """Versions 2."""
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_DeleteRecordsRequest_DeleteRecordsTopic_v2(e_topics, b)
    b += _S_i.pack(o.timeout_ms)
    b.append(0)  # no tagged fields


def _decode_DeleteRecordsRequest_DeleteRecordsPartition_v2(
    buf: memoryview, pos: int
) -> tuple[DeleteRecordsRequest.DeleteRecordsPartition, int]:
    """Versions 2."""
    f_partition_index, f_offset = _S_iq.unpack_from(buf, pos)
    pos += 12
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteRecordsRequest.DeleteRecordsPartition(f_partition_index, f_offset), pos


def _decode_DeleteRecordsRequest_DeleteRecordsTopic_v2(
    buf: memoryview, pos: int
) -> tuple[DeleteRecordsRequest.DeleteRecordsTopic, int]:
    """Versions 2."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[DeleteRecordsRequest.DeleteRecordsPartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_DeleteRecordsRequest_DeleteRecordsPartition_v2(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteRecordsRequest.DeleteRecordsTopic(f_name, f_partitions), pos


def _decode_DeleteRecordsRequest_v2(buf: memoryview, pos: int) -> tuple[DeleteRecordsRequest, int]:
    """Versions 2."""
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[DeleteRecordsRequest.DeleteRecordsTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_DeleteRecordsRequest_DeleteRecordsTopic_v2(buf, pos)
        f_topics.append(e_topics)
    (f_timeout_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteRecordsRequest(f_topics, f_timeout_ms), pos


def _encode_ListOffsetsResponse_ListOffsetsPartitionResponse_v6(
    o: ListOffsetsResponse.ListOffsetsPartitionResponse, b: bytearray
) -> None:
    """Versions 6-11."""
    b += _S_ihqqi.pack(o.partition_index, o.error_code, o.timestamp, o.offset, o.leader_epoch)
    b.append(0)  # no tagged fields


def _encode_ListOffsetsResponse_ListOffsetsTopicResponse_v6(
    o: ListOffsetsResponse.ListOffsetsTopicResponse, b: bytearray
) -> None:
    """Versions 6-11."""
    write_compact_string(b, o.name)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_ListOffsetsResponse_ListOffsetsPartitionResponse_v6(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_ListOffsetsResponse_v6(o: ListOffsetsResponse, b: bytearray) -> None:
    """Versions 6-11."""
    b += _S_i.pack(o.throttle_time_ms)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_ListOffsetsResponse_ListOffsetsTopicResponse_v6(e_topics, b)
    b.append(0)  # no tagged fields


def _decode_ListOffsetsResponse_ListOffsetsPartitionResponse_v6(
    buf: memoryview, pos: int
) -> tuple[ListOffsetsResponse.ListOffsetsPartitionResponse, int]:
    """Versions 6-11."""
    f_partition_index, f_error_code, f_timestamp, f_offset, f_leader_epoch = _S_ihqqi.unpack_from(
        buf, pos
    )
    pos += 26
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListOffsetsResponse.ListOffsetsPartitionResponse(
        f_partition_index, f_error_code, f_timestamp, f_offset, f_leader_epoch
    ), pos


def _decode_ListOffsetsResponse_ListOffsetsTopicResponse_v6(
    buf: memoryview, pos: int
) -> tuple[ListOffsetsResponse.ListOffsetsTopicResponse, int]:
    """Versions 6-11."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[ListOffsetsResponse.ListOffsetsPartitionResponse]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_ListOffsetsResponse_ListOffsetsPartitionResponse_v6(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListOffsetsResponse.ListOffsetsTopicResponse(f_name, f_partitions), pos


def _decode_ListOffsetsResponse_v6(buf: memoryview, pos: int) -> tuple[ListOffsetsResponse, int]:
    """Versions 6-11."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[ListOffsetsResponse.ListOffsetsTopicResponse]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_ListOffsetsResponse_ListOffsetsTopicResponse_v6(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListOffsetsResponse(f_throttle_time_ms, f_topics), pos


def _encode_ListOffsetsRequest_ListOffsetsPartition_v6(
    o: ListOffsetsRequest.ListOffsetsPartition, b: bytearray
) -> None:
    """Versions 6-11."""
    b += _S_iiq.pack(o.partition_index, o.current_leader_epoch, o.timestamp)
    b.append(0)  # no tagged fields


def _encode_ListOffsetsRequest_ListOffsetsTopic_v6(
    o: ListOffsetsRequest.ListOffsetsTopic, b: bytearray
) -> None:
    """Versions 6-11."""
    write_compact_string(b, o.name)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_ListOffsetsRequest_ListOffsetsPartition_v6(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_ListOffsetsRequest_v6(o: ListOffsetsRequest, b: bytearray) -> None:
    """Versions 6-9."""
    b += _S_ib.pack(o.replica_id, o.isolation_level)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_ListOffsetsRequest_ListOffsetsTopic_v6(e_topics, b)
    b.append(0)  # no tagged fields


def _encode_ListOffsetsRequest_v10(o: ListOffsetsRequest, b: bytearray) -> None:
    """Versions 10-11."""
    b += _S_ib.pack(o.replica_id, o.isolation_level)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_ListOffsetsRequest_ListOffsetsTopic_v6(e_topics, b)
    b += _S_i.pack(o.timeout_ms)
    b.append(0)  # no tagged fields


def _decode_ListOffsetsRequest_ListOffsetsPartition_v6(
    buf: memoryview, pos: int
) -> tuple[ListOffsetsRequest.ListOffsetsPartition, int]:
    """Versions 6-11."""
    f_partition_index, f_current_leader_epoch, f_timestamp = _S_iiq.unpack_from(buf, pos)
    pos += 16
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListOffsetsRequest.ListOffsetsPartition(
        f_partition_index, f_current_leader_epoch, f_timestamp
    ), pos


def _decode_ListOffsetsRequest_ListOffsetsTopic_v6(
    buf: memoryview, pos: int
) -> tuple[ListOffsetsRequest.ListOffsetsTopic, int]:
    """Versions 6-11."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[ListOffsetsRequest.ListOffsetsPartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_ListOffsetsRequest_ListOffsetsPartition_v6(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListOffsetsRequest.ListOffsetsTopic(f_name, f_partitions), pos


def _decode_ListOffsetsRequest_v6(buf: memoryview, pos: int) -> tuple[ListOffsetsRequest, int]:
    """Versions 6-9."""
    f_replica_id, f_isolation_level = _S_ib.unpack_from(buf, pos)
    pos += 5
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[ListOffsetsRequest.ListOffsetsTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_ListOffsetsRequest_ListOffsetsTopic_v6(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListOffsetsRequest(f_replica_id, f_isolation_level, f_topics, 0), pos


def _decode_ListOffsetsRequest_v10(buf: memoryview, pos: int) -> tuple[ListOffsetsRequest, int]:
    """Versions 10-11."""
    f_replica_id, f_isolation_level = _S_ib.unpack_from(buf, pos)
    pos += 5
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[ListOffsetsRequest.ListOffsetsTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_ListOffsetsRequest_ListOffsetsTopic_v6(buf, pos)
        f_topics.append(e_topics)
    (f_timeout_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListOffsetsRequest(f_replica_id, f_isolation_level, f_topics, f_timeout_ms), pos


def _encode_ProduceResponse_BatchIndexAndErrorMessage_v9(
    o: ProduceResponse.BatchIndexAndErrorMessage, b: bytearray
) -> None:
    """Versions 9-13."""
    b += _S_i.pack(o.batch_index)
    write_compact_nullable_string(b, o.batch_index_error_message)
    b.append(0)  # no tagged fields


def _encode_ProduceResponse_PartitionProduceResponse_v9(
    o: ProduceResponse.PartitionProduceResponse, b: bytearray
) -> None:
    """Versions 9."""
    if o.current_leader != ProduceResponse.LeaderIdAndEpoch():
        raise UnsupportedVersionError("ProduceResponse v9: CurrentLeader cannot be carried")
    b += _S_ihqqq.pack(
        o.index, o.error_code, o.base_offset, o.log_append_time_ms, o.log_start_offset
    )
    x_record_errors = o.record_errors
    write_compact_array_length(b, len(x_record_errors))
    for e_record_errors in x_record_errors:
        _encode_ProduceResponse_BatchIndexAndErrorMessage_v9(e_record_errors, b)
    write_compact_nullable_string(b, o.error_message)
    b.append(0)  # no tagged fields


def _encode_ProduceResponse_TopicProduceResponse_v9(
    o: ProduceResponse.TopicProduceResponse, b: bytearray
) -> None:
    """Versions 9."""
    write_compact_string(b, o.name)
    x_partition_responses = o.partition_responses
    write_compact_array_length(b, len(x_partition_responses))
    for e_partition_responses in x_partition_responses:
        _encode_ProduceResponse_PartitionProduceResponse_v9(e_partition_responses, b)
    b.append(0)  # no tagged fields


def _encode_ProduceResponse_v9(o: ProduceResponse, b: bytearray) -> None:
    """Versions 9."""
    if o.node_endpoints != []:
        raise UnsupportedVersionError("ProduceResponse v9: NodeEndpoints cannot be carried")
    x_responses = o.responses
    write_compact_array_length(b, len(x_responses))
    for e_responses in x_responses:
        _encode_ProduceResponse_TopicProduceResponse_v9(e_responses, b)
    b += _S_i.pack(o.throttle_time_ms)
    b.append(0)  # no tagged fields


def _encode_ProduceResponse_LeaderIdAndEpoch_v10(
    o: ProduceResponse.LeaderIdAndEpoch, b: bytearray
) -> None:
    """Versions 10-13."""
    b += _S_ii.pack(o.leader_id, o.leader_epoch)
    b.append(0)  # no tagged fields


def _encode_ProduceResponse_PartitionProduceResponse_v10(
    o: ProduceResponse.PartitionProduceResponse, b: bytearray
) -> None:
    """Versions 10-13."""
    b += _S_ihqqq.pack(
        o.index, o.error_code, o.base_offset, o.log_append_time_ms, o.log_start_offset
    )
    x_record_errors = o.record_errors
    write_compact_array_length(b, len(x_record_errors))
    for e_record_errors in x_record_errors:
        _encode_ProduceResponse_BatchIndexAndErrorMessage_v9(e_record_errors, b)
    write_compact_nullable_string(b, o.error_message)
    tagged: list[tuple[int, Buffer]] = []
    if o.current_leader != ProduceResponse.LeaderIdAndEpoch():
        t = bytearray()
        _encode_ProduceResponse_LeaderIdAndEpoch_v10(o.current_leader, t)
        tagged.append((0, t))
    write_tagged_fields(b, tagged)


def _encode_ProduceResponse_TopicProduceResponse_v10(
    o: ProduceResponse.TopicProduceResponse, b: bytearray
) -> None:
    """Versions 10-12."""
    write_compact_string(b, o.name)
    x_partition_responses = o.partition_responses
    write_compact_array_length(b, len(x_partition_responses))
    for e_partition_responses in x_partition_responses:
        _encode_ProduceResponse_PartitionProduceResponse_v10(e_partition_responses, b)
    b.append(0)  # no tagged fields


def _encode_ProduceResponse_NodeEndpoint_v10(o: ProduceResponse.NodeEndpoint, b: bytearray) -> None:
    """Versions 10-13."""
    b += _S_i.pack(o.node_id)
    write_compact_string(b, o.host)
    b += _S_i.pack(o.port)
    write_compact_nullable_string(b, o.rack)
    b.append(0)  # no tagged fields


def _encode_ProduceResponse_v10(o: ProduceResponse, b: bytearray) -> None:
    """Versions 10-12."""
    x_responses = o.responses
    write_compact_array_length(b, len(x_responses))
    for e_responses in x_responses:
        _encode_ProduceResponse_TopicProduceResponse_v10(e_responses, b)
    b += _S_i.pack(o.throttle_time_ms)
    tagged: list[tuple[int, Buffer]] = []
    if o.node_endpoints != []:
        t = bytearray()
        x_node_endpoints = o.node_endpoints
        write_compact_array_length(t, len(x_node_endpoints))
        for e_node_endpoints in x_node_endpoints:
            _encode_ProduceResponse_NodeEndpoint_v10(e_node_endpoints, t)
        tagged.append((0, t))
    write_tagged_fields(b, tagged)


def _encode_ProduceResponse_TopicProduceResponse_v13(
    o: ProduceResponse.TopicProduceResponse, b: bytearray
) -> None:
    """Versions 13."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partition_responses = o.partition_responses
    write_compact_array_length(b, len(x_partition_responses))
    for e_partition_responses in x_partition_responses:
        _encode_ProduceResponse_PartitionProduceResponse_v10(e_partition_responses, b)
    b.append(0)  # no tagged fields


def _encode_ProduceResponse_v13(o: ProduceResponse, b: bytearray) -> None:
    """Versions 13."""
    x_responses = o.responses
    write_compact_array_length(b, len(x_responses))
    for e_responses in x_responses:
        _encode_ProduceResponse_TopicProduceResponse_v13(e_responses, b)
    b += _S_i.pack(o.throttle_time_ms)
    tagged: list[tuple[int, Buffer]] = []
    if o.node_endpoints != []:
        t = bytearray()
        x_node_endpoints = o.node_endpoints
        write_compact_array_length(t, len(x_node_endpoints))
        for e_node_endpoints in x_node_endpoints:
            _encode_ProduceResponse_NodeEndpoint_v10(e_node_endpoints, t)
        tagged.append((0, t))
    write_tagged_fields(b, tagged)


def _decode_ProduceResponse_BatchIndexAndErrorMessage_v9(
    buf: memoryview, pos: int
) -> tuple[ProduceResponse.BatchIndexAndErrorMessage, int]:
    """Versions 9-13."""
    (f_batch_index,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_batch_index_error_message, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ProduceResponse.BatchIndexAndErrorMessage(
        f_batch_index, f_batch_index_error_message
    ), pos


def _decode_ProduceResponse_PartitionProduceResponse_v9(
    buf: memoryview, pos: int
) -> tuple[ProduceResponse.PartitionProduceResponse, int]:
    """Versions 9."""
    f_index, f_error_code, f_base_offset, f_log_append_time_ms, f_log_start_offset = (
        _S_ihqqq.unpack_from(buf, pos)
    )
    pos += 30
    n, pos = read_compact_array_length(buf, pos)
    f_record_errors: list[ProduceResponse.BatchIndexAndErrorMessage]
    if n < 0:
        raise DecodeError("RecordErrors: null where it is not nullable")
    f_record_errors = []
    for _ in range(n):
        e_record_errors, pos = _decode_ProduceResponse_BatchIndexAndErrorMessage_v9(buf, pos)
        f_record_errors.append(e_record_errors)
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ProduceResponse.PartitionProduceResponse(
        f_index,
        f_error_code,
        f_base_offset,
        f_log_append_time_ms,
        f_log_start_offset,
        f_record_errors,
        f_error_message,
        ProduceResponse.LeaderIdAndEpoch(),
    ), pos


def _decode_ProduceResponse_TopicProduceResponse_v9(
    buf: memoryview, pos: int
) -> tuple[ProduceResponse.TopicProduceResponse, int]:
    """Versions 9."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partition_responses: list[ProduceResponse.PartitionProduceResponse]
    if n < 0:
        raise DecodeError("PartitionResponses: null where it is not nullable")
    f_partition_responses = []
    for _ in range(n):
        e_partition_responses, pos = _decode_ProduceResponse_PartitionProduceResponse_v9(buf, pos)
        f_partition_responses.append(e_partition_responses)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ProduceResponse.TopicProduceResponse(f_name, ZERO_UUID, f_partition_responses), pos


def _decode_ProduceResponse_v9(buf: memoryview, pos: int) -> tuple[ProduceResponse, int]:
    """Versions 9."""
    n, pos = read_compact_array_length(buf, pos)
    f_responses: list[ProduceResponse.TopicProduceResponse]
    if n < 0:
        raise DecodeError("Responses: null where it is not nullable")
    f_responses = []
    for _ in range(n):
        e_responses, pos = _decode_ProduceResponse_TopicProduceResponse_v9(buf, pos)
        f_responses.append(e_responses)
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ProduceResponse(f_responses, f_throttle_time_ms, []), pos


def _decode_ProduceResponse_LeaderIdAndEpoch_v10(
    buf: memoryview, pos: int
) -> tuple[ProduceResponse.LeaderIdAndEpoch, int]:
    """Versions 10-13."""
    f_leader_id, f_leader_epoch = _S_ii.unpack_from(buf, pos)
    pos += 8
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ProduceResponse.LeaderIdAndEpoch(f_leader_id, f_leader_epoch), pos


def _decode_ProduceResponse_PartitionProduceResponse_v10(
    buf: memoryview, pos: int
) -> tuple[ProduceResponse.PartitionProduceResponse, int]:
    """Versions 10-13."""
    f_index, f_error_code, f_base_offset, f_log_append_time_ms, f_log_start_offset = (
        _S_ihqqq.unpack_from(buf, pos)
    )
    pos += 30
    n, pos = read_compact_array_length(buf, pos)
    f_record_errors: list[ProduceResponse.BatchIndexAndErrorMessage]
    if n < 0:
        raise DecodeError("RecordErrors: null where it is not nullable")
    f_record_errors = []
    for _ in range(n):
        e_record_errors, pos = _decode_ProduceResponse_BatchIndexAndErrorMessage_v9(buf, pos)
        f_record_errors.append(e_record_errors)
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    f_current_leader: ProduceResponse.LeaderIdAndEpoch = ProduceResponse.LeaderIdAndEpoch()
    if buf[pos]:
        n_tags, pos = read_unsigned_varint(buf, pos)
        for _ in range(n_tags):
            tag, pos, end = read_tag_header(buf, pos)
            if tag == 0:
                f_current_leader, pos = _decode_ProduceResponse_LeaderIdAndEpoch_v10(buf, pos)
            pos = end
    else:
        pos += 1
    return ProduceResponse.PartitionProduceResponse(
        f_index,
        f_error_code,
        f_base_offset,
        f_log_append_time_ms,
        f_log_start_offset,
        f_record_errors,
        f_error_message,
        f_current_leader,
    ), pos


def _decode_ProduceResponse_TopicProduceResponse_v10(
    buf: memoryview, pos: int
) -> tuple[ProduceResponse.TopicProduceResponse, int]:
    """Versions 10-12."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partition_responses: list[ProduceResponse.PartitionProduceResponse]
    if n < 0:
        raise DecodeError("PartitionResponses: null where it is not nullable")
    f_partition_responses = []
    for _ in range(n):
        e_partition_responses, pos = _decode_ProduceResponse_PartitionProduceResponse_v10(buf, pos)
        f_partition_responses.append(e_partition_responses)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ProduceResponse.TopicProduceResponse(f_name, ZERO_UUID, f_partition_responses), pos


def _decode_ProduceResponse_NodeEndpoint_v10(
    buf: memoryview, pos: int
) -> tuple[ProduceResponse.NodeEndpoint, int]:
    """Versions 10-13."""
    (f_node_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_host, pos = read_compact_string(buf, pos)
    (f_port,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_rack, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ProduceResponse.NodeEndpoint(f_node_id, f_host, f_port, f_rack), pos


def _decode_ProduceResponse_v10(buf: memoryview, pos: int) -> tuple[ProduceResponse, int]:
    """Versions 10-12."""
    n, pos = read_compact_array_length(buf, pos)
    f_responses: list[ProduceResponse.TopicProduceResponse]
    if n < 0:
        raise DecodeError("Responses: null where it is not nullable")
    f_responses = []
    for _ in range(n):
        e_responses, pos = _decode_ProduceResponse_TopicProduceResponse_v10(buf, pos)
        f_responses.append(e_responses)
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_node_endpoints: list[ProduceResponse.NodeEndpoint] = []
    if buf[pos]:
        n_tags, pos = read_unsigned_varint(buf, pos)
        for _ in range(n_tags):
            tag, pos, end = read_tag_header(buf, pos)
            if tag == 0:
                n, pos = read_compact_array_length(buf, pos)
                if n < 0:
                    raise DecodeError("NodeEndpoints: null where it is not nullable")
                f_node_endpoints = []
                for _ in range(n):
                    e_node_endpoints, pos = _decode_ProduceResponse_NodeEndpoint_v10(buf, pos)
                    f_node_endpoints.append(e_node_endpoints)
            pos = end
    else:
        pos += 1
    return ProduceResponse(f_responses, f_throttle_time_ms, f_node_endpoints), pos


def _decode_ProduceResponse_TopicProduceResponse_v13(
    buf: memoryview, pos: int
) -> tuple[ProduceResponse.TopicProduceResponse, int]:
    """Versions 13."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partition_responses: list[ProduceResponse.PartitionProduceResponse]
    if n < 0:
        raise DecodeError("PartitionResponses: null where it is not nullable")
    f_partition_responses = []
    for _ in range(n):
        e_partition_responses, pos = _decode_ProduceResponse_PartitionProduceResponse_v10(buf, pos)
        f_partition_responses.append(e_partition_responses)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ProduceResponse.TopicProduceResponse("", f_topic_id, f_partition_responses), pos


def _decode_ProduceResponse_v13(buf: memoryview, pos: int) -> tuple[ProduceResponse, int]:
    """Versions 13."""
    n, pos = read_compact_array_length(buf, pos)
    f_responses: list[ProduceResponse.TopicProduceResponse]
    if n < 0:
        raise DecodeError("Responses: null where it is not nullable")
    f_responses = []
    for _ in range(n):
        e_responses, pos = _decode_ProduceResponse_TopicProduceResponse_v13(buf, pos)
        f_responses.append(e_responses)
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_node_endpoints: list[ProduceResponse.NodeEndpoint] = []
    if buf[pos]:
        n_tags, pos = read_unsigned_varint(buf, pos)
        for _ in range(n_tags):
            tag, pos, end = read_tag_header(buf, pos)
            if tag == 0:
                n, pos = read_compact_array_length(buf, pos)
                if n < 0:
                    raise DecodeError("NodeEndpoints: null where it is not nullable")
                f_node_endpoints = []
                for _ in range(n):
                    e_node_endpoints, pos = _decode_ProduceResponse_NodeEndpoint_v10(buf, pos)
                    f_node_endpoints.append(e_node_endpoints)
            pos = end
    else:
        pos += 1
    return ProduceResponse(f_responses, f_throttle_time_ms, f_node_endpoints), pos


def _encode_ProduceRequest_PartitionProduceData_v9(
    o: ProduceRequest.PartitionProduceData, b: bytearray
) -> None:
    """Versions 9-13."""
    b += _S_i.pack(o.index)
    write_compact_nullable_bytes(b, o.records)
    b.append(0)  # no tagged fields


def _encode_ProduceRequest_TopicProduceData_v9(
    o: ProduceRequest.TopicProduceData, b: bytearray
) -> None:
    """Versions 9-12."""
    write_compact_string(b, o.name)
    x_partition_data = o.partition_data
    write_compact_array_length(b, len(x_partition_data))
    for e_partition_data in x_partition_data:
        _encode_ProduceRequest_PartitionProduceData_v9(e_partition_data, b)
    b.append(0)  # no tagged fields


def _encode_ProduceRequest_v9(o: ProduceRequest, b: bytearray) -> None:
    """Versions 9-12."""
    write_compact_nullable_string(b, o.transactional_id)
    b += _S_hi.pack(o.acks, o.timeout_ms)
    x_topic_data = o.topic_data
    write_compact_array_length(b, len(x_topic_data))
    for e_topic_data in x_topic_data:
        _encode_ProduceRequest_TopicProduceData_v9(e_topic_data, b)
    b.append(0)  # no tagged fields


def _encode_ProduceRequest_TopicProduceData_v13(
    o: ProduceRequest.TopicProduceData, b: bytearray
) -> None:
    """Versions 13."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partition_data = o.partition_data
    write_compact_array_length(b, len(x_partition_data))
    for e_partition_data in x_partition_data:
        _encode_ProduceRequest_PartitionProduceData_v9(e_partition_data, b)
    b.append(0)  # no tagged fields


def _encode_ProduceRequest_v13(o: ProduceRequest, b: bytearray) -> None:
    """Versions 13."""
    write_compact_nullable_string(b, o.transactional_id)
    b += _S_hi.pack(o.acks, o.timeout_ms)
    x_topic_data = o.topic_data
    write_compact_array_length(b, len(x_topic_data))
    for e_topic_data in x_topic_data:
        _encode_ProduceRequest_TopicProduceData_v13(e_topic_data, b)
    b.append(0)  # no tagged fields


def _decode_ProduceRequest_PartitionProduceData_v9(
    buf: memoryview, pos: int
) -> tuple[ProduceRequest.PartitionProduceData, int]:
    """Versions 9-13."""
    (f_index,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_records, pos = read_compact_nullable_records(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ProduceRequest.PartitionProduceData(f_index, f_records), pos


def _decode_ProduceRequest_TopicProduceData_v9(
    buf: memoryview, pos: int
) -> tuple[ProduceRequest.TopicProduceData, int]:
    """Versions 9-12."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partition_data: list[ProduceRequest.PartitionProduceData]
    if n < 0:
        raise DecodeError("PartitionData: null where it is not nullable")
    f_partition_data = []
    for _ in range(n):
        e_partition_data, pos = _decode_ProduceRequest_PartitionProduceData_v9(buf, pos)
        f_partition_data.append(e_partition_data)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ProduceRequest.TopicProduceData(f_name, ZERO_UUID, f_partition_data), pos


def _decode_ProduceRequest_v9(buf: memoryview, pos: int) -> tuple[ProduceRequest, int]:
    """Versions 9-12."""
    f_transactional_id, pos = read_compact_nullable_string(buf, pos)
    f_acks, f_timeout_ms = _S_hi.unpack_from(buf, pos)
    pos += 6
    n, pos = read_compact_array_length(buf, pos)
    f_topic_data: list[ProduceRequest.TopicProduceData]
    if n < 0:
        raise DecodeError("TopicData: null where it is not nullable")
    f_topic_data = []
    for _ in range(n):
        e_topic_data, pos = _decode_ProduceRequest_TopicProduceData_v9(buf, pos)
        f_topic_data.append(e_topic_data)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ProduceRequest(f_transactional_id, f_acks, f_timeout_ms, f_topic_data), pos


def _decode_ProduceRequest_TopicProduceData_v13(
    buf: memoryview, pos: int
) -> tuple[ProduceRequest.TopicProduceData, int]:
    """Versions 13."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partition_data: list[ProduceRequest.PartitionProduceData]
    if n < 0:
        raise DecodeError("PartitionData: null where it is not nullable")
    f_partition_data = []
    for _ in range(n):
        e_partition_data, pos = _decode_ProduceRequest_PartitionProduceData_v9(buf, pos)
        f_partition_data.append(e_partition_data)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ProduceRequest.TopicProduceData("", f_topic_id, f_partition_data), pos


def _decode_ProduceRequest_v13(buf: memoryview, pos: int) -> tuple[ProduceRequest, int]:
    """Versions 13."""
    f_transactional_id, pos = read_compact_nullable_string(buf, pos)
    f_acks, f_timeout_ms = _S_hi.unpack_from(buf, pos)
    pos += 6
    n, pos = read_compact_array_length(buf, pos)
    f_topic_data: list[ProduceRequest.TopicProduceData]
    if n < 0:
        raise DecodeError("TopicData: null where it is not nullable")
    f_topic_data = []
    for _ in range(n):
        e_topic_data, pos = _decode_ProduceRequest_TopicProduceData_v13(buf, pos)
        f_topic_data.append(e_topic_data)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ProduceRequest(f_transactional_id, f_acks, f_timeout_ms, f_topic_data), pos


def _encode_FetchResponse_AbortedTransaction_v12(
    o: FetchResponse.AbortedTransaction, b: bytearray
) -> None:
    """Versions 12-18."""
    b += _S_qq.pack(o.producer_id, o.first_offset)
    b.append(0)  # no tagged fields


def _encode_FetchResponse_EpochEndOffset_v12(o: FetchResponse.EpochEndOffset, b: bytearray) -> None:
    """Versions 12-18."""
    b += _S_iq.pack(o.epoch, o.end_offset)
    b.append(0)  # no tagged fields


def _encode_FetchResponse_LeaderIdAndEpoch_v12(
    o: FetchResponse.LeaderIdAndEpoch, b: bytearray
) -> None:
    """Versions 12-18."""
    b += _S_ii.pack(o.leader_id, o.leader_epoch)
    b.append(0)  # no tagged fields


def _encode_FetchResponse_SnapshotId_v12(o: FetchResponse.SnapshotId, b: bytearray) -> None:
    """Versions 12-18."""
    b += _S_qi.pack(o.end_offset, o.epoch)
    b.append(0)  # no tagged fields


def _encode_FetchResponse_PartitionData_v12(o: FetchResponse.PartitionData, b: bytearray) -> None:
    """Versions 12-18."""
    b += _S_ihqqq.pack(
        o.partition_index, o.error_code, o.high_watermark, o.last_stable_offset, o.log_start_offset
    )
    x_aborted_transactions = o.aborted_transactions
    write_compact_array_length(
        b, None if x_aborted_transactions is None else len(x_aborted_transactions)
    )
    if x_aborted_transactions is not None:
        for e_aborted_transactions in x_aborted_transactions:
            _encode_FetchResponse_AbortedTransaction_v12(e_aborted_transactions, b)
    b += _S_i.pack(o.preferred_read_replica)
    write_compact_nullable_bytes(b, o.records)
    tagged: list[tuple[int, Buffer]] = []
    if o.diverging_epoch != FetchResponse.EpochEndOffset():
        t = bytearray()
        _encode_FetchResponse_EpochEndOffset_v12(o.diverging_epoch, t)
        tagged.append((0, t))
    if o.current_leader != FetchResponse.LeaderIdAndEpoch():
        t = bytearray()
        _encode_FetchResponse_LeaderIdAndEpoch_v12(o.current_leader, t)
        tagged.append((1, t))
    if o.snapshot_id != FetchResponse.SnapshotId():
        t = bytearray()
        _encode_FetchResponse_SnapshotId_v12(o.snapshot_id, t)
        tagged.append((2, t))
    write_tagged_fields(b, tagged)


def _encode_FetchResponse_FetchableTopicResponse_v12(
    o: FetchResponse.FetchableTopicResponse, b: bytearray
) -> None:
    """Versions 12."""
    write_compact_string(b, o.topic)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_FetchResponse_PartitionData_v12(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_FetchResponse_v12(o: FetchResponse, b: bytearray) -> None:
    """Versions 12."""
    if o.node_endpoints != []:
        raise UnsupportedVersionError("FetchResponse v12: NodeEndpoints cannot be carried")
    b += _S_ihi.pack(o.throttle_time_ms, o.error_code, o.session_id)
    x_responses = o.responses
    write_compact_array_length(b, len(x_responses))
    for e_responses in x_responses:
        _encode_FetchResponse_FetchableTopicResponse_v12(e_responses, b)
    b.append(0)  # no tagged fields


def _encode_FetchResponse_FetchableTopicResponse_v13(
    o: FetchResponse.FetchableTopicResponse, b: bytearray
) -> None:
    """Versions 13-18."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_FetchResponse_PartitionData_v12(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_FetchResponse_v13(o: FetchResponse, b: bytearray) -> None:
    """Versions 13-15."""
    if o.node_endpoints != []:
        raise UnsupportedVersionError("FetchResponse v13: NodeEndpoints cannot be carried")
    b += _S_ihi.pack(o.throttle_time_ms, o.error_code, o.session_id)
    x_responses = o.responses
    write_compact_array_length(b, len(x_responses))
    for e_responses in x_responses:
        _encode_FetchResponse_FetchableTopicResponse_v13(e_responses, b)
    b.append(0)  # no tagged fields


def _encode_FetchResponse_NodeEndpoint_v16(o: FetchResponse.NodeEndpoint, b: bytearray) -> None:
    """Versions 16-18."""
    b += _S_i.pack(o.node_id)
    write_compact_string(b, o.host)
    b += _S_i.pack(o.port)
    write_compact_nullable_string(b, o.rack)
    b.append(0)  # no tagged fields


def _encode_FetchResponse_v16(o: FetchResponse, b: bytearray) -> None:
    """Versions 16-18."""
    b += _S_ihi.pack(o.throttle_time_ms, o.error_code, o.session_id)
    x_responses = o.responses
    write_compact_array_length(b, len(x_responses))
    for e_responses in x_responses:
        _encode_FetchResponse_FetchableTopicResponse_v13(e_responses, b)
    tagged: list[tuple[int, Buffer]] = []
    if o.node_endpoints != []:
        t = bytearray()
        x_node_endpoints = o.node_endpoints
        write_compact_array_length(t, len(x_node_endpoints))
        for e_node_endpoints in x_node_endpoints:
            _encode_FetchResponse_NodeEndpoint_v16(e_node_endpoints, t)
        tagged.append((0, t))
    write_tagged_fields(b, tagged)


def _decode_FetchResponse_AbortedTransaction_v12(
    buf: memoryview, pos: int
) -> tuple[FetchResponse.AbortedTransaction, int]:
    """Versions 12-18."""
    f_producer_id, f_first_offset = _S_qq.unpack_from(buf, pos)
    pos += 16
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FetchResponse.AbortedTransaction(f_producer_id, f_first_offset), pos


def _decode_FetchResponse_EpochEndOffset_v12(
    buf: memoryview, pos: int
) -> tuple[FetchResponse.EpochEndOffset, int]:
    """Versions 12-18."""
    f_epoch, f_end_offset = _S_iq.unpack_from(buf, pos)
    pos += 12
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FetchResponse.EpochEndOffset(f_epoch, f_end_offset), pos


def _decode_FetchResponse_LeaderIdAndEpoch_v12(
    buf: memoryview, pos: int
) -> tuple[FetchResponse.LeaderIdAndEpoch, int]:
    """Versions 12-18."""
    f_leader_id, f_leader_epoch = _S_ii.unpack_from(buf, pos)
    pos += 8
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FetchResponse.LeaderIdAndEpoch(f_leader_id, f_leader_epoch), pos


def _decode_FetchResponse_SnapshotId_v12(
    buf: memoryview, pos: int
) -> tuple[FetchResponse.SnapshotId, int]:
    """Versions 12-18."""
    f_end_offset, f_epoch = _S_qi.unpack_from(buf, pos)
    pos += 12
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FetchResponse.SnapshotId(f_end_offset, f_epoch), pos


def _decode_FetchResponse_PartitionData_v12(
    buf: memoryview, pos: int
) -> tuple[FetchResponse.PartitionData, int]:
    """Versions 12-18."""
    f_partition_index, f_error_code, f_high_watermark, f_last_stable_offset, f_log_start_offset = (
        _S_ihqqq.unpack_from(buf, pos)
    )
    pos += 30
    n, pos = read_compact_array_length(buf, pos)
    f_aborted_transactions: list[FetchResponse.AbortedTransaction] | None
    if n < 0:
        f_aborted_transactions = None
    else:
        f_aborted_transactions = []
        for _ in range(n):
            e_aborted_transactions, pos = _decode_FetchResponse_AbortedTransaction_v12(buf, pos)
            f_aborted_transactions.append(e_aborted_transactions)
    (f_preferred_read_replica,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_records, pos = read_compact_nullable_records(buf, pos)
    f_diverging_epoch: FetchResponse.EpochEndOffset = FetchResponse.EpochEndOffset()
    f_current_leader: FetchResponse.LeaderIdAndEpoch = FetchResponse.LeaderIdAndEpoch()
    f_snapshot_id: FetchResponse.SnapshotId = FetchResponse.SnapshotId()
    if buf[pos]:
        n_tags, pos = read_unsigned_varint(buf, pos)
        for _ in range(n_tags):
            tag, pos, end = read_tag_header(buf, pos)
            if tag == 0:
                f_diverging_epoch, pos = _decode_FetchResponse_EpochEndOffset_v12(buf, pos)
            elif tag == 1:
                f_current_leader, pos = _decode_FetchResponse_LeaderIdAndEpoch_v12(buf, pos)
            elif tag == 2:
                f_snapshot_id, pos = _decode_FetchResponse_SnapshotId_v12(buf, pos)
            pos = end
    else:
        pos += 1
    return FetchResponse.PartitionData(
        f_partition_index,
        f_error_code,
        f_high_watermark,
        f_last_stable_offset,
        f_log_start_offset,
        f_diverging_epoch,
        f_current_leader,
        f_snapshot_id,
        f_aborted_transactions,
        f_preferred_read_replica,
        f_records,
    ), pos


def _decode_FetchResponse_FetchableTopicResponse_v12(
    buf: memoryview, pos: int
) -> tuple[FetchResponse.FetchableTopicResponse, int]:
    """Versions 12."""
    f_topic, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[FetchResponse.PartitionData]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_FetchResponse_PartitionData_v12(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FetchResponse.FetchableTopicResponse(f_topic, ZERO_UUID, f_partitions), pos


def _decode_FetchResponse_v12(buf: memoryview, pos: int) -> tuple[FetchResponse, int]:
    """Versions 12."""
    f_throttle_time_ms, f_error_code, f_session_id = _S_ihi.unpack_from(buf, pos)
    pos += 10
    n, pos = read_compact_array_length(buf, pos)
    f_responses: list[FetchResponse.FetchableTopicResponse]
    if n < 0:
        raise DecodeError("Responses: null where it is not nullable")
    f_responses = []
    for _ in range(n):
        e_responses, pos = _decode_FetchResponse_FetchableTopicResponse_v12(buf, pos)
        f_responses.append(e_responses)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FetchResponse(f_throttle_time_ms, f_error_code, f_session_id, f_responses, []), pos


def _decode_FetchResponse_FetchableTopicResponse_v13(
    buf: memoryview, pos: int
) -> tuple[FetchResponse.FetchableTopicResponse, int]:
    """Versions 13-18."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[FetchResponse.PartitionData]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_FetchResponse_PartitionData_v12(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FetchResponse.FetchableTopicResponse("", f_topic_id, f_partitions), pos


def _decode_FetchResponse_v13(buf: memoryview, pos: int) -> tuple[FetchResponse, int]:
    """Versions 13-15."""
    f_throttle_time_ms, f_error_code, f_session_id = _S_ihi.unpack_from(buf, pos)
    pos += 10
    n, pos = read_compact_array_length(buf, pos)
    f_responses: list[FetchResponse.FetchableTopicResponse]
    if n < 0:
        raise DecodeError("Responses: null where it is not nullable")
    f_responses = []
    for _ in range(n):
        e_responses, pos = _decode_FetchResponse_FetchableTopicResponse_v13(buf, pos)
        f_responses.append(e_responses)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FetchResponse(f_throttle_time_ms, f_error_code, f_session_id, f_responses, []), pos


def _decode_FetchResponse_NodeEndpoint_v16(
    buf: memoryview, pos: int
) -> tuple[FetchResponse.NodeEndpoint, int]:
    """Versions 16-18."""
    (f_node_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_host, pos = read_compact_string(buf, pos)
    (f_port,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_rack, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FetchResponse.NodeEndpoint(f_node_id, f_host, f_port, f_rack), pos


def _decode_FetchResponse_v16(buf: memoryview, pos: int) -> tuple[FetchResponse, int]:
    """Versions 16-18."""
    f_throttle_time_ms, f_error_code, f_session_id = _S_ihi.unpack_from(buf, pos)
    pos += 10
    n, pos = read_compact_array_length(buf, pos)
    f_responses: list[FetchResponse.FetchableTopicResponse]
    if n < 0:
        raise DecodeError("Responses: null where it is not nullable")
    f_responses = []
    for _ in range(n):
        e_responses, pos = _decode_FetchResponse_FetchableTopicResponse_v13(buf, pos)
        f_responses.append(e_responses)
    f_node_endpoints: list[FetchResponse.NodeEndpoint] = []
    if buf[pos]:
        n_tags, pos = read_unsigned_varint(buf, pos)
        for _ in range(n_tags):
            tag, pos, end = read_tag_header(buf, pos)
            if tag == 0:
                n, pos = read_compact_array_length(buf, pos)
                if n < 0:
                    raise DecodeError("NodeEndpoints: null where it is not nullable")
                f_node_endpoints = []
                for _ in range(n):
                    e_node_endpoints, pos = _decode_FetchResponse_NodeEndpoint_v16(buf, pos)
                    f_node_endpoints.append(e_node_endpoints)
            pos = end
    else:
        pos += 1
    return FetchResponse(
        f_throttle_time_ms, f_error_code, f_session_id, f_responses, f_node_endpoints
    ), pos


def _encode_FetchRequest_FetchPartition_v12(o: FetchRequest.FetchPartition, b: bytearray) -> None:
    """Versions 12-16."""
    b += _S_iiqiqi.pack(
        o.partition,
        o.current_leader_epoch,
        o.fetch_offset,
        o.last_fetched_epoch,
        o.log_start_offset,
        o.partition_max_bytes,
    )
    b.append(0)  # no tagged fields


def _encode_FetchRequest_FetchTopic_v12(o: FetchRequest.FetchTopic, b: bytearray) -> None:
    """Versions 12."""
    write_compact_string(b, o.topic)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_FetchRequest_FetchPartition_v12(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_FetchRequest_ForgottenTopic_v12(o: FetchRequest.ForgottenTopic, b: bytearray) -> None:
    """Versions 12."""
    write_compact_string(b, o.topic)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    write_number_array(b, "i", x_partitions)
    b.append(0)  # no tagged fields


def _encode_FetchRequest_v12(o: FetchRequest, b: bytearray) -> None:
    """Versions 12."""
    if o.replica_state != FetchRequest.ReplicaState():
        raise UnsupportedVersionError("FetchRequest v12: ReplicaState cannot be carried")
    b += _S_iiiibii.pack(
        o.replica_id,
        o.max_wait_ms,
        o.min_bytes,
        o.max_bytes,
        o.isolation_level,
        o.session_id,
        o.session_epoch,
    )
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_FetchRequest_FetchTopic_v12(e_topics, b)
    x_forgotten_topics_data = o.forgotten_topics_data
    write_compact_array_length(b, len(x_forgotten_topics_data))
    for e_forgotten_topics_data in x_forgotten_topics_data:
        _encode_FetchRequest_ForgottenTopic_v12(e_forgotten_topics_data, b)
    write_compact_string(b, o.rack_id)
    tagged: list[tuple[int, Buffer]] = []
    if o.cluster_id is not None:
        t = bytearray()
        write_compact_nullable_string(t, o.cluster_id)
        tagged.append((0, t))
    write_tagged_fields(b, tagged)


def _encode_FetchRequest_FetchTopic_v13(o: FetchRequest.FetchTopic, b: bytearray) -> None:
    """Versions 13-16."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_FetchRequest_FetchPartition_v12(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_FetchRequest_ForgottenTopic_v13(o: FetchRequest.ForgottenTopic, b: bytearray) -> None:
    """Versions 13-18."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    write_number_array(b, "i", x_partitions)
    b.append(0)  # no tagged fields


def _encode_FetchRequest_v13(o: FetchRequest, b: bytearray) -> None:
    """Versions 13-14."""
    if o.replica_state != FetchRequest.ReplicaState():
        raise UnsupportedVersionError("FetchRequest v13: ReplicaState cannot be carried")
    b += _S_iiiibii.pack(
        o.replica_id,
        o.max_wait_ms,
        o.min_bytes,
        o.max_bytes,
        o.isolation_level,
        o.session_id,
        o.session_epoch,
    )
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_FetchRequest_FetchTopic_v13(e_topics, b)
    x_forgotten_topics_data = o.forgotten_topics_data
    write_compact_array_length(b, len(x_forgotten_topics_data))
    for e_forgotten_topics_data in x_forgotten_topics_data:
        _encode_FetchRequest_ForgottenTopic_v13(e_forgotten_topics_data, b)
    write_compact_string(b, o.rack_id)
    tagged: list[tuple[int, Buffer]] = []
    if o.cluster_id is not None:
        t = bytearray()
        write_compact_nullable_string(t, o.cluster_id)
        tagged.append((0, t))
    write_tagged_fields(b, tagged)


def _encode_FetchRequest_ReplicaState_v15(o: FetchRequest.ReplicaState, b: bytearray) -> None:
    """Versions 15-18."""
    b += _S_iq.pack(o.replica_id, o.replica_epoch)
    b.append(0)  # no tagged fields


def _encode_FetchRequest_v15(o: FetchRequest, b: bytearray) -> None:
    """Versions 15-16."""
    if o.replica_id != -1:
        raise UnsupportedVersionError("FetchRequest v15: ReplicaId cannot be carried")
    b += _S_iiibii.pack(
        o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch
    )
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_FetchRequest_FetchTopic_v13(e_topics, b)
    x_forgotten_topics_data = o.forgotten_topics_data
    write_compact_array_length(b, len(x_forgotten_topics_data))
    for e_forgotten_topics_data in x_forgotten_topics_data:
        _encode_FetchRequest_ForgottenTopic_v13(e_forgotten_topics_data, b)
    write_compact_string(b, o.rack_id)
    tagged: list[tuple[int, Buffer]] = []
    if o.cluster_id is not None:
        t = bytearray()
        write_compact_nullable_string(t, o.cluster_id)
        tagged.append((0, t))
    if o.replica_state != FetchRequest.ReplicaState():
        t = bytearray()
        _encode_FetchRequest_ReplicaState_v15(o.replica_state, t)
        tagged.append((1, t))
    write_tagged_fields(b, tagged)


def _encode_FetchRequest_FetchPartition_v17(o: FetchRequest.FetchPartition, b: bytearray) -> None:
    """Versions 17."""
    b += _S_iiqiqi.pack(
        o.partition,
        o.current_leader_epoch,
        o.fetch_offset,
        o.last_fetched_epoch,
        o.log_start_offset,
        o.partition_max_bytes,
    )
    tagged: list[tuple[int, Buffer]] = []
    if o.replica_directory_id != ZERO_UUID:
        t = bytearray()
        t += _S_u.pack(o.replica_directory_id.bytes)
        tagged.append((0, t))
    write_tagged_fields(b, tagged)


def _encode_FetchRequest_FetchTopic_v17(o: FetchRequest.FetchTopic, b: bytearray) -> None:
    """Versions 17."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_FetchRequest_FetchPartition_v17(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_FetchRequest_v17(o: FetchRequest, b: bytearray) -> None:
    """Versions 17."""
    if o.replica_id != -1:
        raise UnsupportedVersionError("FetchRequest v17: ReplicaId cannot be carried")
    b += _S_iiibii.pack(
        o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch
    )
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_FetchRequest_FetchTopic_v17(e_topics, b)
    x_forgotten_topics_data = o.forgotten_topics_data
    write_compact_array_length(b, len(x_forgotten_topics_data))
    for e_forgotten_topics_data in x_forgotten_topics_data:
        _encode_FetchRequest_ForgottenTopic_v13(e_forgotten_topics_data, b)
    write_compact_string(b, o.rack_id)
    tagged: list[tuple[int, Buffer]] = []
    if o.cluster_id is not None:
        t = bytearray()
        write_compact_nullable_string(t, o.cluster_id)
        tagged.append((0, t))
    if o.replica_state != FetchRequest.ReplicaState():
        t = bytearray()
        _encode_FetchRequest_ReplicaState_v15(o.replica_state, t)
        tagged.append((1, t))
    write_tagged_fields(b, tagged)


def _encode_FetchRequest_FetchPartition_v18(o: FetchRequest.FetchPartition, b: bytearray) -> None:
    """Versions 18."""
    b += _S_iiqiqi.pack(
        o.partition,
        o.current_leader_epoch,
        o.fetch_offset,
        o.last_fetched_epoch,
        o.log_start_offset,
        o.partition_max_bytes,
    )
    tagged: list[tuple[int, Buffer]] = []
    if o.replica_directory_id != ZERO_UUID:
        t = bytearray()
        t += _S_u.pack(o.replica_directory_id.bytes)
        tagged.append((0, t))
    if o.high_watermark != 9223372036854775807:
        t = bytearray()
        t += _S_q.pack(o.high_watermark)
        tagged.append((1, t))
    write_tagged_fields(b, tagged)


def _encode_FetchRequest_FetchTopic_v18(o: FetchRequest.FetchTopic, b: bytearray) -> None:
    """Versions 18."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_FetchRequest_FetchPartition_v18(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_FetchRequest_v18(o: FetchRequest, b: bytearray) -> None:
    """Versions 18."""
    if o.replica_id != -1:
        raise UnsupportedVersionError("FetchRequest v18: ReplicaId cannot be carried")
    b += _S_iiibii.pack(
        o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch
    )
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_FetchRequest_FetchTopic_v18(e_topics, b)
    x_forgotten_topics_data = o.forgotten_topics_data
    write_compact_array_length(b, len(x_forgotten_topics_data))
    for e_forgotten_topics_data in x_forgotten_topics_data:
        _encode_FetchRequest_ForgottenTopic_v13(e_forgotten_topics_data, b)
    write_compact_string(b, o.rack_id)
    tagged: list[tuple[int, Buffer]] = []
    if o.cluster_id is not None:
        t = bytearray()
        write_compact_nullable_string(t, o.cluster_id)
        tagged.append((0, t))
    if o.replica_state != FetchRequest.ReplicaState():
        t = bytearray()
        _encode_FetchRequest_ReplicaState_v15(o.replica_state, t)
        tagged.append((1, t))
    write_tagged_fields(b, tagged)


def _decode_FetchRequest_FetchPartition_v12(
    buf: memoryview, pos: int
) -> tuple[FetchRequest.FetchPartition, int]:
    """Versions 12-16."""
    (
        f_partition,
        f_current_leader_epoch,
        f_fetch_offset,
        f_last_fetched_epoch,
        f_log_start_offset,
        f_partition_max_bytes,
    ) = _S_iiqiqi.unpack_from(buf, pos)
    pos += 32
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FetchRequest.FetchPartition(
        f_partition,
        f_current_leader_epoch,
        f_fetch_offset,
        f_last_fetched_epoch,
        f_log_start_offset,
        f_partition_max_bytes,
        ZERO_UUID,
        9223372036854775807,
    ), pos


def _decode_FetchRequest_FetchTopic_v12(
    buf: memoryview, pos: int
) -> tuple[FetchRequest.FetchTopic, int]:
    """Versions 12."""
    f_topic, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[FetchRequest.FetchPartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_FetchRequest_FetchPartition_v12(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FetchRequest.FetchTopic(f_topic, ZERO_UUID, f_partitions), pos


def _decode_FetchRequest_ForgottenTopic_v12(
    buf: memoryview, pos: int
) -> tuple[FetchRequest.ForgottenTopic, int]:
    """Versions 12."""
    f_topic, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[int]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions, pos = read_number_array(buf, pos, n, "i", 4)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FetchRequest.ForgottenTopic(f_topic, ZERO_UUID, f_partitions), pos


def _decode_FetchRequest_v12(buf: memoryview, pos: int) -> tuple[FetchRequest, int]:
    """Versions 12."""
    (
        f_replica_id,
        f_max_wait_ms,
        f_min_bytes,
        f_max_bytes,
        f_isolation_level,
        f_session_id,
        f_session_epoch,
    ) = _S_iiiibii.unpack_from(buf, pos)
    pos += 25
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[FetchRequest.FetchTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_FetchRequest_FetchTopic_v12(buf, pos)
        f_topics.append(e_topics)
    n, pos = read_compact_array_length(buf, pos)
    f_forgotten_topics_data: list[FetchRequest.ForgottenTopic]
    if n < 0:
        raise DecodeError("ForgottenTopicsData: null where it is not nullable")
    f_forgotten_topics_data = []
    for _ in range(n):
        e_forgotten_topics_data, pos = _decode_FetchRequest_ForgottenTopic_v12(buf, pos)
        f_forgotten_topics_data.append(e_forgotten_topics_data)
    f_rack_id, pos = read_compact_string(buf, pos)
    f_cluster_id: str | None = None
    if buf[pos]:
        n_tags, pos = read_unsigned_varint(buf, pos)
        for _ in range(n_tags):
            tag, pos, end = read_tag_header(buf, pos)
            if tag == 0:
                f_cluster_id, pos = read_compact_nullable_string(buf, pos)
            pos = end
    else:
        pos += 1
    return FetchRequest(
        f_cluster_id,
        f_replica_id,
        FetchRequest.ReplicaState(),
        f_max_wait_ms,
        f_min_bytes,
        f_max_bytes,
        f_isolation_level,
        f_session_id,
        f_session_epoch,
        f_topics,
        f_forgotten_topics_data,
        f_rack_id,
    ), pos


def _decode_FetchRequest_FetchTopic_v13(
    buf: memoryview, pos: int
) -> tuple[FetchRequest.FetchTopic, int]:
    """Versions 13-16."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[FetchRequest.FetchPartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_FetchRequest_FetchPartition_v12(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FetchRequest.FetchTopic("", f_topic_id, f_partitions), pos


def _decode_FetchRequest_ForgottenTopic_v13(
    buf: memoryview, pos: int
) -> tuple[FetchRequest.ForgottenTopic, int]:
    """Versions 13-18."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[int]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions, pos = read_number_array(buf, pos, n, "i", 4)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FetchRequest.ForgottenTopic("", f_topic_id, f_partitions), pos


def _decode_FetchRequest_v13(buf: memoryview, pos: int) -> tuple[FetchRequest, int]:
    """Versions 13-14."""
    (
        f_replica_id,
        f_max_wait_ms,
        f_min_bytes,
        f_max_bytes,
        f_isolation_level,
        f_session_id,
        f_session_epoch,
    ) = _S_iiiibii.unpack_from(buf, pos)
    pos += 25
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[FetchRequest.FetchTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_FetchRequest_FetchTopic_v13(buf, pos)
        f_topics.append(e_topics)
    n, pos = read_compact_array_length(buf, pos)
    f_forgotten_topics_data: list[FetchRequest.ForgottenTopic]
    if n < 0:
        raise DecodeError("ForgottenTopicsData: null where it is not nullable")
    f_forgotten_topics_data = []
    for _ in range(n):
        e_forgotten_topics_data, pos = _decode_FetchRequest_ForgottenTopic_v13(buf, pos)
        f_forgotten_topics_data.append(e_forgotten_topics_data)
    f_rack_id, pos = read_compact_string(buf, pos)
    f_cluster_id: str | None = None
    if buf[pos]:
        n_tags, pos = read_unsigned_varint(buf, pos)
        for _ in range(n_tags):
            tag, pos, end = read_tag_header(buf, pos)
            if tag == 0:
                f_cluster_id, pos = read_compact_nullable_string(buf, pos)
            pos = end
    else:
        pos += 1
    return FetchRequest(
        f_cluster_id,
        f_replica_id,
        FetchRequest.ReplicaState(),
        f_max_wait_ms,
        f_min_bytes,
        f_max_bytes,
        f_isolation_level,
        f_session_id,
        f_session_epoch,
        f_topics,
        f_forgotten_topics_data,
        f_rack_id,
    ), pos


def _decode_FetchRequest_ReplicaState_v15(
    buf: memoryview, pos: int
) -> tuple[FetchRequest.ReplicaState, int]:
    """Versions 15-18."""
    f_replica_id, f_replica_epoch = _S_iq.unpack_from(buf, pos)
    pos += 12
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FetchRequest.ReplicaState(f_replica_id, f_replica_epoch), pos


def _decode_FetchRequest_v15(buf: memoryview, pos: int) -> tuple[FetchRequest, int]:
    """Versions 15-16."""
    f_max_wait_ms, f_min_bytes, f_max_bytes, f_isolation_level, f_session_id, f_session_epoch = (
        _S_iiibii.unpack_from(buf, pos)
    )
    pos += 21
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[FetchRequest.FetchTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_FetchRequest_FetchTopic_v13(buf, pos)
        f_topics.append(e_topics)
    n, pos = read_compact_array_length(buf, pos)
    f_forgotten_topics_data: list[FetchRequest.ForgottenTopic]
    if n < 0:
        raise DecodeError("ForgottenTopicsData: null where it is not nullable")
    f_forgotten_topics_data = []
    for _ in range(n):
        e_forgotten_topics_data, pos = _decode_FetchRequest_ForgottenTopic_v13(buf, pos)
        f_forgotten_topics_data.append(e_forgotten_topics_data)
    f_rack_id, pos = read_compact_string(buf, pos)
    f_cluster_id: str | None = None
    f_replica_state: FetchRequest.ReplicaState = FetchRequest.ReplicaState()
    if buf[pos]:
        n_tags, pos = read_unsigned_varint(buf, pos)
        for _ in range(n_tags):
            tag, pos, end = read_tag_header(buf, pos)
            if tag == 0:
                f_cluster_id, pos = read_compact_nullable_string(buf, pos)
            elif tag == 1:
                f_replica_state, pos = _decode_FetchRequest_ReplicaState_v15(buf, pos)
            pos = end
    else:
        pos += 1
    return FetchRequest(
        f_cluster_id,
        -1,
        f_replica_state,
        f_max_wait_ms,
        f_min_bytes,
        f_max_bytes,
        f_isolation_level,
        f_session_id,
        f_session_epoch,
        f_topics,
        f_forgotten_topics_data,
        f_rack_id,
    ), pos


def _decode_FetchRequest_FetchPartition_v17(
    buf: memoryview, pos: int
) -> tuple[FetchRequest.FetchPartition, int]:
    """Versions 17."""
    (
        f_partition,
        f_current_leader_epoch,
        f_fetch_offset,
        f_last_fetched_epoch,
        f_log_start_offset,
        f_partition_max_bytes,
    ) = _S_iiqiqi.unpack_from(buf, pos)
    pos += 32
    f_replica_directory_id: UUID = ZERO_UUID
    if buf[pos]:
        n_tags, pos = read_unsigned_varint(buf, pos)
        for _ in range(n_tags):
            tag, pos, end = read_tag_header(buf, pos)
            if tag == 0:
                f_replica_directory_id, pos = read_uuid(buf, pos)
            pos = end
    else:
        pos += 1
    return FetchRequest.FetchPartition(
        f_partition,
        f_current_leader_epoch,
        f_fetch_offset,
        f_last_fetched_epoch,
        f_log_start_offset,
        f_partition_max_bytes,
        f_replica_directory_id,
        9223372036854775807,
    ), pos


def _decode_FetchRequest_FetchTopic_v17(
    buf: memoryview, pos: int
) -> tuple[FetchRequest.FetchTopic, int]:
    """Versions 17."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[FetchRequest.FetchPartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_FetchRequest_FetchPartition_v17(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FetchRequest.FetchTopic("", f_topic_id, f_partitions), pos


def _decode_FetchRequest_v17(buf: memoryview, pos: int) -> tuple[FetchRequest, int]:
    """Versions 17."""
    f_max_wait_ms, f_min_bytes, f_max_bytes, f_isolation_level, f_session_id, f_session_epoch = (
        _S_iiibii.unpack_from(buf, pos)
    )
    pos += 21
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[FetchRequest.FetchTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_FetchRequest_FetchTopic_v17(buf, pos)
        f_topics.append(e_topics)
    n, pos = read_compact_array_length(buf, pos)
    f_forgotten_topics_data: list[FetchRequest.ForgottenTopic]
    if n < 0:
        raise DecodeError("ForgottenTopicsData: null where it is not nullable")
    f_forgotten_topics_data = []
    for _ in range(n):
        e_forgotten_topics_data, pos = _decode_FetchRequest_ForgottenTopic_v13(buf, pos)
        f_forgotten_topics_data.append(e_forgotten_topics_data)
    f_rack_id, pos = read_compact_string(buf, pos)
    f_cluster_id: str | None = None
    f_replica_state: FetchRequest.ReplicaState = FetchRequest.ReplicaState()
    if buf[pos]:
        n_tags, pos = read_unsigned_varint(buf, pos)
        for _ in range(n_tags):
            tag, pos, end = read_tag_header(buf, pos)
            if tag == 0:
                f_cluster_id, pos = read_compact_nullable_string(buf, pos)
            elif tag == 1:
                f_replica_state, pos = _decode_FetchRequest_ReplicaState_v15(buf, pos)
            pos = end
    else:
        pos += 1
    return FetchRequest(
        f_cluster_id,
        -1,
        f_replica_state,
        f_max_wait_ms,
        f_min_bytes,
        f_max_bytes,
        f_isolation_level,
        f_session_id,
        f_session_epoch,
        f_topics,
        f_forgotten_topics_data,
        f_rack_id,
    ), pos


def _decode_FetchRequest_FetchPartition_v18(
    buf: memoryview, pos: int
) -> tuple[FetchRequest.FetchPartition, int]:
    """Versions 18."""
    (
        f_partition,
        f_current_leader_epoch,
        f_fetch_offset,
        f_last_fetched_epoch,
        f_log_start_offset,
        f_partition_max_bytes,
    ) = _S_iiqiqi.unpack_from(buf, pos)
    pos += 32
    f_replica_directory_id: UUID = ZERO_UUID
    f_high_watermark: int = 9223372036854775807
    if buf[pos]:
        n_tags, pos = read_unsigned_varint(buf, pos)
        for _ in range(n_tags):
            tag, pos, end = read_tag_header(buf, pos)
            if tag == 0:
                f_replica_directory_id, pos = read_uuid(buf, pos)
            elif tag == 1:
                (f_high_watermark,) = _S_q.unpack_from(buf, pos)
                pos += 8
            pos = end
    else:
        pos += 1
    return FetchRequest.FetchPartition(
        f_partition,
        f_current_leader_epoch,
        f_fetch_offset,
        f_last_fetched_epoch,
        f_log_start_offset,
        f_partition_max_bytes,
        f_replica_directory_id,
        f_high_watermark,
    ), pos


def _decode_FetchRequest_FetchTopic_v18(
    buf: memoryview, pos: int
) -> tuple[FetchRequest.FetchTopic, int]:
    """Versions 18."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[FetchRequest.FetchPartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_FetchRequest_FetchPartition_v18(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return FetchRequest.FetchTopic("", f_topic_id, f_partitions), pos


def _decode_FetchRequest_v18(buf: memoryview, pos: int) -> tuple[FetchRequest, int]:
    """Versions 18."""
    f_max_wait_ms, f_min_bytes, f_max_bytes, f_isolation_level, f_session_id, f_session_epoch = (
        _S_iiibii.unpack_from(buf, pos)
    )
    pos += 21
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[FetchRequest.FetchTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_FetchRequest_FetchTopic_v18(buf, pos)
        f_topics.append(e_topics)
    n, pos = read_compact_array_length(buf, pos)
    f_forgotten_topics_data: list[FetchRequest.ForgottenTopic]
    if n < 0:
        raise DecodeError("ForgottenTopicsData: null where it is not nullable")
    f_forgotten_topics_data = []
    for _ in range(n):
        e_forgotten_topics_data, pos = _decode_FetchRequest_ForgottenTopic_v13(buf, pos)
        f_forgotten_topics_data.append(e_forgotten_topics_data)
    f_rack_id, pos = read_compact_string(buf, pos)
    f_cluster_id: str | None = None
    f_replica_state: FetchRequest.ReplicaState = FetchRequest.ReplicaState()
    if buf[pos]:
        n_tags, pos = read_unsigned_varint(buf, pos)
        for _ in range(n_tags):
            tag, pos, end = read_tag_header(buf, pos)
            if tag == 0:
                f_cluster_id, pos = read_compact_nullable_string(buf, pos)
            elif tag == 1:
                f_replica_state, pos = _decode_FetchRequest_ReplicaState_v15(buf, pos)
            pos = end
    else:
        pos += 1
    return FetchRequest(
        f_cluster_id,
        -1,
        f_replica_state,
        f_max_wait_ms,
        f_min_bytes,
        f_max_bytes,
        f_isolation_level,
        f_session_id,
        f_session_epoch,
        f_topics,
        f_forgotten_topics_data,
        f_rack_id,
    ), pos


def _encode_InitProducerIdResponse_v2(o: InitProducerIdResponse, b: bytearray) -> None:
    """Versions 2-5."""
    if o.ongoing_txn_producer_id != -1:
        raise UnsupportedVersionError(
            "InitProducerIdResponse v2: OngoingTxnProducerId cannot be carried"
        )
    if o.ongoing_txn_producer_epoch != -1:
        raise UnsupportedVersionError(
            "InitProducerIdResponse v2: OngoingTxnProducerEpoch cannot be carried"
        )
    b += _S_ihqh.pack(o.throttle_time_ms, o.error_code, o.producer_id, o.producer_epoch)
    b.append(0)  # no tagged fields


def _encode_InitProducerIdResponse_v6(o: InitProducerIdResponse, b: bytearray) -> None:
    """Versions 6."""
    b += _S_ihqhqh.pack(
        o.throttle_time_ms,
        o.error_code,
        o.producer_id,
        o.producer_epoch,
        o.ongoing_txn_producer_id,
        o.ongoing_txn_producer_epoch,
    )
    b.append(0)  # no tagged fields


def _decode_InitProducerIdResponse_v2(
    buf: memoryview, pos: int
) -> tuple[InitProducerIdResponse, int]:
    """Versions 2-5."""
    f_throttle_time_ms, f_error_code, f_producer_id, f_producer_epoch = _S_ihqh.unpack_from(
        buf, pos
    )
    pos += 16
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return InitProducerIdResponse(
        f_throttle_time_ms, f_error_code, f_producer_id, f_producer_epoch, -1, -1
    ), pos


def _decode_InitProducerIdResponse_v6(
    buf: memoryview, pos: int
) -> tuple[InitProducerIdResponse, int]:
    """Versions 6."""
    (
        f_throttle_time_ms,
        f_error_code,
        f_producer_id,
        f_producer_epoch,
        f_ongoing_txn_producer_id,
        f_ongoing_txn_producer_epoch,
    ) = _S_ihqhqh.unpack_from(buf, pos)
    pos += 26
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return InitProducerIdResponse(
        f_throttle_time_ms,
        f_error_code,
        f_producer_id,
        f_producer_epoch,
        f_ongoing_txn_producer_id,
        f_ongoing_txn_producer_epoch,
    ), pos


def _encode_InitProducerIdRequest_v2(o: InitProducerIdRequest, b: bytearray) -> None:
    """Versions 2."""
    if o.producer_id != -1:
        raise UnsupportedVersionError("InitProducerIdRequest v2: ProducerId cannot be carried")
    if o.producer_epoch != -1:
        raise UnsupportedVersionError("InitProducerIdRequest v2: ProducerEpoch cannot be carried")
    if o.enable2_pc:
        raise UnsupportedVersionError("InitProducerIdRequest v2: Enable2Pc cannot be carried")
    if o.keep_prepared_txn:
        raise UnsupportedVersionError("InitProducerIdRequest v2: KeepPreparedTxn cannot be carried")
    write_compact_nullable_string(b, o.transactional_id)
    b += _S_i.pack(o.transaction_timeout_ms)
    b.append(0)  # no tagged fields


def _encode_InitProducerIdRequest_v3(o: InitProducerIdRequest, b: bytearray) -> None:
    """Versions 3-5."""
    if o.enable2_pc:
        raise UnsupportedVersionError("InitProducerIdRequest v3: Enable2Pc cannot be carried")
    if o.keep_prepared_txn:
        raise UnsupportedVersionError("InitProducerIdRequest v3: KeepPreparedTxn cannot be carried")
    write_compact_nullable_string(b, o.transactional_id)
    b += _S_iqh.pack(o.transaction_timeout_ms, o.producer_id, o.producer_epoch)
    b.append(0)  # no tagged fields


def _encode_InitProducerIdRequest_v6(o: InitProducerIdRequest, b: bytearray) -> None:
    """Versions 6."""
    write_compact_nullable_string(b, o.transactional_id)
    b += _S_iqhoo.pack(
        o.transaction_timeout_ms, o.producer_id, o.producer_epoch, o.enable2_pc, o.keep_prepared_txn
    )
    b.append(0)  # no tagged fields


def _decode_InitProducerIdRequest_v2(
    buf: memoryview, pos: int
) -> tuple[InitProducerIdRequest, int]:
    """Versions 2."""
    f_transactional_id, pos = read_compact_nullable_string(buf, pos)
    (f_transaction_timeout_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return InitProducerIdRequest(
        f_transactional_id, f_transaction_timeout_ms, -1, -1, False, False
    ), pos


def _decode_InitProducerIdRequest_v3(
    buf: memoryview, pos: int
) -> tuple[InitProducerIdRequest, int]:
    """Versions 3-5."""
    f_transactional_id, pos = read_compact_nullable_string(buf, pos)
    f_transaction_timeout_ms, f_producer_id, f_producer_epoch = _S_iqh.unpack_from(buf, pos)
    pos += 14
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return InitProducerIdRequest(
        f_transactional_id, f_transaction_timeout_ms, f_producer_id, f_producer_epoch, False, False
    ), pos


def _decode_InitProducerIdRequest_v6(
    buf: memoryview, pos: int
) -> tuple[InitProducerIdRequest, int]:
    """Versions 6."""
    f_transactional_id, pos = read_compact_nullable_string(buf, pos)
    f_transaction_timeout_ms, f_producer_id, f_producer_epoch, f_enable2_pc, f_keep_prepared_txn = (
        _S_iqhoo.unpack_from(buf, pos)
    )
    pos += 16
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return InitProducerIdRequest(
        f_transactional_id,
        f_transaction_timeout_ms,
        f_producer_id,
        f_producer_epoch,
        f_enable2_pc,
        f_keep_prepared_txn,
    ), pos


def _encode_AddPartitionsToTxnResponse_AddPartitionsToTxnPartitionResult_v3(
    o: AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult, b: bytearray
) -> None:
    """Versions 3-5."""
    b += _S_ih.pack(o.partition_index, o.partition_error_code)
    b.append(0)  # no tagged fields


def _encode_AddPartitionsToTxnResponse_AddPartitionsToTxnTopicResult_v3(
    o: AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult, b: bytearray
) -> None:
    """Versions 3-5."""
    write_compact_string(b, o.name)
    x_results_by_partition = o.results_by_partition
    write_compact_array_length(b, len(x_results_by_partition))
    for e_results_by_partition in x_results_by_partition:
        _encode_AddPartitionsToTxnResponse_AddPartitionsToTxnPartitionResult_v3(
            e_results_by_partition, b
        )
    b.append(0)  # no tagged fields


def _encode_AddPartitionsToTxnResponse_v3(o: AddPartitionsToTxnResponse, b: bytearray) -> None:
    """Versions 3."""
    if o.results_by_transaction != []:
        raise UnsupportedVersionError(
            "AddPartitionsToTxnResponse v3: ResultsByTransaction cannot be carried"
        )
    b += _S_i.pack(o.throttle_time_ms)
    x_results_by_topic_v3_and_below = o.results_by_topic_v3_and_below
    write_compact_array_length(b, len(x_results_by_topic_v3_and_below))
    for e_results_by_topic_v3_and_below in x_results_by_topic_v3_and_below:
        _encode_AddPartitionsToTxnResponse_AddPartitionsToTxnTopicResult_v3(
            e_results_by_topic_v3_and_below, b
        )
    b.append(0)  # no tagged fields


def _encode_AddPartitionsToTxnResponse_AddPartitionsToTxnResult_v4(
    o: AddPartitionsToTxnResponse.AddPartitionsToTxnResult, b: bytearray
) -> None:
    """Versions 4-5."""
    write_compact_string(b, o.transactional_id)
    x_topic_results = o.topic_results
    write_compact_array_length(b, len(x_topic_results))
    for e_topic_results in x_topic_results:
        _encode_AddPartitionsToTxnResponse_AddPartitionsToTxnTopicResult_v3(e_topic_results, b)
    b.append(0)  # no tagged fields


def _encode_AddPartitionsToTxnResponse_v4(o: AddPartitionsToTxnResponse, b: bytearray) -> None:
    """Versions 4-5."""
    if o.results_by_topic_v3_and_below != []:
        raise UnsupportedVersionError(
            "AddPartitionsToTxnResponse v4: ResultsByTopicV3AndBelow cannot be carried"
        )
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    x_results_by_transaction = o.results_by_transaction
    write_compact_array_length(b, len(x_results_by_transaction))
    for e_results_by_transaction in x_results_by_transaction:
        _encode_AddPartitionsToTxnResponse_AddPartitionsToTxnResult_v4(e_results_by_transaction, b)
    b.append(0)  # no tagged fields


def _decode_AddPartitionsToTxnResponse_AddPartitionsToTxnPartitionResult_v3(
    buf: memoryview, pos: int
) -> tuple[AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult, int]:
    """Versions 3-5."""
    f_partition_index, f_partition_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult(
        f_partition_index, f_partition_error_code
    ), pos


def _decode_AddPartitionsToTxnResponse_AddPartitionsToTxnTopicResult_v3(
    buf: memoryview, pos: int
) -> tuple[AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult, int]:
    """Versions 3-5."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_results_by_partition: list[AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult]
    if n < 0:
        raise DecodeError("ResultsByPartition: null where it is not nullable")
    f_results_by_partition = []
    for _ in range(n):
        e_results_by_partition, pos = (
            _decode_AddPartitionsToTxnResponse_AddPartitionsToTxnPartitionResult_v3(buf, pos)
        )
        f_results_by_partition.append(e_results_by_partition)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult(
        f_name, f_results_by_partition
    ), pos


def _decode_AddPartitionsToTxnResponse_v3(
    buf: memoryview, pos: int
) -> tuple[AddPartitionsToTxnResponse, int]:
    """Versions 3."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_results_by_topic_v3_and_below: list[AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult]
    if n < 0:
        raise DecodeError("ResultsByTopicV3AndBelow: null where it is not nullable")
    f_results_by_topic_v3_and_below = []
    for _ in range(n):
        e_results_by_topic_v3_and_below, pos = (
            _decode_AddPartitionsToTxnResponse_AddPartitionsToTxnTopicResult_v3(buf, pos)
        )
        f_results_by_topic_v3_and_below.append(e_results_by_topic_v3_and_below)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AddPartitionsToTxnResponse(
        f_throttle_time_ms, 0, [], f_results_by_topic_v3_and_below
    ), pos


def _decode_AddPartitionsToTxnResponse_AddPartitionsToTxnResult_v4(
    buf: memoryview, pos: int
) -> tuple[AddPartitionsToTxnResponse.AddPartitionsToTxnResult, int]:
    """Versions 4-5."""
    f_transactional_id, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_topic_results: list[AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult]
    if n < 0:
        raise DecodeError("TopicResults: null where it is not nullable")
    f_topic_results = []
    for _ in range(n):
        e_topic_results, pos = _decode_AddPartitionsToTxnResponse_AddPartitionsToTxnTopicResult_v3(
            buf, pos
        )
        f_topic_results.append(e_topic_results)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AddPartitionsToTxnResponse.AddPartitionsToTxnResult(
        f_transactional_id, f_topic_results
    ), pos


def _decode_AddPartitionsToTxnResponse_v4(
    buf: memoryview, pos: int
) -> tuple[AddPartitionsToTxnResponse, int]:
    """Versions 4-5."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    n, pos = read_compact_array_length(buf, pos)
    f_results_by_transaction: list[AddPartitionsToTxnResponse.AddPartitionsToTxnResult]
    if n < 0:
        raise DecodeError("ResultsByTransaction: null where it is not nullable")
    f_results_by_transaction = []
    for _ in range(n):
        e_results_by_transaction, pos = (
            _decode_AddPartitionsToTxnResponse_AddPartitionsToTxnResult_v4(buf, pos)
        )
        f_results_by_transaction.append(e_results_by_transaction)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AddPartitionsToTxnResponse(
        f_throttle_time_ms, f_error_code, f_results_by_transaction, []
    ), pos


def _encode_AddPartitionsToTxnRequest_AddPartitionsToTxnTopic_v3(
    o: AddPartitionsToTxnRequest.AddPartitionsToTxnTopic, b: bytearray
) -> None:
    """Versions 3-5."""
    write_compact_string(b, o.name)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    write_number_array(b, "i", x_partitions)
    b.append(0)  # no tagged fields


def _encode_AddPartitionsToTxnRequest_v3(o: AddPartitionsToTxnRequest, b: bytearray) -> None:
    """Versions 3."""
    if o.transactions != []:
        raise UnsupportedVersionError(
            "AddPartitionsToTxnRequest v3: Transactions cannot be carried"
        )
    write_compact_string(b, o.v3_and_below_transactional_id)
    b += _S_qh.pack(o.v3_and_below_producer_id, o.v3_and_below_producer_epoch)
    x_v3_and_below_topics = o.v3_and_below_topics
    write_compact_array_length(b, len(x_v3_and_below_topics))
    for e_v3_and_below_topics in x_v3_and_below_topics:
        _encode_AddPartitionsToTxnRequest_AddPartitionsToTxnTopic_v3(e_v3_and_below_topics, b)
    b.append(0)  # no tagged fields


def _encode_AddPartitionsToTxnRequest_AddPartitionsToTxnTransaction_v4(
    o: AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction, b: bytearray
) -> None:
    """Versions 4-5."""
    write_compact_string(b, o.transactional_id)
    b += _S_qho.pack(o.producer_id, o.producer_epoch, o.verify_only)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_AddPartitionsToTxnRequest_AddPartitionsToTxnTopic_v3(e_topics, b)
    b.append(0)  # no tagged fields


def _encode_AddPartitionsToTxnRequest_v4(o: AddPartitionsToTxnRequest, b: bytearray) -> None:
    """Versions 4-5."""
    if o.v3_and_below_transactional_id != "":
        raise UnsupportedVersionError(
            "AddPartitionsToTxnRequest v4: V3AndBelowTransactionalId cannot be carried"
        )
    if o.v3_and_below_producer_id != 0:
        raise UnsupportedVersionError(
            "AddPartitionsToTxnRequest v4: V3AndBelowProducerId cannot be carried"
        )
    if o.v3_and_below_producer_epoch != 0:
        raise UnsupportedVersionError(
            "AddPartitionsToTxnRequest v4: V3AndBelowProducerEpoch cannot be carried"
        )
    if o.v3_and_below_topics != []:
        raise UnsupportedVersionError(
            "AddPartitionsToTxnRequest v4: V3AndBelowTopics cannot be carried"
        )
    x_transactions = o.transactions
    write_compact_array_length(b, len(x_transactions))
    for e_transactions in x_transactions:
        _encode_AddPartitionsToTxnRequest_AddPartitionsToTxnTransaction_v4(e_transactions, b)
    b.append(0)  # no tagged fields


def _decode_AddPartitionsToTxnRequest_AddPartitionsToTxnTopic_v3(
    buf: memoryview, pos: int
) -> tuple[AddPartitionsToTxnRequest.AddPartitionsToTxnTopic, int]:
    """Versions 3-5."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[int]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions, pos = read_number_array(buf, pos, n, "i", 4)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AddPartitionsToTxnRequest.AddPartitionsToTxnTopic(f_name, f_partitions), pos


def _decode_AddPartitionsToTxnRequest_v3(
    buf: memoryview, pos: int
) -> tuple[AddPartitionsToTxnRequest, int]:
    """Versions 3."""
    f_v3_and_below_transactional_id, pos = read_compact_string(buf, pos)
    f_v3_and_below_producer_id, f_v3_and_below_producer_epoch = _S_qh.unpack_from(buf, pos)
    pos += 10
    n, pos = read_compact_array_length(buf, pos)
    f_v3_and_below_topics: list[AddPartitionsToTxnRequest.AddPartitionsToTxnTopic]
    if n < 0:
        raise DecodeError("V3AndBelowTopics: null where it is not nullable")
    f_v3_and_below_topics = []
    for _ in range(n):
        e_v3_and_below_topics, pos = _decode_AddPartitionsToTxnRequest_AddPartitionsToTxnTopic_v3(
            buf, pos
        )
        f_v3_and_below_topics.append(e_v3_and_below_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AddPartitionsToTxnRequest(
        [],
        f_v3_and_below_transactional_id,
        f_v3_and_below_producer_id,
        f_v3_and_below_producer_epoch,
        f_v3_and_below_topics,
    ), pos


def _decode_AddPartitionsToTxnRequest_AddPartitionsToTxnTransaction_v4(
    buf: memoryview, pos: int
) -> tuple[AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction, int]:
    """Versions 4-5."""
    f_transactional_id, pos = read_compact_string(buf, pos)
    f_producer_id, f_producer_epoch, f_verify_only = _S_qho.unpack_from(buf, pos)
    pos += 11
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[AddPartitionsToTxnRequest.AddPartitionsToTxnTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_AddPartitionsToTxnRequest_AddPartitionsToTxnTopic_v3(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction(
        f_transactional_id, f_producer_id, f_producer_epoch, f_verify_only, f_topics
    ), pos


def _decode_AddPartitionsToTxnRequest_v4(
    buf: memoryview, pos: int
) -> tuple[AddPartitionsToTxnRequest, int]:
    """Versions 4-5."""
    n, pos = read_compact_array_length(buf, pos)
    f_transactions: list[AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction]
    if n < 0:
        raise DecodeError("Transactions: null where it is not nullable")
    f_transactions = []
    for _ in range(n):
        e_transactions, pos = _decode_AddPartitionsToTxnRequest_AddPartitionsToTxnTransaction_v4(
            buf, pos
        )
        f_transactions.append(e_transactions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AddPartitionsToTxnRequest(f_transactions, "", 0, 0, []), pos


def _encode_AddOffsetsToTxnResponse_v3(o: AddOffsetsToTxnResponse, b: bytearray) -> None:
    """Versions 3-4."""
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    b.append(0)  # no tagged fields


def _decode_AddOffsetsToTxnResponse_v3(
    buf: memoryview, pos: int
) -> tuple[AddOffsetsToTxnResponse, int]:
    """Versions 3-4."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AddOffsetsToTxnResponse(f_throttle_time_ms, f_error_code), pos


def _encode_AddOffsetsToTxnRequest_v3(o: AddOffsetsToTxnRequest, b: bytearray) -> None:
    """Versions 3-4."""
    write_compact_string(b, o.transactional_id)
    b += _S_qh.pack(o.producer_id, o.producer_epoch)
    write_compact_string(b, o.group_id)
    b.append(0)  # no tagged fields


def _decode_AddOffsetsToTxnRequest_v3(
    buf: memoryview, pos: int
) -> tuple[AddOffsetsToTxnRequest, int]:
    """Versions 3-4."""
    f_transactional_id, pos = read_compact_string(buf, pos)
    f_producer_id, f_producer_epoch = _S_qh.unpack_from(buf, pos)
    pos += 10
    f_group_id, pos = read_compact_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AddOffsetsToTxnRequest(
        f_transactional_id, f_producer_id, f_producer_epoch, f_group_id
    ), pos


def _encode_TxnOffsetCommitResponse_TxnOffsetCommitResponsePartition_v3(
    o: TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition, b: bytearray
) -> None:
    """Versions 3-6."""
    b += _S_ih.pack(o.partition_index, o.error_code)
    b.append(0)  # no tagged fields


def _encode_TxnOffsetCommitResponse_TxnOffsetCommitResponseTopic_v3(
    o: TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic, b: bytearray
) -> None:
    """Versions 3-5."""
    write_compact_string(b, o.name)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_TxnOffsetCommitResponse_TxnOffsetCommitResponsePartition_v3(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_TxnOffsetCommitResponse_v3(o: TxnOffsetCommitResponse, b: bytearray) -> None:
    """Versions 3-5."""
    b += _S_i.pack(o.throttle_time_ms)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_TxnOffsetCommitResponse_TxnOffsetCommitResponseTopic_v3(e_topics, b)
    b.append(0)  # no tagged fields


def _encode_TxnOffsetCommitResponse_TxnOffsetCommitResponseTopic_v6(
    o: TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic, b: bytearray
) -> None:
    """Versions 6."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_TxnOffsetCommitResponse_TxnOffsetCommitResponsePartition_v3(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_TxnOffsetCommitResponse_v6(o: TxnOffsetCommitResponse, b: bytearray) -> None:
    """Versions 6."""
    b += _S_i.pack(o.throttle_time_ms)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_TxnOffsetCommitResponse_TxnOffsetCommitResponseTopic_v6(e_topics, b)
    b.append(0)  # no tagged fields


def _decode_TxnOffsetCommitResponse_TxnOffsetCommitResponsePartition_v3(
    buf: memoryview, pos: int
) -> tuple[TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition, int]:
    """Versions 3-6."""
    f_partition_index, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition(
        f_partition_index, f_error_code
    ), pos


def _decode_TxnOffsetCommitResponse_TxnOffsetCommitResponseTopic_v3(
    buf: memoryview, pos: int
) -> tuple[TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic, int]:
    """Versions 3-5."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_TxnOffsetCommitResponse_TxnOffsetCommitResponsePartition_v3(
            buf, pos
        )
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic(
        f_name, ZERO_UUID, f_partitions
    ), pos


def _decode_TxnOffsetCommitResponse_v3(
    buf: memoryview, pos: int
) -> tuple[TxnOffsetCommitResponse, int]:
    """Versions 3-5."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_TxnOffsetCommitResponse_TxnOffsetCommitResponseTopic_v3(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return TxnOffsetCommitResponse(f_throttle_time_ms, f_topics), pos


def _decode_TxnOffsetCommitResponse_TxnOffsetCommitResponseTopic_v6(
    buf: memoryview, pos: int
) -> tuple[TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic, int]:
    """Versions 6."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_TxnOffsetCommitResponse_TxnOffsetCommitResponsePartition_v3(
            buf, pos
        )
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic("", f_topic_id, f_partitions), pos


def _decode_TxnOffsetCommitResponse_v6(
    buf: memoryview, pos: int
) -> tuple[TxnOffsetCommitResponse, int]:
    """Versions 6."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_TxnOffsetCommitResponse_TxnOffsetCommitResponseTopic_v6(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return TxnOffsetCommitResponse(f_throttle_time_ms, f_topics), pos


def _encode_TxnOffsetCommitRequest_TxnOffsetCommitRequestPartition_v3(
    o: TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition, b: bytearray
) -> None:
    """Versions 3-6."""
    b += _S_iqi.pack(o.partition_index, o.committed_offset, o.committed_leader_epoch)
    write_compact_nullable_string(b, o.committed_metadata)
    b.append(0)  # no tagged fields


def _encode_TxnOffsetCommitRequest_TxnOffsetCommitRequestTopic_v3(
    o: TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic, b: bytearray
) -> None:
    """Versions 3-5."""
    write_compact_string(b, o.name)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_TxnOffsetCommitRequest_TxnOffsetCommitRequestPartition_v3(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_TxnOffsetCommitRequest_v3(o: TxnOffsetCommitRequest, b: bytearray) -> None:
    """Versions 3-5."""
    write_compact_string(b, o.transactional_id)
    write_compact_string(b, o.group_id)
    b += _S_qhi.pack(o.producer_id, o.producer_epoch, o.generation_id_or_member_epoch)
    write_compact_string(b, o.member_id)
    write_compact_nullable_string(b, o.group_instance_id)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_TxnOffsetCommitRequest_TxnOffsetCommitRequestTopic_v3(e_topics, b)
    b.append(0)  # no tagged fields


def _encode_TxnOffsetCommitRequest_TxnOffsetCommitRequestTopic_v6(
    o: TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic, b: bytearray
) -> None:
    """Versions 6."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_TxnOffsetCommitRequest_TxnOffsetCommitRequestPartition_v3(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_TxnOffsetCommitRequest_v6(o: TxnOffsetCommitRequest, b: bytearray) -> None:
    """Versions 6."""
    write_compact_string(b, o.transactional_id)
    write_compact_string(b, o.group_id)
    b += _S_qhi.pack(o.producer_id, o.producer_epoch, o.generation_id_or_member_epoch)
    write_compact_string(b, o.member_id)
    write_compact_nullable_string(b, o.group_instance_id)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_TxnOffsetCommitRequest_TxnOffsetCommitRequestTopic_v6(e_topics, b)
    b.append(0)  # no tagged fields


def _decode_TxnOffsetCommitRequest_TxnOffsetCommitRequestPartition_v3(
    buf: memoryview, pos: int
) -> tuple[TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition, int]:
    """Versions 3-6."""
    f_partition_index, f_committed_offset, f_committed_leader_epoch = _S_iqi.unpack_from(buf, pos)
    pos += 16
    f_committed_metadata, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition(
        f_partition_index, f_committed_offset, f_committed_leader_epoch, f_committed_metadata
    ), pos


def _decode_TxnOffsetCommitRequest_TxnOffsetCommitRequestTopic_v3(
    buf: memoryview, pos: int
) -> tuple[TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic, int]:
    """Versions 3-5."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_TxnOffsetCommitRequest_TxnOffsetCommitRequestPartition_v3(
            buf, pos
        )
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic(f_name, ZERO_UUID, f_partitions), pos


def _decode_TxnOffsetCommitRequest_v3(
    buf: memoryview, pos: int
) -> tuple[TxnOffsetCommitRequest, int]:
    """Versions 3-5."""
    f_transactional_id, pos = read_compact_string(buf, pos)
    f_group_id, pos = read_compact_string(buf, pos)
    f_producer_id, f_producer_epoch, f_generation_id_or_member_epoch = _S_qhi.unpack_from(buf, pos)
    pos += 14
    f_member_id, pos = read_compact_string(buf, pos)
    f_group_instance_id, pos = read_compact_nullable_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_TxnOffsetCommitRequest_TxnOffsetCommitRequestTopic_v3(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return TxnOffsetCommitRequest(
        f_transactional_id,
        f_group_id,
        f_producer_id,
        f_producer_epoch,
        f_generation_id_or_member_epoch,
        f_member_id,
        f_group_instance_id,
        f_topics,
    ), pos


def _decode_TxnOffsetCommitRequest_TxnOffsetCommitRequestTopic_v6(
    buf: memoryview, pos: int
) -> tuple[TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic, int]:
    """Versions 6."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_TxnOffsetCommitRequest_TxnOffsetCommitRequestPartition_v3(
            buf, pos
        )
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic("", f_topic_id, f_partitions), pos


def _decode_TxnOffsetCommitRequest_v6(
    buf: memoryview, pos: int
) -> tuple[TxnOffsetCommitRequest, int]:
    """Versions 6."""
    f_transactional_id, pos = read_compact_string(buf, pos)
    f_group_id, pos = read_compact_string(buf, pos)
    f_producer_id, f_producer_epoch, f_generation_id_or_member_epoch = _S_qhi.unpack_from(buf, pos)
    pos += 14
    f_member_id, pos = read_compact_string(buf, pos)
    f_group_instance_id, pos = read_compact_nullable_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_TxnOffsetCommitRequest_TxnOffsetCommitRequestTopic_v6(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return TxnOffsetCommitRequest(
        f_transactional_id,
        f_group_id,
        f_producer_id,
        f_producer_epoch,
        f_generation_id_or_member_epoch,
        f_member_id,
        f_group_instance_id,
        f_topics,
    ), pos


def _encode_EndTxnResponse_v3(o: EndTxnResponse, b: bytearray) -> None:
    """Versions 3-4."""
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    b.append(0)  # no tagged fields


def _encode_EndTxnResponse_v5(o: EndTxnResponse, b: bytearray) -> None:
    """Versions 5."""
    b += _S_ihqh.pack(o.throttle_time_ms, o.error_code, o.producer_id, o.producer_epoch)
    b.append(0)  # no tagged fields


def _decode_EndTxnResponse_v3(buf: memoryview, pos: int) -> tuple[EndTxnResponse, int]:
    """Versions 3-4."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return EndTxnResponse(f_throttle_time_ms, f_error_code, -1, -1), pos


def _decode_EndTxnResponse_v5(buf: memoryview, pos: int) -> tuple[EndTxnResponse, int]:
    """Versions 5."""
    f_throttle_time_ms, f_error_code, f_producer_id, f_producer_epoch = _S_ihqh.unpack_from(
        buf, pos
    )
    pos += 16
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return EndTxnResponse(f_throttle_time_ms, f_error_code, f_producer_id, f_producer_epoch), pos


def _encode_EndTxnRequest_v3(o: EndTxnRequest, b: bytearray) -> None:
    """Versions 3-5."""
    write_compact_string(b, o.transactional_id)
    b += _S_qho.pack(o.producer_id, o.producer_epoch, o.committed)
    b.append(0)  # no tagged fields


def _decode_EndTxnRequest_v3(buf: memoryview, pos: int) -> tuple[EndTxnRequest, int]:
    """Versions 3-5."""
    f_transactional_id, pos = read_compact_string(buf, pos)
    f_producer_id, f_producer_epoch, f_committed = _S_qho.unpack_from(buf, pos)
    pos += 11
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return EndTxnRequest(f_transactional_id, f_producer_id, f_producer_epoch, f_committed), pos


def _encode_DescribeProducersResponse_ProducerState_v0(
    o: DescribeProducersResponse.ProducerState, b: bytearray
) -> None:
    """Versions 0."""
    b += _S_qiiqiq.pack(
        o.producer_id,
        o.producer_epoch,
        o.last_sequence,
        o.last_timestamp,
        o.coordinator_epoch,
        o.current_txn_start_offset,
    )
    b.append(0)  # no tagged fields


def _encode_DescribeProducersResponse_PartitionResponse_v0(
    o: DescribeProducersResponse.PartitionResponse, b: bytearray
) -> None:
    """Versions 0."""
    b += _S_ih.pack(o.partition_index, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    x_active_producers = o.active_producers
    write_compact_array_length(b, len(x_active_producers))
    for e_active_producers in x_active_producers:
        _encode_DescribeProducersResponse_ProducerState_v0(e_active_producers, b)
    b.append(0)  # no tagged fields


def _encode_DescribeProducersResponse_TopicResponse_v0(
    o: DescribeProducersResponse.TopicResponse, b: bytearray
) -> None:
    """Versions 0."""
    write_compact_string(b, o.name)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_DescribeProducersResponse_PartitionResponse_v0(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_DescribeProducersResponse_v0(o: DescribeProducersResponse, b: bytearray) -> None:
    """Versions 0."""
    b += _S_i.pack(o.throttle_time_ms)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_DescribeProducersResponse_TopicResponse_v0(e_topics, b)
    b.append(0)  # no tagged fields


def _decode_DescribeProducersResponse_ProducerState_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeProducersResponse.ProducerState, int]:
    """Versions 0."""
    (
        f_producer_id,
        f_producer_epoch,
        f_last_sequence,
        f_last_timestamp,
        f_coordinator_epoch,
        f_current_txn_start_offset,
    ) = _S_qiiqiq.unpack_from(buf, pos)
    pos += 36
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeProducersResponse.ProducerState(
        f_producer_id,
        f_producer_epoch,
        f_last_sequence,
        f_last_timestamp,
        f_coordinator_epoch,
        f_current_txn_start_offset,
    ), pos


def _decode_DescribeProducersResponse_PartitionResponse_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeProducersResponse.PartitionResponse, int]:
    """Versions 0."""
    f_partition_index, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_active_producers: list[DescribeProducersResponse.ProducerState]
    if n < 0:
        raise DecodeError("ActiveProducers: null where it is not nullable")
    f_active_producers = []
    for _ in range(n):
        e_active_producers, pos = _decode_DescribeProducersResponse_ProducerState_v0(buf, pos)
        f_active_producers.append(e_active_producers)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeProducersResponse.PartitionResponse(
        f_partition_index, f_error_code, f_error_message, f_active_producers
    ), pos


def _decode_DescribeProducersResponse_TopicResponse_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeProducersResponse.TopicResponse, int]:
    """Versions 0."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[DescribeProducersResponse.PartitionResponse]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_DescribeProducersResponse_PartitionResponse_v0(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeProducersResponse.TopicResponse(f_name, f_partitions), pos


def _decode_DescribeProducersResponse_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeProducersResponse, int]:
    """Versions 0."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[DescribeProducersResponse.TopicResponse]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_DescribeProducersResponse_TopicResponse_v0(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeProducersResponse(f_throttle_time_ms, f_topics), pos


def _encode_DescribeProducersRequest_TopicRequest_v0(
    o: DescribeProducersRequest.TopicRequest, b: bytearray
) -> None:
    """Versions 0."""
    write_compact_string(b, o.name)
    x_partition_indexes = o.partition_indexes
    write_compact_array_length(b, len(x_partition_indexes))
    write_number_array(b, "i", x_partition_indexes)
    b.append(0)  # no tagged fields


def _encode_DescribeProducersRequest_v0(o: DescribeProducersRequest, b: bytearray) -> None:
    """Versions 0."""
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_DescribeProducersRequest_TopicRequest_v0(e_topics, b)
    b.append(0)  # no tagged fields


def _decode_DescribeProducersRequest_TopicRequest_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeProducersRequest.TopicRequest, int]:
    """Versions 0."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partition_indexes: list[int]
    if n < 0:
        raise DecodeError("PartitionIndexes: null where it is not nullable")
    f_partition_indexes, pos = read_number_array(buf, pos, n, "i", 4)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeProducersRequest.TopicRequest(f_name, f_partition_indexes), pos


def _decode_DescribeProducersRequest_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeProducersRequest, int]:
    """Versions 0."""
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[DescribeProducersRequest.TopicRequest]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_DescribeProducersRequest_TopicRequest_v0(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeProducersRequest(f_topics), pos


def _encode_DescribeTransactionsResponse_TopicData_v0(
    o: DescribeTransactionsResponse.TopicData, b: bytearray
) -> None:
    """Versions 0."""
    write_compact_string(b, o.topic)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    write_number_array(b, "i", x_partitions)
    b.append(0)  # no tagged fields


def _encode_DescribeTransactionsResponse_TransactionState_v0(
    o: DescribeTransactionsResponse.TransactionState, b: bytearray
) -> None:
    """Versions 0."""
    b += _S_h.pack(o.error_code)
    write_compact_string(b, o.transactional_id)
    write_compact_string(b, o.transaction_state)
    b += _S_iqqh.pack(
        o.transaction_timeout_ms, o.transaction_start_time_ms, o.producer_id, o.producer_epoch
    )
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_DescribeTransactionsResponse_TopicData_v0(e_topics, b)
    b.append(0)  # no tagged fields


def _encode_DescribeTransactionsResponse_v0(o: DescribeTransactionsResponse, b: bytearray) -> None:
    """Versions 0."""
    b += _S_i.pack(o.throttle_time_ms)
    x_transaction_states = o.transaction_states
    write_compact_array_length(b, len(x_transaction_states))
    for e_transaction_states in x_transaction_states:
        _encode_DescribeTransactionsResponse_TransactionState_v0(e_transaction_states, b)
    b.append(0)  # no tagged fields


def _decode_DescribeTransactionsResponse_TopicData_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeTransactionsResponse.TopicData, int]:
    """Versions 0."""
    f_topic, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[int]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions, pos = read_number_array(buf, pos, n, "i", 4)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeTransactionsResponse.TopicData(f_topic, f_partitions), pos


def _decode_DescribeTransactionsResponse_TransactionState_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeTransactionsResponse.TransactionState, int]:
    """Versions 0."""
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_transactional_id, pos = read_compact_string(buf, pos)
    f_transaction_state, pos = read_compact_string(buf, pos)
    f_transaction_timeout_ms, f_transaction_start_time_ms, f_producer_id, f_producer_epoch = (
        _S_iqqh.unpack_from(buf, pos)
    )
    pos += 22
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[DescribeTransactionsResponse.TopicData]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_DescribeTransactionsResponse_TopicData_v0(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeTransactionsResponse.TransactionState(
        f_error_code,
        f_transactional_id,
        f_transaction_state,
        f_transaction_timeout_ms,
        f_transaction_start_time_ms,
        f_producer_id,
        f_producer_epoch,
        f_topics,
    ), pos


def _decode_DescribeTransactionsResponse_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeTransactionsResponse, int]:
    """Versions 0."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_transaction_states: list[DescribeTransactionsResponse.TransactionState]
    if n < 0:
        raise DecodeError("TransactionStates: null where it is not nullable")
    f_transaction_states = []
    for _ in range(n):
        e_transaction_states, pos = _decode_DescribeTransactionsResponse_TransactionState_v0(
            buf, pos
        )
        f_transaction_states.append(e_transaction_states)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeTransactionsResponse(f_throttle_time_ms, f_transaction_states), pos


def _encode_DescribeTransactionsRequest_v0(o: DescribeTransactionsRequest, b: bytearray) -> None:
    """Versions 0."""
    x_transactional_ids = o.transactional_ids
    write_compact_array_length(b, len(x_transactional_ids))
    for e_transactional_ids in x_transactional_ids:
        write_compact_string(b, e_transactional_ids)
    b.append(0)  # no tagged fields


def _decode_DescribeTransactionsRequest_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeTransactionsRequest, int]:
    """Versions 0."""
    n, pos = read_compact_array_length(buf, pos)
    f_transactional_ids: list[str]
    if n < 0:
        raise DecodeError("TransactionalIds: null where it is not nullable")
    f_transactional_ids = []
    for _ in range(n):
        e_transactional_ids, pos = read_compact_string(buf, pos)
        f_transactional_ids.append(e_transactional_ids)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeTransactionsRequest(f_transactional_ids), pos


def _encode_ListTransactionsResponse_TransactionState_v0(
    o: ListTransactionsResponse.TransactionState, b: bytearray
) -> None:
    """Versions 0-2."""
    write_compact_string(b, o.transactional_id)
    b += _S_q.pack(o.producer_id)
    write_compact_string(b, o.transaction_state)
    b.append(0)  # no tagged fields


def _encode_ListTransactionsResponse_v0(o: ListTransactionsResponse, b: bytearray) -> None:
    """Versions 0-2."""
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    x_unknown_state_filters = o.unknown_state_filters
    write_compact_array_length(b, len(x_unknown_state_filters))
    for e_unknown_state_filters in x_unknown_state_filters:
        write_compact_string(b, e_unknown_state_filters)
    x_transaction_states = o.transaction_states
    write_compact_array_length(b, len(x_transaction_states))
    for e_transaction_states in x_transaction_states:
        _encode_ListTransactionsResponse_TransactionState_v0(e_transaction_states, b)
    b.append(0)  # no tagged fields


def _decode_ListTransactionsResponse_TransactionState_v0(
    buf: memoryview, pos: int
) -> tuple[ListTransactionsResponse.TransactionState, int]:
    """Versions 0-2."""
    f_transactional_id, pos = read_compact_string(buf, pos)
    (f_producer_id,) = _S_q.unpack_from(buf, pos)
    pos += 8
    f_transaction_state, pos = read_compact_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListTransactionsResponse.TransactionState(
        f_transactional_id, f_producer_id, f_transaction_state
    ), pos


def _decode_ListTransactionsResponse_v0(
    buf: memoryview, pos: int
) -> tuple[ListTransactionsResponse, int]:
    """Versions 0-2."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    n, pos = read_compact_array_length(buf, pos)
    f_unknown_state_filters: list[str]
    if n < 0:
        raise DecodeError("UnknownStateFilters: null where it is not nullable")
    f_unknown_state_filters = []
    for _ in range(n):
        e_unknown_state_filters, pos = read_compact_string(buf, pos)
        f_unknown_state_filters.append(e_unknown_state_filters)
    n, pos = read_compact_array_length(buf, pos)
    f_transaction_states: list[ListTransactionsResponse.TransactionState]
    if n < 0:
        raise DecodeError("TransactionStates: null where it is not nullable")
    f_transaction_states = []
    for _ in range(n):
        e_transaction_states, pos = _decode_ListTransactionsResponse_TransactionState_v0(buf, pos)
        f_transaction_states.append(e_transaction_states)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListTransactionsResponse(
        f_throttle_time_ms, f_error_code, f_unknown_state_filters, f_transaction_states
    ), pos


def _encode_ListTransactionsRequest_v0(o: ListTransactionsRequest, b: bytearray) -> None:
    """Versions 0."""
    if o.duration_filter != -1:
        raise UnsupportedVersionError(
            "ListTransactionsRequest v0: DurationFilter cannot be carried"
        )
    if o.transactional_id_pattern is not None:
        raise UnsupportedVersionError(
            "ListTransactionsRequest v0: TransactionalIdPattern cannot be carried"
        )
    x_state_filters = o.state_filters
    write_compact_array_length(b, len(x_state_filters))
    for e_state_filters in x_state_filters:
        write_compact_string(b, e_state_filters)
    x_producer_id_filters = o.producer_id_filters
    write_compact_array_length(b, len(x_producer_id_filters))
    write_number_array(b, "q", x_producer_id_filters)
    b.append(0)  # no tagged fields


def _encode_ListTransactionsRequest_v1(o: ListTransactionsRequest, b: bytearray) -> None:
    """Versions 1."""
    if o.transactional_id_pattern is not None:
        raise UnsupportedVersionError(
            "ListTransactionsRequest v1: TransactionalIdPattern cannot be carried"
        )
    x_state_filters = o.state_filters
    write_compact_array_length(b, len(x_state_filters))
    for e_state_filters in x_state_filters:
        write_compact_string(b, e_state_filters)
    x_producer_id_filters = o.producer_id_filters
    write_compact_array_length(b, len(x_producer_id_filters))
    write_number_array(b, "q", x_producer_id_filters)
    b += _S_q.pack(o.duration_filter)
    b.append(0)  # no tagged fields


def _encode_ListTransactionsRequest_v2(o: ListTransactionsRequest, b: bytearray) -> None:
    """Versions 2."""
    x_state_filters = o.state_filters
    write_compact_array_length(b, len(x_state_filters))
    for e_state_filters in x_state_filters:
        write_compact_string(b, e_state_filters)
    x_producer_id_filters = o.producer_id_filters
    write_compact_array_length(b, len(x_producer_id_filters))
    write_number_array(b, "q", x_producer_id_filters)
    b += _S_q.pack(o.duration_filter)
    write_compact_nullable_string(b, o.transactional_id_pattern)
    b.append(0)  # no tagged fields


def _decode_ListTransactionsRequest_v0(
    buf: memoryview, pos: int
) -> tuple[ListTransactionsRequest, int]:
    """Versions 0."""
    n, pos = read_compact_array_length(buf, pos)
    f_state_filters: list[str]
    if n < 0:
        raise DecodeError("StateFilters: null where it is not nullable")
    f_state_filters = []
    for _ in range(n):
        e_state_filters, pos = read_compact_string(buf, pos)
        f_state_filters.append(e_state_filters)
    n, pos = read_compact_array_length(buf, pos)
    f_producer_id_filters: list[int]
    if n < 0:
        raise DecodeError("ProducerIdFilters: null where it is not nullable")
    f_producer_id_filters, pos = read_number_array(buf, pos, n, "q", 8)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListTransactionsRequest(f_state_filters, f_producer_id_filters, -1, None), pos


def _decode_ListTransactionsRequest_v1(
    buf: memoryview, pos: int
) -> tuple[ListTransactionsRequest, int]:
    """Versions 1."""
    n, pos = read_compact_array_length(buf, pos)
    f_state_filters: list[str]
    if n < 0:
        raise DecodeError("StateFilters: null where it is not nullable")
    f_state_filters = []
    for _ in range(n):
        e_state_filters, pos = read_compact_string(buf, pos)
        f_state_filters.append(e_state_filters)
    n, pos = read_compact_array_length(buf, pos)
    f_producer_id_filters: list[int]
    if n < 0:
        raise DecodeError("ProducerIdFilters: null where it is not nullable")
    f_producer_id_filters, pos = read_number_array(buf, pos, n, "q", 8)
    (f_duration_filter,) = _S_q.unpack_from(buf, pos)
    pos += 8
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListTransactionsRequest(
        f_state_filters, f_producer_id_filters, f_duration_filter, None
    ), pos


def _decode_ListTransactionsRequest_v2(
    buf: memoryview, pos: int
) -> tuple[ListTransactionsRequest, int]:
    """Versions 2."""
    n, pos = read_compact_array_length(buf, pos)
    f_state_filters: list[str]
    if n < 0:
        raise DecodeError("StateFilters: null where it is not nullable")
    f_state_filters = []
    for _ in range(n):
        e_state_filters, pos = read_compact_string(buf, pos)
        f_state_filters.append(e_state_filters)
    n, pos = read_compact_array_length(buf, pos)
    f_producer_id_filters: list[int]
    if n < 0:
        raise DecodeError("ProducerIdFilters: null where it is not nullable")
    f_producer_id_filters, pos = read_number_array(buf, pos, n, "q", 8)
    (f_duration_filter,) = _S_q.unpack_from(buf, pos)
    pos += 8
    f_transactional_id_pattern, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListTransactionsRequest(
        f_state_filters, f_producer_id_filters, f_duration_filter, f_transactional_id_pattern
    ), pos


def _encode_ConsumerGroupHeartbeatResponse_TopicPartitions_v0(
    o: ConsumerGroupHeartbeatResponse.TopicPartitions, b: bytearray
) -> None:
    """Versions 0-1."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    write_number_array(b, "i", x_partitions)
    b.append(0)  # no tagged fields


def _encode_ConsumerGroupHeartbeatResponse_Assignment_v0(
    o: ConsumerGroupHeartbeatResponse.Assignment, b: bytearray
) -> None:
    """Versions 0-1."""
    x_topic_partitions = o.topic_partitions
    write_compact_array_length(b, len(x_topic_partitions))
    for e_topic_partitions in x_topic_partitions:
        _encode_ConsumerGroupHeartbeatResponse_TopicPartitions_v0(e_topic_partitions, b)
    b.append(0)  # no tagged fields


def _encode_ConsumerGroupHeartbeatResponse_v0(
    o: ConsumerGroupHeartbeatResponse, b: bytearray
) -> None:
    """Versions 0-1."""
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    write_compact_nullable_string(b, o.member_id)
    b += _S_ii.pack(o.member_epoch, o.heartbeat_interval_ms)
    x_assignment = o.assignment
    if x_assignment is None:
        b.append(0xFF)  # int8 -1: null
    else:
        b.append(1)
        _encode_ConsumerGroupHeartbeatResponse_Assignment_v0(x_assignment, b)
    b.append(0)  # no tagged fields


def _decode_ConsumerGroupHeartbeatResponse_TopicPartitions_v0(
    buf: memoryview, pos: int
) -> tuple[ConsumerGroupHeartbeatResponse.TopicPartitions, int]:
    """Versions 0-1."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[int]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions, pos = read_number_array(buf, pos, n, "i", 4)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ConsumerGroupHeartbeatResponse.TopicPartitions(f_topic_id, f_partitions), pos


def _decode_ConsumerGroupHeartbeatResponse_Assignment_v0(
    buf: memoryview, pos: int
) -> tuple[ConsumerGroupHeartbeatResponse.Assignment, int]:
    """Versions 0-1."""
    n, pos = read_compact_array_length(buf, pos)
    f_topic_partitions: list[ConsumerGroupHeartbeatResponse.TopicPartitions]
    if n < 0:
        raise DecodeError("TopicPartitions: null where it is not nullable")
    f_topic_partitions = []
    for _ in range(n):
        e_topic_partitions, pos = _decode_ConsumerGroupHeartbeatResponse_TopicPartitions_v0(
            buf, pos
        )
        f_topic_partitions.append(e_topic_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ConsumerGroupHeartbeatResponse.Assignment(f_topic_partitions), pos


def _decode_ConsumerGroupHeartbeatResponse_v0(
    buf: memoryview, pos: int
) -> tuple[ConsumerGroupHeartbeatResponse, int]:
    """Versions 0-1."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    f_member_id, pos = read_compact_nullable_string(buf, pos)
    f_member_epoch, f_heartbeat_interval_ms = _S_ii.unpack_from(buf, pos)
    pos += 8
    f_assignment: ConsumerGroupHeartbeatResponse.Assignment | None
    if buf[pos] & 0x80:  # int8 -1: null
        f_assignment = None
        pos += 1
    else:
        f_assignment, pos = _decode_ConsumerGroupHeartbeatResponse_Assignment_v0(buf, pos + 1)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ConsumerGroupHeartbeatResponse(
        f_throttle_time_ms,
        f_error_code,
        f_error_message,
        f_member_id,
        f_member_epoch,
        f_heartbeat_interval_ms,
        f_assignment,
    ), pos


def _encode_ConsumerGroupHeartbeatRequest_TopicPartitions_v0(
    o: ConsumerGroupHeartbeatRequest.TopicPartitions, b: bytearray
) -> None:
    """Versions 0-1."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    write_number_array(b, "i", x_partitions)
    b.append(0)  # no tagged fields


def _encode_ConsumerGroupHeartbeatRequest_v0(
    o: ConsumerGroupHeartbeatRequest, b: bytearray
) -> None:
    """Versions 0."""
    if o.subscribed_topic_regex is not None:
        raise UnsupportedVersionError(
            "ConsumerGroupHeartbeatRequest v0: SubscribedTopicRegex cannot be carried"
        )
    write_compact_string(b, o.group_id)
    write_compact_string(b, o.member_id)
    b += _S_i.pack(o.member_epoch)
    write_compact_nullable_string(b, o.instance_id)
    write_compact_nullable_string(b, o.rack_id)
    b += _S_i.pack(o.rebalance_timeout_ms)
    x_subscribed_topic_names = o.subscribed_topic_names
    write_compact_array_length(
        b, None if x_subscribed_topic_names is None else len(x_subscribed_topic_names)
    )
    if x_subscribed_topic_names is not None:
        for e_subscribed_topic_names in x_subscribed_topic_names:
            write_compact_string(b, e_subscribed_topic_names)
    write_compact_nullable_string(b, o.server_assignor)
    x_topic_partitions = o.topic_partitions
    write_compact_array_length(b, None if x_topic_partitions is None else len(x_topic_partitions))
    if x_topic_partitions is not None:
        for e_topic_partitions in x_topic_partitions:
            _encode_ConsumerGroupHeartbeatRequest_TopicPartitions_v0(e_topic_partitions, b)
    b.append(0)  # no tagged fields


def _encode_ConsumerGroupHeartbeatRequest_v1(
    o: ConsumerGroupHeartbeatRequest, b: bytearray
) -> None:
    """Versions 1."""
    write_compact_string(b, o.group_id)
    write_compact_string(b, o.member_id)
    b += _S_i.pack(o.member_epoch)
    write_compact_nullable_string(b, o.instance_id)
    write_compact_nullable_string(b, o.rack_id)
    b += _S_i.pack(o.rebalance_timeout_ms)
    x_subscribed_topic_names = o.subscribed_topic_names
    write_compact_array_length(
        b, None if x_subscribed_topic_names is None else len(x_subscribed_topic_names)
    )
    if x_subscribed_topic_names is not None:
        for e_subscribed_topic_names in x_subscribed_topic_names:
            write_compact_string(b, e_subscribed_topic_names)
    write_compact_nullable_string(b, o.subscribed_topic_regex)
    write_compact_nullable_string(b, o.server_assignor)
    x_topic_partitions = o.topic_partitions
    write_compact_array_length(b, None if x_topic_partitions is None else len(x_topic_partitions))
    if x_topic_partitions is not None:
        for e_topic_partitions in x_topic_partitions:
            _encode_ConsumerGroupHeartbeatRequest_TopicPartitions_v0(e_topic_partitions, b)
    b.append(0)  # no tagged fields


def _decode_ConsumerGroupHeartbeatRequest_TopicPartitions_v0(
    buf: memoryview, pos: int
) -> tuple[ConsumerGroupHeartbeatRequest.TopicPartitions, int]:
    """Versions 0-1."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[int]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions, pos = read_number_array(buf, pos, n, "i", 4)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ConsumerGroupHeartbeatRequest.TopicPartitions(f_topic_id, f_partitions), pos


def _decode_ConsumerGroupHeartbeatRequest_v0(
    buf: memoryview, pos: int
) -> tuple[ConsumerGroupHeartbeatRequest, int]:
    """Versions 0."""
    f_group_id, pos = read_compact_string(buf, pos)
    f_member_id, pos = read_compact_string(buf, pos)
    (f_member_epoch,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_instance_id, pos = read_compact_nullable_string(buf, pos)
    f_rack_id, pos = read_compact_nullable_string(buf, pos)
    (f_rebalance_timeout_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_subscribed_topic_names: list[str] | None
    if n < 0:
        f_subscribed_topic_names = None
    else:
        f_subscribed_topic_names = []
        for _ in range(n):
            e_subscribed_topic_names, pos = read_compact_string(buf, pos)
            f_subscribed_topic_names.append(e_subscribed_topic_names)
    f_server_assignor, pos = read_compact_nullable_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_topic_partitions: list[ConsumerGroupHeartbeatRequest.TopicPartitions] | None
    if n < 0:
        f_topic_partitions = None
    else:
        f_topic_partitions = []
        for _ in range(n):
            e_topic_partitions, pos = _decode_ConsumerGroupHeartbeatRequest_TopicPartitions_v0(
                buf, pos
            )
            f_topic_partitions.append(e_topic_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ConsumerGroupHeartbeatRequest(
        f_group_id,
        f_member_id,
        f_member_epoch,
        f_instance_id,
        f_rack_id,
        f_rebalance_timeout_ms,
        f_subscribed_topic_names,
        None,
        f_server_assignor,
        f_topic_partitions,
    ), pos


def _decode_ConsumerGroupHeartbeatRequest_v1(
    buf: memoryview, pos: int
) -> tuple[ConsumerGroupHeartbeatRequest, int]:
    """Versions 1."""
    f_group_id, pos = read_compact_string(buf, pos)
    f_member_id, pos = read_compact_string(buf, pos)
    (f_member_epoch,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_instance_id, pos = read_compact_nullable_string(buf, pos)
    f_rack_id, pos = read_compact_nullable_string(buf, pos)
    (f_rebalance_timeout_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_subscribed_topic_names: list[str] | None
    if n < 0:
        f_subscribed_topic_names = None
    else:
        f_subscribed_topic_names = []
        for _ in range(n):
            e_subscribed_topic_names, pos = read_compact_string(buf, pos)
            f_subscribed_topic_names.append(e_subscribed_topic_names)
    f_subscribed_topic_regex, pos = read_compact_nullable_string(buf, pos)
    f_server_assignor, pos = read_compact_nullable_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_topic_partitions: list[ConsumerGroupHeartbeatRequest.TopicPartitions] | None
    if n < 0:
        f_topic_partitions = None
    else:
        f_topic_partitions = []
        for _ in range(n):
            e_topic_partitions, pos = _decode_ConsumerGroupHeartbeatRequest_TopicPartitions_v0(
                buf, pos
            )
            f_topic_partitions.append(e_topic_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ConsumerGroupHeartbeatRequest(
        f_group_id,
        f_member_id,
        f_member_epoch,
        f_instance_id,
        f_rack_id,
        f_rebalance_timeout_ms,
        f_subscribed_topic_names,
        f_subscribed_topic_regex,
        f_server_assignor,
        f_topic_partitions,
    ), pos


def _encode_ConsumerGroupDescribeResponse_TopicPartitions_v0(
    o: ConsumerGroupDescribeResponse.TopicPartitions, b: bytearray
) -> None:
    """Versions 0-1."""
    b += _S_u.pack(o.topic_id.bytes)
    write_compact_string(b, o.topic_name)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    write_number_array(b, "i", x_partitions)
    b.append(0)  # no tagged fields


def _encode_ConsumerGroupDescribeResponse_Assignment_v0(
    o: ConsumerGroupDescribeResponse.Assignment, b: bytearray
) -> None:
    """Versions 0-1."""
    x_topic_partitions = o.topic_partitions
    write_compact_array_length(b, len(x_topic_partitions))
    for e_topic_partitions in x_topic_partitions:
        _encode_ConsumerGroupDescribeResponse_TopicPartitions_v0(e_topic_partitions, b)
    b.append(0)  # no tagged fields


def _encode_ConsumerGroupDescribeResponse_Member_v0(
    o: ConsumerGroupDescribeResponse.Member, b: bytearray
) -> None:
    """Versions 0."""
    write_compact_string(b, o.member_id)
    write_compact_nullable_string(b, o.instance_id)
    write_compact_nullable_string(b, o.rack_id)
    b += _S_i.pack(o.member_epoch)
    write_compact_string(b, o.client_id)
    write_compact_string(b, o.client_host)
    x_subscribed_topic_names = o.subscribed_topic_names
    write_compact_array_length(b, len(x_subscribed_topic_names))
    for e_subscribed_topic_names in x_subscribed_topic_names:
        write_compact_string(b, e_subscribed_topic_names)
    write_compact_nullable_string(b, o.subscribed_topic_regex)
    _encode_ConsumerGroupDescribeResponse_Assignment_v0(o.assignment, b)
    _encode_ConsumerGroupDescribeResponse_Assignment_v0(o.target_assignment, b)
    b.append(0)  # no tagged fields


def _encode_ConsumerGroupDescribeResponse_DescribedGroup_v0(
    o: ConsumerGroupDescribeResponse.DescribedGroup, b: bytearray
) -> None:
    """Versions 0."""
    b += _S_h.pack(o.error_code)
    write_compact_nullable_string(b, o.error_message)
    write_compact_string(b, o.group_id)
    write_compact_string(b, o.group_state)
    b += _S_ii.pack(o.group_epoch, o.assignment_epoch)
    write_compact_string(b, o.assignor_name)
    x_members = o.members
    write_compact_array_length(b, len(x_members))
    for e_members in x_members:
        _encode_ConsumerGroupDescribeResponse_Member_v0(e_members, b)
    b += _S_i.pack(o.authorized_operations)
    b.append(0)  # no tagged fields


def _encode_ConsumerGroupDescribeResponse_v0(
    o: ConsumerGroupDescribeResponse, b: bytearray
) -> None:
    """Versions 0."""
    b += _S_i.pack(o.throttle_time_ms)
    x_groups = o.groups
    write_compact_array_length(b, len(x_groups))
    for e_groups in x_groups:
        _encode_ConsumerGroupDescribeResponse_DescribedGroup_v0(e_groups, b)
    b.append(0)  # no tagged fields


def _encode_ConsumerGroupDescribeResponse_Member_v1(
    o: ConsumerGroupDescribeResponse.Member, b: bytearray
) -> None:
    """Versions 1."""
    write_compact_string(b, o.member_id)
    write_compact_nullable_string(b, o.instance_id)
    write_compact_nullable_string(b, o.rack_id)
    b += _S_i.pack(o.member_epoch)
    write_compact_string(b, o.client_id)
    write_compact_string(b, o.client_host)
    x_subscribed_topic_names = o.subscribed_topic_names
    write_compact_array_length(b, len(x_subscribed_topic_names))
    for e_subscribed_topic_names in x_subscribed_topic_names:
        write_compact_string(b, e_subscribed_topic_names)
    write_compact_nullable_string(b, o.subscribed_topic_regex)
    _encode_ConsumerGroupDescribeResponse_Assignment_v0(o.assignment, b)
    _encode_ConsumerGroupDescribeResponse_Assignment_v0(o.target_assignment, b)
    b += _S_b.pack(o.member_type)
    b.append(0)  # no tagged fields


def _encode_ConsumerGroupDescribeResponse_DescribedGroup_v1(
    o: ConsumerGroupDescribeResponse.DescribedGroup, b: bytearray
) -> None:
    """Versions 1."""
    b += _S_h.pack(o.error_code)
    write_compact_nullable_string(b, o.error_message)
    write_compact_string(b, o.group_id)
    write_compact_string(b, o.group_state)
    b += _S_ii.pack(o.group_epoch, o.assignment_epoch)
    write_compact_string(b, o.assignor_name)
    x_members = o.members
    write_compact_array_length(b, len(x_members))
    for e_members in x_members:
        _encode_ConsumerGroupDescribeResponse_Member_v1(e_members, b)
    b += _S_i.pack(o.authorized_operations)
    b.append(0)  # no tagged fields


def _encode_ConsumerGroupDescribeResponse_v1(
    o: ConsumerGroupDescribeResponse, b: bytearray
) -> None:
    """Versions 1."""
    b += _S_i.pack(o.throttle_time_ms)
    x_groups = o.groups
    write_compact_array_length(b, len(x_groups))
    for e_groups in x_groups:
        _encode_ConsumerGroupDescribeResponse_DescribedGroup_v1(e_groups, b)
    b.append(0)  # no tagged fields


def _decode_ConsumerGroupDescribeResponse_TopicPartitions_v0(
    buf: memoryview, pos: int
) -> tuple[ConsumerGroupDescribeResponse.TopicPartitions, int]:
    """Versions 0-1."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    f_topic_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[int]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions, pos = read_number_array(buf, pos, n, "i", 4)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ConsumerGroupDescribeResponse.TopicPartitions(
        f_topic_id, f_topic_name, f_partitions
    ), pos


def _decode_ConsumerGroupDescribeResponse_Assignment_v0(
    buf: memoryview, pos: int
) -> tuple[ConsumerGroupDescribeResponse.Assignment, int]:
    """Versions 0-1."""
    n, pos = read_compact_array_length(buf, pos)
    f_topic_partitions: list[ConsumerGroupDescribeResponse.TopicPartitions]
    if n < 0:
        raise DecodeError("TopicPartitions: null where it is not nullable")
    f_topic_partitions = []
    for _ in range(n):
        e_topic_partitions, pos = _decode_ConsumerGroupDescribeResponse_TopicPartitions_v0(buf, pos)
        f_topic_partitions.append(e_topic_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ConsumerGroupDescribeResponse.Assignment(f_topic_partitions), pos


def _decode_ConsumerGroupDescribeResponse_Member_v0(
    buf: memoryview, pos: int
) -> tuple[ConsumerGroupDescribeResponse.Member, int]:
    """Versions 0."""
    f_member_id, pos = read_compact_string(buf, pos)
    f_instance_id, pos = read_compact_nullable_string(buf, pos)
    f_rack_id, pos = read_compact_nullable_string(buf, pos)
    (f_member_epoch,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_client_id, pos = read_compact_string(buf, pos)
    f_client_host, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_subscribed_topic_names: list[str]
    if n < 0:
        raise DecodeError("SubscribedTopicNames: null where it is not nullable")
    f_subscribed_topic_names = []
    for _ in range(n):
        e_subscribed_topic_names, pos = read_compact_string(buf, pos)
        f_subscribed_topic_names.append(e_subscribed_topic_names)
    f_subscribed_topic_regex, pos = read_compact_nullable_string(buf, pos)
    f_assignment, pos = _decode_ConsumerGroupDescribeResponse_Assignment_v0(buf, pos)
    f_target_assignment, pos = _decode_ConsumerGroupDescribeResponse_Assignment_v0(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ConsumerGroupDescribeResponse.Member(
        f_member_id,
        f_instance_id,
        f_rack_id,
        f_member_epoch,
        f_client_id,
        f_client_host,
        f_subscribed_topic_names,
        f_subscribed_topic_regex,
        f_assignment,
        f_target_assignment,
        -1,
    ), pos


def _decode_ConsumerGroupDescribeResponse_DescribedGroup_v0(
    buf: memoryview, pos: int
) -> tuple[ConsumerGroupDescribeResponse.DescribedGroup, int]:
    """Versions 0."""
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    f_group_id, pos = read_compact_string(buf, pos)
    f_group_state, pos = read_compact_string(buf, pos)
    f_group_epoch, f_assignment_epoch = _S_ii.unpack_from(buf, pos)
    pos += 8
    f_assignor_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_members: list[ConsumerGroupDescribeResponse.Member]
    if n < 0:
        raise DecodeError("Members: null where it is not nullable")
    f_members = []
    for _ in range(n):
        e_members, pos = _decode_ConsumerGroupDescribeResponse_Member_v0(buf, pos)
        f_members.append(e_members)
    (f_authorized_operations,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ConsumerGroupDescribeResponse.DescribedGroup(
        f_error_code,
        f_error_message,
        f_group_id,
        f_group_state,
        f_group_epoch,
        f_assignment_epoch,
        f_assignor_name,
        f_members,
        f_authorized_operations,
    ), pos


def _decode_ConsumerGroupDescribeResponse_v0(
    buf: memoryview, pos: int
) -> tuple[ConsumerGroupDescribeResponse, int]:
    """Versions 0."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_groups: list[ConsumerGroupDescribeResponse.DescribedGroup]
    if n < 0:
        raise DecodeError("Groups: null where it is not nullable")
    f_groups = []
    for _ in range(n):
        e_groups, pos = _decode_ConsumerGroupDescribeResponse_DescribedGroup_v0(buf, pos)
        f_groups.append(e_groups)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ConsumerGroupDescribeResponse(f_throttle_time_ms, f_groups), pos


def _decode_ConsumerGroupDescribeResponse_Member_v1(
    buf: memoryview, pos: int
) -> tuple[ConsumerGroupDescribeResponse.Member, int]:
    """Versions 1."""
    f_member_id, pos = read_compact_string(buf, pos)
    f_instance_id, pos = read_compact_nullable_string(buf, pos)
    f_rack_id, pos = read_compact_nullable_string(buf, pos)
    (f_member_epoch,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_client_id, pos = read_compact_string(buf, pos)
    f_client_host, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_subscribed_topic_names: list[str]
    if n < 0:
        raise DecodeError("SubscribedTopicNames: null where it is not nullable")
    f_subscribed_topic_names = []
    for _ in range(n):
        e_subscribed_topic_names, pos = read_compact_string(buf, pos)
        f_subscribed_topic_names.append(e_subscribed_topic_names)
    f_subscribed_topic_regex, pos = read_compact_nullable_string(buf, pos)
    f_assignment, pos = _decode_ConsumerGroupDescribeResponse_Assignment_v0(buf, pos)
    f_target_assignment, pos = _decode_ConsumerGroupDescribeResponse_Assignment_v0(buf, pos)
    (f_member_type,) = _S_b.unpack_from(buf, pos)
    pos += 1
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ConsumerGroupDescribeResponse.Member(
        f_member_id,
        f_instance_id,
        f_rack_id,
        f_member_epoch,
        f_client_id,
        f_client_host,
        f_subscribed_topic_names,
        f_subscribed_topic_regex,
        f_assignment,
        f_target_assignment,
        f_member_type,
    ), pos


def _decode_ConsumerGroupDescribeResponse_DescribedGroup_v1(
    buf: memoryview, pos: int
) -> tuple[ConsumerGroupDescribeResponse.DescribedGroup, int]:
    """Versions 1."""
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    f_group_id, pos = read_compact_string(buf, pos)
    f_group_state, pos = read_compact_string(buf, pos)
    f_group_epoch, f_assignment_epoch = _S_ii.unpack_from(buf, pos)
    pos += 8
    f_assignor_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_members: list[ConsumerGroupDescribeResponse.Member]
    if n < 0:
        raise DecodeError("Members: null where it is not nullable")
    f_members = []
    for _ in range(n):
        e_members, pos = _decode_ConsumerGroupDescribeResponse_Member_v1(buf, pos)
        f_members.append(e_members)
    (f_authorized_operations,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ConsumerGroupDescribeResponse.DescribedGroup(
        f_error_code,
        f_error_message,
        f_group_id,
        f_group_state,
        f_group_epoch,
        f_assignment_epoch,
        f_assignor_name,
        f_members,
        f_authorized_operations,
    ), pos


def _decode_ConsumerGroupDescribeResponse_v1(
    buf: memoryview, pos: int
) -> tuple[ConsumerGroupDescribeResponse, int]:
    """Versions 1."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_groups: list[ConsumerGroupDescribeResponse.DescribedGroup]
    if n < 0:
        raise DecodeError("Groups: null where it is not nullable")
    f_groups = []
    for _ in range(n):
        e_groups, pos = _decode_ConsumerGroupDescribeResponse_DescribedGroup_v1(buf, pos)
        f_groups.append(e_groups)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ConsumerGroupDescribeResponse(f_throttle_time_ms, f_groups), pos


def _encode_ConsumerGroupDescribeRequest_v0(o: ConsumerGroupDescribeRequest, b: bytearray) -> None:
    """Versions 0-1."""
    x_group_ids = o.group_ids
    write_compact_array_length(b, len(x_group_ids))
    for e_group_ids in x_group_ids:
        write_compact_string(b, e_group_ids)
    b += _S_o.pack(o.include_authorized_operations)
    b.append(0)  # no tagged fields


def _decode_ConsumerGroupDescribeRequest_v0(
    buf: memoryview, pos: int
) -> tuple[ConsumerGroupDescribeRequest, int]:
    """Versions 0-1."""
    n, pos = read_compact_array_length(buf, pos)
    f_group_ids: list[str]
    if n < 0:
        raise DecodeError("GroupIds: null where it is not nullable")
    f_group_ids = []
    for _ in range(n):
        e_group_ids, pos = read_compact_string(buf, pos)
        f_group_ids.append(e_group_ids)
    (f_include_authorized_operations,) = _S_o.unpack_from(buf, pos)
    pos += 1
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ConsumerGroupDescribeRequest(f_group_ids, f_include_authorized_operations), pos


def _encode_OffsetCommitResponse_OffsetCommitResponsePartition_v8(
    o: OffsetCommitResponse.OffsetCommitResponsePartition, b: bytearray
) -> None:
    """Versions 8-10."""
    b += _S_ih.pack(o.partition_index, o.error_code)
    b.append(0)  # no tagged fields


def _encode_OffsetCommitResponse_OffsetCommitResponseTopic_v8(
    o: OffsetCommitResponse.OffsetCommitResponseTopic, b: bytearray
) -> None:
    """Versions 8-9."""
    write_compact_string(b, o.name)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_OffsetCommitResponse_OffsetCommitResponsePartition_v8(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_OffsetCommitResponse_v8(o: OffsetCommitResponse, b: bytearray) -> None:
    """Versions 8-9."""
    b += _S_i.pack(o.throttle_time_ms)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_OffsetCommitResponse_OffsetCommitResponseTopic_v8(e_topics, b)
    b.append(0)  # no tagged fields


def _encode_OffsetCommitResponse_OffsetCommitResponseTopic_v10(
    o: OffsetCommitResponse.OffsetCommitResponseTopic, b: bytearray
) -> None:
    """Versions 10."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_OffsetCommitResponse_OffsetCommitResponsePartition_v8(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_OffsetCommitResponse_v10(o: OffsetCommitResponse, b: bytearray) -> None:
    """Versions 10."""
    b += _S_i.pack(o.throttle_time_ms)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_OffsetCommitResponse_OffsetCommitResponseTopic_v10(e_topics, b)
    b.append(0)  # no tagged fields


def _decode_OffsetCommitResponse_OffsetCommitResponsePartition_v8(
    buf: memoryview, pos: int
) -> tuple[OffsetCommitResponse.OffsetCommitResponsePartition, int]:
    """Versions 8-10."""
    f_partition_index, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetCommitResponse.OffsetCommitResponsePartition(f_partition_index, f_error_code), pos


def _decode_OffsetCommitResponse_OffsetCommitResponseTopic_v8(
    buf: memoryview, pos: int
) -> tuple[OffsetCommitResponse.OffsetCommitResponseTopic, int]:
    """Versions 8-9."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[OffsetCommitResponse.OffsetCommitResponsePartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_OffsetCommitResponse_OffsetCommitResponsePartition_v8(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetCommitResponse.OffsetCommitResponseTopic(f_name, ZERO_UUID, f_partitions), pos


def _decode_OffsetCommitResponse_v8(buf: memoryview, pos: int) -> tuple[OffsetCommitResponse, int]:
    """Versions 8-9."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[OffsetCommitResponse.OffsetCommitResponseTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_OffsetCommitResponse_OffsetCommitResponseTopic_v8(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetCommitResponse(f_throttle_time_ms, f_topics), pos


def _decode_OffsetCommitResponse_OffsetCommitResponseTopic_v10(
    buf: memoryview, pos: int
) -> tuple[OffsetCommitResponse.OffsetCommitResponseTopic, int]:
    """Versions 10."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[OffsetCommitResponse.OffsetCommitResponsePartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_OffsetCommitResponse_OffsetCommitResponsePartition_v8(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetCommitResponse.OffsetCommitResponseTopic("", f_topic_id, f_partitions), pos


def _decode_OffsetCommitResponse_v10(buf: memoryview, pos: int) -> tuple[OffsetCommitResponse, int]:
    """Versions 10."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[OffsetCommitResponse.OffsetCommitResponseTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_OffsetCommitResponse_OffsetCommitResponseTopic_v10(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetCommitResponse(f_throttle_time_ms, f_topics), pos


def _encode_OffsetCommitRequest_OffsetCommitRequestPartition_v8(
    o: OffsetCommitRequest.OffsetCommitRequestPartition, b: bytearray
) -> None:
    """Versions 8-10."""
    b += _S_iqi.pack(o.partition_index, o.committed_offset, o.committed_leader_epoch)
    write_compact_nullable_string(b, o.committed_metadata)
    b.append(0)  # no tagged fields


def _encode_OffsetCommitRequest_OffsetCommitRequestTopic_v8(
    o: OffsetCommitRequest.OffsetCommitRequestTopic, b: bytearray
) -> None:
    """Versions 8-9."""
    write_compact_string(b, o.name)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_OffsetCommitRequest_OffsetCommitRequestPartition_v8(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_OffsetCommitRequest_v8(o: OffsetCommitRequest, b: bytearray) -> None:
    """Versions 8-9."""
    write_compact_string(b, o.group_id)
    b += _S_i.pack(o.generation_id_or_member_epoch)
    write_compact_string(b, o.member_id)
    write_compact_nullable_string(b, o.group_instance_id)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_OffsetCommitRequest_OffsetCommitRequestTopic_v8(e_topics, b)
    b.append(0)  # no tagged fields


def _encode_OffsetCommitRequest_OffsetCommitRequestTopic_v10(
    o: OffsetCommitRequest.OffsetCommitRequestTopic, b: bytearray
) -> None:
    """Versions 10."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_OffsetCommitRequest_OffsetCommitRequestPartition_v8(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_OffsetCommitRequest_v10(o: OffsetCommitRequest, b: bytearray) -> None:
    """Versions 10."""
    write_compact_string(b, o.group_id)
    b += _S_i.pack(o.generation_id_or_member_epoch)
    write_compact_string(b, o.member_id)
    write_compact_nullable_string(b, o.group_instance_id)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_OffsetCommitRequest_OffsetCommitRequestTopic_v10(e_topics, b)
    b.append(0)  # no tagged fields


def _decode_OffsetCommitRequest_OffsetCommitRequestPartition_v8(
    buf: memoryview, pos: int
) -> tuple[OffsetCommitRequest.OffsetCommitRequestPartition, int]:
    """Versions 8-10."""
    f_partition_index, f_committed_offset, f_committed_leader_epoch = _S_iqi.unpack_from(buf, pos)
    pos += 16
    f_committed_metadata, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetCommitRequest.OffsetCommitRequestPartition(
        f_partition_index, f_committed_offset, f_committed_leader_epoch, f_committed_metadata
    ), pos


def _decode_OffsetCommitRequest_OffsetCommitRequestTopic_v8(
    buf: memoryview, pos: int
) -> tuple[OffsetCommitRequest.OffsetCommitRequestTopic, int]:
    """Versions 8-9."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[OffsetCommitRequest.OffsetCommitRequestPartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_OffsetCommitRequest_OffsetCommitRequestPartition_v8(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetCommitRequest.OffsetCommitRequestTopic(f_name, ZERO_UUID, f_partitions), pos


def _decode_OffsetCommitRequest_v8(buf: memoryview, pos: int) -> tuple[OffsetCommitRequest, int]:
    """Versions 8-9."""
    f_group_id, pos = read_compact_string(buf, pos)
    (f_generation_id_or_member_epoch,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_member_id, pos = read_compact_string(buf, pos)
    f_group_instance_id, pos = read_compact_nullable_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[OffsetCommitRequest.OffsetCommitRequestTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_OffsetCommitRequest_OffsetCommitRequestTopic_v8(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetCommitRequest(
        f_group_id, f_generation_id_or_member_epoch, f_member_id, f_group_instance_id, f_topics
    ), pos


def _decode_OffsetCommitRequest_OffsetCommitRequestTopic_v10(
    buf: memoryview, pos: int
) -> tuple[OffsetCommitRequest.OffsetCommitRequestTopic, int]:
    """Versions 10."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[OffsetCommitRequest.OffsetCommitRequestPartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_OffsetCommitRequest_OffsetCommitRequestPartition_v8(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetCommitRequest.OffsetCommitRequestTopic("", f_topic_id, f_partitions), pos


def _decode_OffsetCommitRequest_v10(buf: memoryview, pos: int) -> tuple[OffsetCommitRequest, int]:
    """Versions 10."""
    f_group_id, pos = read_compact_string(buf, pos)
    (f_generation_id_or_member_epoch,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_member_id, pos = read_compact_string(buf, pos)
    f_group_instance_id, pos = read_compact_nullable_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[OffsetCommitRequest.OffsetCommitRequestTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_OffsetCommitRequest_OffsetCommitRequestTopic_v10(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetCommitRequest(
        f_group_id, f_generation_id_or_member_epoch, f_member_id, f_group_instance_id, f_topics
    ), pos


def _encode_OffsetFetchResponse_OffsetFetchResponsePartition_v6(
    o: OffsetFetchResponse.OffsetFetchResponsePartition, b: bytearray
) -> None:
    """Versions 6-7."""
    b += _S_iqi.pack(o.partition_index, o.committed_offset, o.committed_leader_epoch)
    write_compact_nullable_string(b, o.metadata)
    b += _S_h.pack(o.error_code)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchResponse_OffsetFetchResponseTopic_v6(
    o: OffsetFetchResponse.OffsetFetchResponseTopic, b: bytearray
) -> None:
    """Versions 6-7."""
    write_compact_string(b, o.name)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_OffsetFetchResponse_OffsetFetchResponsePartition_v6(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchResponse_v6(o: OffsetFetchResponse, b: bytearray) -> None:
    """Versions 6-7."""
    if o.groups != []:
        raise UnsupportedVersionError("OffsetFetchResponse v6: Groups cannot be carried")
    b += _S_i.pack(o.throttle_time_ms)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_OffsetFetchResponse_OffsetFetchResponseTopic_v6(e_topics, b)
    b += _S_h.pack(o.error_code)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchResponse_OffsetFetchResponsePartitions_v8(
    o: OffsetFetchResponse.OffsetFetchResponsePartitions, b: bytearray
) -> None:
    """Versions 8-10."""
    b += _S_iqi.pack(o.partition_index, o.committed_offset, o.committed_leader_epoch)
    write_compact_nullable_string(b, o.metadata)
    b += _S_h.pack(o.error_code)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchResponse_OffsetFetchResponseTopics_v8(
    o: OffsetFetchResponse.OffsetFetchResponseTopics, b: bytearray
) -> None:
    """Versions 8-9."""
    write_compact_string(b, o.name)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_OffsetFetchResponse_OffsetFetchResponsePartitions_v8(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchResponse_OffsetFetchResponseGroup_v8(
    o: OffsetFetchResponse.OffsetFetchResponseGroup, b: bytearray
) -> None:
    """Versions 8-9."""
    write_compact_string(b, o.group_id)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_OffsetFetchResponse_OffsetFetchResponseTopics_v8(e_topics, b)
    b += _S_h.pack(o.error_code)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchResponse_v8(o: OffsetFetchResponse, b: bytearray) -> None:
    """Versions 8-9."""
    if o.topics != []:
        raise UnsupportedVersionError("OffsetFetchResponse v8: Topics cannot be carried")
    b += _S_i.pack(o.throttle_time_ms)
    x_groups = o.groups
    write_compact_array_length(b, len(x_groups))
    for e_groups in x_groups:
        _encode_OffsetFetchResponse_OffsetFetchResponseGroup_v8(e_groups, b)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchResponse_OffsetFetchResponseTopics_v10(
    o: OffsetFetchResponse.OffsetFetchResponseTopics, b: bytearray
) -> None:
    """Versions 10."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_OffsetFetchResponse_OffsetFetchResponsePartitions_v8(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchResponse_OffsetFetchResponseGroup_v10(
    o: OffsetFetchResponse.OffsetFetchResponseGroup, b: bytearray
) -> None:
    """Versions 10."""
    write_compact_string(b, o.group_id)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_OffsetFetchResponse_OffsetFetchResponseTopics_v10(e_topics, b)
    b += _S_h.pack(o.error_code)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchResponse_v10(o: OffsetFetchResponse, b: bytearray) -> None:
    """Versions 10."""
    if o.topics != []:
        raise UnsupportedVersionError("OffsetFetchResponse v10: Topics cannot be carried")
    b += _S_i.pack(o.throttle_time_ms)
    x_groups = o.groups
    write_compact_array_length(b, len(x_groups))
    for e_groups in x_groups:
        _encode_OffsetFetchResponse_OffsetFetchResponseGroup_v10(e_groups, b)
    b.append(0)  # no tagged fields


def _decode_OffsetFetchResponse_OffsetFetchResponsePartition_v6(
    buf: memoryview, pos: int
) -> tuple[OffsetFetchResponse.OffsetFetchResponsePartition, int]:
    """Versions 6-7."""
    f_partition_index, f_committed_offset, f_committed_leader_epoch = _S_iqi.unpack_from(buf, pos)
    pos += 16
    f_metadata, pos = read_compact_nullable_string(buf, pos)
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchResponse.OffsetFetchResponsePartition(
        f_partition_index, f_committed_offset, f_committed_leader_epoch, f_metadata, f_error_code
    ), pos


def _decode_OffsetFetchResponse_OffsetFetchResponseTopic_v6(
    buf: memoryview, pos: int
) -> tuple[OffsetFetchResponse.OffsetFetchResponseTopic, int]:
    """Versions 6-7."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[OffsetFetchResponse.OffsetFetchResponsePartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_OffsetFetchResponse_OffsetFetchResponsePartition_v6(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchResponse.OffsetFetchResponseTopic(f_name, f_partitions), pos


def _decode_OffsetFetchResponse_v6(buf: memoryview, pos: int) -> tuple[OffsetFetchResponse, int]:
    """Versions 6-7."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[OffsetFetchResponse.OffsetFetchResponseTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_OffsetFetchResponse_OffsetFetchResponseTopic_v6(buf, pos)
        f_topics.append(e_topics)
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchResponse(f_throttle_time_ms, f_topics, f_error_code, []), pos


def _decode_OffsetFetchResponse_OffsetFetchResponsePartitions_v8(
    buf: memoryview, pos: int
) -> tuple[OffsetFetchResponse.OffsetFetchResponsePartitions, int]:
    """Versions 8-10."""
    f_partition_index, f_committed_offset, f_committed_leader_epoch = _S_iqi.unpack_from(buf, pos)
    pos += 16
    f_metadata, pos = read_compact_nullable_string(buf, pos)
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchResponse.OffsetFetchResponsePartitions(
        f_partition_index, f_committed_offset, f_committed_leader_epoch, f_metadata, f_error_code
    ), pos


def _decode_OffsetFetchResponse_OffsetFetchResponseTopics_v8(
    buf: memoryview, pos: int
) -> tuple[OffsetFetchResponse.OffsetFetchResponseTopics, int]:
    """Versions 8-9."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[OffsetFetchResponse.OffsetFetchResponsePartitions]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_OffsetFetchResponse_OffsetFetchResponsePartitions_v8(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchResponse.OffsetFetchResponseTopics(f_name, ZERO_UUID, f_partitions), pos


def _decode_OffsetFetchResponse_OffsetFetchResponseGroup_v8(
    buf: memoryview, pos: int
) -> tuple[OffsetFetchResponse.OffsetFetchResponseGroup, int]:
    """Versions 8-9."""
    f_group_id, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[OffsetFetchResponse.OffsetFetchResponseTopics]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_OffsetFetchResponse_OffsetFetchResponseTopics_v8(buf, pos)
        f_topics.append(e_topics)
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchResponse.OffsetFetchResponseGroup(f_group_id, f_topics, f_error_code), pos


def _decode_OffsetFetchResponse_v8(buf: memoryview, pos: int) -> tuple[OffsetFetchResponse, int]:
    """Versions 8-9."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_groups: list[OffsetFetchResponse.OffsetFetchResponseGroup]
    if n < 0:
        raise DecodeError("Groups: null where it is not nullable")
    f_groups = []
    for _ in range(n):
        e_groups, pos = _decode_OffsetFetchResponse_OffsetFetchResponseGroup_v8(buf, pos)
        f_groups.append(e_groups)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchResponse(f_throttle_time_ms, [], 0, f_groups), pos


def _decode_OffsetFetchResponse_OffsetFetchResponseTopics_v10(
    buf: memoryview, pos: int
) -> tuple[OffsetFetchResponse.OffsetFetchResponseTopics, int]:
    """Versions 10."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[OffsetFetchResponse.OffsetFetchResponsePartitions]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_OffsetFetchResponse_OffsetFetchResponsePartitions_v8(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchResponse.OffsetFetchResponseTopics("", f_topic_id, f_partitions), pos


def _decode_OffsetFetchResponse_OffsetFetchResponseGroup_v10(
    buf: memoryview, pos: int
) -> tuple[OffsetFetchResponse.OffsetFetchResponseGroup, int]:
    """Versions 10."""
    f_group_id, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[OffsetFetchResponse.OffsetFetchResponseTopics]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_OffsetFetchResponse_OffsetFetchResponseTopics_v10(buf, pos)
        f_topics.append(e_topics)
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchResponse.OffsetFetchResponseGroup(f_group_id, f_topics, f_error_code), pos


def _decode_OffsetFetchResponse_v10(buf: memoryview, pos: int) -> tuple[OffsetFetchResponse, int]:
    """Versions 10."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_groups: list[OffsetFetchResponse.OffsetFetchResponseGroup]
    if n < 0:
        raise DecodeError("Groups: null where it is not nullable")
    f_groups = []
    for _ in range(n):
        e_groups, pos = _decode_OffsetFetchResponse_OffsetFetchResponseGroup_v10(buf, pos)
        f_groups.append(e_groups)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchResponse(f_throttle_time_ms, [], 0, f_groups), pos


def _encode_OffsetFetchRequest_OffsetFetchRequestTopic_v6(
    o: OffsetFetchRequest.OffsetFetchRequestTopic, b: bytearray
) -> None:
    """Versions 6-7."""
    write_compact_string(b, o.name)
    x_partition_indexes = o.partition_indexes
    write_compact_array_length(b, len(x_partition_indexes))
    write_number_array(b, "i", x_partition_indexes)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchRequest_v6(o: OffsetFetchRequest, b: bytearray) -> None:
    """Versions 6."""
    if o.groups != []:
        raise UnsupportedVersionError("OffsetFetchRequest v6: Groups cannot be carried")
    if o.require_stable:
        raise UnsupportedVersionError("OffsetFetchRequest v6: RequireStable cannot be carried")
    write_compact_string(b, o.group_id)
    x_topics = o.topics
    write_compact_array_length(b, None if x_topics is None else len(x_topics))
    if x_topics is not None:
        for e_topics in x_topics:
            _encode_OffsetFetchRequest_OffsetFetchRequestTopic_v6(e_topics, b)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchRequest_v7(o: OffsetFetchRequest, b: bytearray) -> None:
    """Versions 7."""
    if o.groups != []:
        raise UnsupportedVersionError("OffsetFetchRequest v7: Groups cannot be carried")
    write_compact_string(b, o.group_id)
    x_topics = o.topics
    write_compact_array_length(b, None if x_topics is None else len(x_topics))
    if x_topics is not None:
        for e_topics in x_topics:
            _encode_OffsetFetchRequest_OffsetFetchRequestTopic_v6(e_topics, b)
    b += _S_o.pack(o.require_stable)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchRequest_OffsetFetchRequestTopics_v8(
    o: OffsetFetchRequest.OffsetFetchRequestTopics, b: bytearray
) -> None:
    """Versions 8-9."""
    write_compact_string(b, o.name)
    x_partition_indexes = o.partition_indexes
    write_compact_array_length(b, len(x_partition_indexes))
    write_number_array(b, "i", x_partition_indexes)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchRequest_OffsetFetchRequestGroup_v8(
    o: OffsetFetchRequest.OffsetFetchRequestGroup, b: bytearray
) -> None:
    """Versions 8."""
    write_compact_string(b, o.group_id)
    x_topics = o.topics
    write_compact_array_length(b, None if x_topics is None else len(x_topics))
    if x_topics is not None:
        for e_topics in x_topics:
            _encode_OffsetFetchRequest_OffsetFetchRequestTopics_v8(e_topics, b)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchRequest_v8(o: OffsetFetchRequest, b: bytearray) -> None:
    """Versions 8."""
    if o.group_id != "":
        raise UnsupportedVersionError("OffsetFetchRequest v8: GroupId cannot be carried")
    if o.topics != []:
        raise UnsupportedVersionError("OffsetFetchRequest v8: Topics cannot be carried")
    x_groups = o.groups
    write_compact_array_length(b, len(x_groups))
    for e_groups in x_groups:
        _encode_OffsetFetchRequest_OffsetFetchRequestGroup_v8(e_groups, b)
    b += _S_o.pack(o.require_stable)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchRequest_OffsetFetchRequestGroup_v9(
    o: OffsetFetchRequest.OffsetFetchRequestGroup, b: bytearray
) -> None:
    """Versions 9."""
    write_compact_string(b, o.group_id)
    write_compact_nullable_string(b, o.member_id)
    b += _S_i.pack(o.member_epoch)
    x_topics = o.topics
    write_compact_array_length(b, None if x_topics is None else len(x_topics))
    if x_topics is not None:
        for e_topics in x_topics:
            _encode_OffsetFetchRequest_OffsetFetchRequestTopics_v8(e_topics, b)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchRequest_v9(o: OffsetFetchRequest, b: bytearray) -> None:
    """Versions 9."""
    if o.group_id != "":
        raise UnsupportedVersionError("OffsetFetchRequest v9: GroupId cannot be carried")
    if o.topics != []:
        raise UnsupportedVersionError("OffsetFetchRequest v9: Topics cannot be carried")
    x_groups = o.groups
    write_compact_array_length(b, len(x_groups))
    for e_groups in x_groups:
        _encode_OffsetFetchRequest_OffsetFetchRequestGroup_v9(e_groups, b)
    b += _S_o.pack(o.require_stable)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchRequest_OffsetFetchRequestTopics_v10(
    o: OffsetFetchRequest.OffsetFetchRequestTopics, b: bytearray
) -> None:
    """Versions 10."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partition_indexes = o.partition_indexes
    write_compact_array_length(b, len(x_partition_indexes))
    write_number_array(b, "i", x_partition_indexes)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchRequest_OffsetFetchRequestGroup_v10(
    o: OffsetFetchRequest.OffsetFetchRequestGroup, b: bytearray
) -> None:
    """Versions 10."""
    write_compact_string(b, o.group_id)
    write_compact_nullable_string(b, o.member_id)
    b += _S_i.pack(o.member_epoch)
    x_topics = o.topics
    write_compact_array_length(b, None if x_topics is None else len(x_topics))
    if x_topics is not None:
        for e_topics in x_topics:
            _encode_OffsetFetchRequest_OffsetFetchRequestTopics_v10(e_topics, b)
    b.append(0)  # no tagged fields


def _encode_OffsetFetchRequest_v10(o: OffsetFetchRequest, b: bytearray) -> None:
    """Versions 10."""
    if o.group_id != "":
        raise UnsupportedVersionError("OffsetFetchRequest v10: GroupId cannot be carried")
    if o.topics != []:
        raise UnsupportedVersionError("OffsetFetchRequest v10: Topics cannot be carried")
    x_groups = o.groups
    write_compact_array_length(b, len(x_groups))
    for e_groups in x_groups:
        _encode_OffsetFetchRequest_OffsetFetchRequestGroup_v10(e_groups, b)
    b += _S_o.pack(o.require_stable)
    b.append(0)  # no tagged fields


def _decode_OffsetFetchRequest_OffsetFetchRequestTopic_v6(
    buf: memoryview, pos: int
) -> tuple[OffsetFetchRequest.OffsetFetchRequestTopic, int]:
    """Versions 6-7."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partition_indexes: list[int]
    if n < 0:
        raise DecodeError("PartitionIndexes: null where it is not nullable")
    f_partition_indexes, pos = read_number_array(buf, pos, n, "i", 4)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchRequest.OffsetFetchRequestTopic(f_name, f_partition_indexes), pos


def _decode_OffsetFetchRequest_v6(buf: memoryview, pos: int) -> tuple[OffsetFetchRequest, int]:
    """Versions 6."""
    f_group_id, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[OffsetFetchRequest.OffsetFetchRequestTopic] | None
    if n < 0:
        f_topics = None
    else:
        f_topics = []
        for _ in range(n):
            e_topics, pos = _decode_OffsetFetchRequest_OffsetFetchRequestTopic_v6(buf, pos)
            f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchRequest(f_group_id, f_topics, [], False), pos


def _decode_OffsetFetchRequest_v7(buf: memoryview, pos: int) -> tuple[OffsetFetchRequest, int]:
    """Versions 7."""
    f_group_id, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[OffsetFetchRequest.OffsetFetchRequestTopic] | None
    if n < 0:
        f_topics = None
    else:
        f_topics = []
        for _ in range(n):
            e_topics, pos = _decode_OffsetFetchRequest_OffsetFetchRequestTopic_v6(buf, pos)
            f_topics.append(e_topics)
    (f_require_stable,) = _S_o.unpack_from(buf, pos)
    pos += 1
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchRequest(f_group_id, f_topics, [], f_require_stable), pos


def _decode_OffsetFetchRequest_OffsetFetchRequestTopics_v8(
    buf: memoryview, pos: int
) -> tuple[OffsetFetchRequest.OffsetFetchRequestTopics, int]:
    """Versions 8-9."""
    f_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partition_indexes: list[int]
    if n < 0:
        raise DecodeError("PartitionIndexes: null where it is not nullable")
    f_partition_indexes, pos = read_number_array(buf, pos, n, "i", 4)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchRequest.OffsetFetchRequestTopics(f_name, ZERO_UUID, f_partition_indexes), pos


def _decode_OffsetFetchRequest_OffsetFetchRequestGroup_v8(
    buf: memoryview, pos: int
) -> tuple[OffsetFetchRequest.OffsetFetchRequestGroup, int]:
    """Versions 8."""
    f_group_id, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[OffsetFetchRequest.OffsetFetchRequestTopics] | None
    if n < 0:
        f_topics = None
    else:
        f_topics = []
        for _ in range(n):
            e_topics, pos = _decode_OffsetFetchRequest_OffsetFetchRequestTopics_v8(buf, pos)
            f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchRequest.OffsetFetchRequestGroup(f_group_id, None, -1, f_topics), pos


def _decode_OffsetFetchRequest_v8(buf: memoryview, pos: int) -> tuple[OffsetFetchRequest, int]:
    """Versions 8."""
    n, pos = read_compact_array_length(buf, pos)
    f_groups: list[OffsetFetchRequest.OffsetFetchRequestGroup]
    if n < 0:
        raise DecodeError("Groups: null where it is not nullable")
    f_groups = []
    for _ in range(n):
        e_groups, pos = _decode_OffsetFetchRequest_OffsetFetchRequestGroup_v8(buf, pos)
        f_groups.append(e_groups)
    (f_require_stable,) = _S_o.unpack_from(buf, pos)
    pos += 1
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchRequest("", [], f_groups, f_require_stable), pos


def _decode_OffsetFetchRequest_OffsetFetchRequestGroup_v9(
    buf: memoryview, pos: int
) -> tuple[OffsetFetchRequest.OffsetFetchRequestGroup, int]:
    """Versions 9."""
    f_group_id, pos = read_compact_string(buf, pos)
    f_member_id, pos = read_compact_nullable_string(buf, pos)
    (f_member_epoch,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[OffsetFetchRequest.OffsetFetchRequestTopics] | None
    if n < 0:
        f_topics = None
    else:
        f_topics = []
        for _ in range(n):
            e_topics, pos = _decode_OffsetFetchRequest_OffsetFetchRequestTopics_v8(buf, pos)
            f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchRequest.OffsetFetchRequestGroup(
        f_group_id, f_member_id, f_member_epoch, f_topics
    ), pos


def _decode_OffsetFetchRequest_v9(buf: memoryview, pos: int) -> tuple[OffsetFetchRequest, int]:
    """Versions 9."""
    n, pos = read_compact_array_length(buf, pos)
    f_groups: list[OffsetFetchRequest.OffsetFetchRequestGroup]
    if n < 0:
        raise DecodeError("Groups: null where it is not nullable")
    f_groups = []
    for _ in range(n):
        e_groups, pos = _decode_OffsetFetchRequest_OffsetFetchRequestGroup_v9(buf, pos)
        f_groups.append(e_groups)
    (f_require_stable,) = _S_o.unpack_from(buf, pos)
    pos += 1
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchRequest("", [], f_groups, f_require_stable), pos


def _decode_OffsetFetchRequest_OffsetFetchRequestTopics_v10(
    buf: memoryview, pos: int
) -> tuple[OffsetFetchRequest.OffsetFetchRequestTopics, int]:
    """Versions 10."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partition_indexes: list[int]
    if n < 0:
        raise DecodeError("PartitionIndexes: null where it is not nullable")
    f_partition_indexes, pos = read_number_array(buf, pos, n, "i", 4)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchRequest.OffsetFetchRequestTopics("", f_topic_id, f_partition_indexes), pos


def _decode_OffsetFetchRequest_OffsetFetchRequestGroup_v10(
    buf: memoryview, pos: int
) -> tuple[OffsetFetchRequest.OffsetFetchRequestGroup, int]:
    """Versions 10."""
    f_group_id, pos = read_compact_string(buf, pos)
    f_member_id, pos = read_compact_nullable_string(buf, pos)
    (f_member_epoch,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[OffsetFetchRequest.OffsetFetchRequestTopics] | None
    if n < 0:
        f_topics = None
    else:
        f_topics = []
        for _ in range(n):
            e_topics, pos = _decode_OffsetFetchRequest_OffsetFetchRequestTopics_v10(buf, pos)
            f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchRequest.OffsetFetchRequestGroup(
        f_group_id, f_member_id, f_member_epoch, f_topics
    ), pos


def _decode_OffsetFetchRequest_v10(buf: memoryview, pos: int) -> tuple[OffsetFetchRequest, int]:
    """Versions 10."""
    n, pos = read_compact_array_length(buf, pos)
    f_groups: list[OffsetFetchRequest.OffsetFetchRequestGroup]
    if n < 0:
        raise DecodeError("Groups: null where it is not nullable")
    f_groups = []
    for _ in range(n):
        e_groups, pos = _decode_OffsetFetchRequest_OffsetFetchRequestGroup_v10(buf, pos)
        f_groups.append(e_groups)
    (f_require_stable,) = _S_o.unpack_from(buf, pos)
    pos += 1
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return OffsetFetchRequest("", [], f_groups, f_require_stable), pos


def _encode_OffsetDeleteResponse_OffsetDeleteResponsePartition_v0(
    o: OffsetDeleteResponse.OffsetDeleteResponsePartition, b: bytearray
) -> None:
    """Versions 0."""
    b += _S_ih.pack(o.partition_index, o.error_code)


def _encode_OffsetDeleteResponse_OffsetDeleteResponseTopic_v0(
    o: OffsetDeleteResponse.OffsetDeleteResponseTopic, b: bytearray
) -> None:
    """Versions 0."""
    write_string(b, o.name)
    x_partitions = o.partitions
    write_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_OffsetDeleteResponse_OffsetDeleteResponsePartition_v0(e_partitions, b)


def _encode_OffsetDeleteResponse_v0(o: OffsetDeleteResponse, b: bytearray) -> None:
    """Versions 0."""
    b += _S_hi.pack(o.error_code, o.throttle_time_ms)
    x_topics = o.topics
    write_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_OffsetDeleteResponse_OffsetDeleteResponseTopic_v0(e_topics, b)


def _decode_OffsetDeleteResponse_OffsetDeleteResponsePartition_v0(
    buf: memoryview, pos: int
) -> tuple[OffsetDeleteResponse.OffsetDeleteResponsePartition, int]:
    """Versions 0."""
    f_partition_index, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    return OffsetDeleteResponse.OffsetDeleteResponsePartition(f_partition_index, f_error_code), pos


def _decode_OffsetDeleteResponse_OffsetDeleteResponseTopic_v0(
    buf: memoryview, pos: int
) -> tuple[OffsetDeleteResponse.OffsetDeleteResponseTopic, int]:
    """Versions 0."""
    f_name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    f_partitions: list[OffsetDeleteResponse.OffsetDeleteResponsePartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_OffsetDeleteResponse_OffsetDeleteResponsePartition_v0(buf, pos)
        f_partitions.append(e_partitions)
    return OffsetDeleteResponse.OffsetDeleteResponseTopic(f_name, f_partitions), pos


def _decode_OffsetDeleteResponse_v0(buf: memoryview, pos: int) -> tuple[OffsetDeleteResponse, int]:
    """Versions 0."""
    f_error_code, f_throttle_time_ms = _S_hi.unpack_from(buf, pos)
    pos += 6
    n, pos = read_array_length(buf, pos)
    f_topics: list[OffsetDeleteResponse.OffsetDeleteResponseTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_OffsetDeleteResponse_OffsetDeleteResponseTopic_v0(buf, pos)
        f_topics.append(e_topics)
    return OffsetDeleteResponse(f_error_code, f_throttle_time_ms, f_topics), pos


def _encode_OffsetDeleteRequest_OffsetDeleteRequestPartition_v0(
    o: OffsetDeleteRequest.OffsetDeleteRequestPartition, b: bytearray
) -> None:
    """Versions 0."""
    b += _S_i.pack(o.partition_index)


def _encode_OffsetDeleteRequest_OffsetDeleteRequestTopic_v0(
    o: OffsetDeleteRequest.OffsetDeleteRequestTopic, b: bytearray
) -> None:
    """Versions 0."""
    write_string(b, o.name)
    x_partitions = o.partitions
    write_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_OffsetDeleteRequest_OffsetDeleteRequestPartition_v0(e_partitions, b)


def _encode_OffsetDeleteRequest_v0(o: OffsetDeleteRequest, b: bytearray) -> None:
    """Versions 0."""
    write_string(b, o.group_id)
    x_topics = o.topics
    write_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_OffsetDeleteRequest_OffsetDeleteRequestTopic_v0(e_topics, b)


def _decode_OffsetDeleteRequest_OffsetDeleteRequestPartition_v0(
    buf: memoryview, pos: int
) -> tuple[OffsetDeleteRequest.OffsetDeleteRequestPartition, int]:
    """Versions 0."""
    (f_partition_index,) = _S_i.unpack_from(buf, pos)
    pos += 4
    return OffsetDeleteRequest.OffsetDeleteRequestPartition(f_partition_index), pos


def _decode_OffsetDeleteRequest_OffsetDeleteRequestTopic_v0(
    buf: memoryview, pos: int
) -> tuple[OffsetDeleteRequest.OffsetDeleteRequestTopic, int]:
    """Versions 0."""
    f_name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    f_partitions: list[OffsetDeleteRequest.OffsetDeleteRequestPartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_OffsetDeleteRequest_OffsetDeleteRequestPartition_v0(buf, pos)
        f_partitions.append(e_partitions)
    return OffsetDeleteRequest.OffsetDeleteRequestTopic(f_name, f_partitions), pos


def _decode_OffsetDeleteRequest_v0(buf: memoryview, pos: int) -> tuple[OffsetDeleteRequest, int]:
    """Versions 0."""
    f_group_id, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    f_topics: list[OffsetDeleteRequest.OffsetDeleteRequestTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_OffsetDeleteRequest_OffsetDeleteRequestTopic_v0(buf, pos)
        f_topics.append(e_topics)
    return OffsetDeleteRequest(f_group_id, f_topics), pos


def _encode_ListGroupsResponse_ListedGroup_v3(
    o: ListGroupsResponse.ListedGroup, b: bytearray
) -> None:
    """Versions 3."""
    write_compact_string(b, o.group_id)
    write_compact_string(b, o.protocol_type)
    b.append(0)  # no tagged fields


def _encode_ListGroupsResponse_v3(o: ListGroupsResponse, b: bytearray) -> None:
    """Versions 3."""
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    x_groups = o.groups
    write_compact_array_length(b, len(x_groups))
    for e_groups in x_groups:
        _encode_ListGroupsResponse_ListedGroup_v3(e_groups, b)
    b.append(0)  # no tagged fields


def _encode_ListGroupsResponse_ListedGroup_v4(
    o: ListGroupsResponse.ListedGroup, b: bytearray
) -> None:
    """Versions 4."""
    write_compact_string(b, o.group_id)
    write_compact_string(b, o.protocol_type)
    write_compact_string(b, o.group_state)
    b.append(0)  # no tagged fields


def _encode_ListGroupsResponse_v4(o: ListGroupsResponse, b: bytearray) -> None:
    """Versions 4."""
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    x_groups = o.groups
    write_compact_array_length(b, len(x_groups))
    for e_groups in x_groups:
        _encode_ListGroupsResponse_ListedGroup_v4(e_groups, b)
    b.append(0)  # no tagged fields


def _encode_ListGroupsResponse_ListedGroup_v5(
    o: ListGroupsResponse.ListedGroup, b: bytearray
) -> None:
    """Versions 5."""
    write_compact_string(b, o.group_id)
    write_compact_string(b, o.protocol_type)
    write_compact_string(b, o.group_state)
    write_compact_string(b, o.group_type)
    b.append(0)  # no tagged fields


def _encode_ListGroupsResponse_v5(o: ListGroupsResponse, b: bytearray) -> None:
    """Versions 5."""
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    x_groups = o.groups
    write_compact_array_length(b, len(x_groups))
    for e_groups in x_groups:
        _encode_ListGroupsResponse_ListedGroup_v5(e_groups, b)
    b.append(0)  # no tagged fields


def _decode_ListGroupsResponse_ListedGroup_v3(
    buf: memoryview, pos: int
) -> tuple[ListGroupsResponse.ListedGroup, int]:
    """Versions 3."""
    f_group_id, pos = read_compact_string(buf, pos)
    f_protocol_type, pos = read_compact_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListGroupsResponse.ListedGroup(f_group_id, f_protocol_type, "", ""), pos


def _decode_ListGroupsResponse_v3(buf: memoryview, pos: int) -> tuple[ListGroupsResponse, int]:
    """Versions 3."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    n, pos = read_compact_array_length(buf, pos)
    f_groups: list[ListGroupsResponse.ListedGroup]
    if n < 0:
        raise DecodeError("Groups: null where it is not nullable")
    f_groups = []
    for _ in range(n):
        e_groups, pos = _decode_ListGroupsResponse_ListedGroup_v3(buf, pos)
        f_groups.append(e_groups)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListGroupsResponse(f_throttle_time_ms, f_error_code, f_groups), pos


def _decode_ListGroupsResponse_ListedGroup_v4(
    buf: memoryview, pos: int
) -> tuple[ListGroupsResponse.ListedGroup, int]:
    """Versions 4."""
    f_group_id, pos = read_compact_string(buf, pos)
    f_protocol_type, pos = read_compact_string(buf, pos)
    f_group_state, pos = read_compact_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListGroupsResponse.ListedGroup(f_group_id, f_protocol_type, f_group_state, ""), pos


def _decode_ListGroupsResponse_v4(buf: memoryview, pos: int) -> tuple[ListGroupsResponse, int]:
    """Versions 4."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    n, pos = read_compact_array_length(buf, pos)
    f_groups: list[ListGroupsResponse.ListedGroup]
    if n < 0:
        raise DecodeError("Groups: null where it is not nullable")
    f_groups = []
    for _ in range(n):
        e_groups, pos = _decode_ListGroupsResponse_ListedGroup_v4(buf, pos)
        f_groups.append(e_groups)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListGroupsResponse(f_throttle_time_ms, f_error_code, f_groups), pos


def _decode_ListGroupsResponse_ListedGroup_v5(
    buf: memoryview, pos: int
) -> tuple[ListGroupsResponse.ListedGroup, int]:
    """Versions 5."""
    f_group_id, pos = read_compact_string(buf, pos)
    f_protocol_type, pos = read_compact_string(buf, pos)
    f_group_state, pos = read_compact_string(buf, pos)
    f_group_type, pos = read_compact_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListGroupsResponse.ListedGroup(
        f_group_id, f_protocol_type, f_group_state, f_group_type
    ), pos


def _decode_ListGroupsResponse_v5(buf: memoryview, pos: int) -> tuple[ListGroupsResponse, int]:
    """Versions 5."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    n, pos = read_compact_array_length(buf, pos)
    f_groups: list[ListGroupsResponse.ListedGroup]
    if n < 0:
        raise DecodeError("Groups: null where it is not nullable")
    f_groups = []
    for _ in range(n):
        e_groups, pos = _decode_ListGroupsResponse_ListedGroup_v5(buf, pos)
        f_groups.append(e_groups)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListGroupsResponse(f_throttle_time_ms, f_error_code, f_groups), pos


def _encode_ListGroupsRequest_v3(o: ListGroupsRequest, b: bytearray) -> None:
    """Versions 3."""
    if o.states_filter != []:
        raise UnsupportedVersionError("ListGroupsRequest v3: StatesFilter cannot be carried")
    if o.types_filter != []:
        raise UnsupportedVersionError("ListGroupsRequest v3: TypesFilter cannot be carried")
    b.append(0)  # no tagged fields


def _encode_ListGroupsRequest_v4(o: ListGroupsRequest, b: bytearray) -> None:
    """Versions 4."""
    if o.types_filter != []:
        raise UnsupportedVersionError("ListGroupsRequest v4: TypesFilter cannot be carried")
    x_states_filter = o.states_filter
    write_compact_array_length(b, len(x_states_filter))
    for e_states_filter in x_states_filter:
        write_compact_string(b, e_states_filter)
    b.append(0)  # no tagged fields


def _encode_ListGroupsRequest_v5(o: ListGroupsRequest, b: bytearray) -> None:
    """Versions 5."""
    x_states_filter = o.states_filter
    write_compact_array_length(b, len(x_states_filter))
    for e_states_filter in x_states_filter:
        write_compact_string(b, e_states_filter)
    x_types_filter = o.types_filter
    write_compact_array_length(b, len(x_types_filter))
    for e_types_filter in x_types_filter:
        write_compact_string(b, e_types_filter)
    b.append(0)  # no tagged fields


def _decode_ListGroupsRequest_v3(buf: memoryview, pos: int) -> tuple[ListGroupsRequest, int]:
    """Versions 3."""
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListGroupsRequest([], []), pos


def _decode_ListGroupsRequest_v4(buf: memoryview, pos: int) -> tuple[ListGroupsRequest, int]:
    """Versions 4."""
    n, pos = read_compact_array_length(buf, pos)
    f_states_filter: list[str]
    if n < 0:
        raise DecodeError("StatesFilter: null where it is not nullable")
    f_states_filter = []
    for _ in range(n):
        e_states_filter, pos = read_compact_string(buf, pos)
        f_states_filter.append(e_states_filter)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListGroupsRequest(f_states_filter, []), pos


def _decode_ListGroupsRequest_v5(buf: memoryview, pos: int) -> tuple[ListGroupsRequest, int]:
    """Versions 5."""
    n, pos = read_compact_array_length(buf, pos)
    f_states_filter: list[str]
    if n < 0:
        raise DecodeError("StatesFilter: null where it is not nullable")
    f_states_filter = []
    for _ in range(n):
        e_states_filter, pos = read_compact_string(buf, pos)
        f_states_filter.append(e_states_filter)
    n, pos = read_compact_array_length(buf, pos)
    f_types_filter: list[str]
    if n < 0:
        raise DecodeError("TypesFilter: null where it is not nullable")
    f_types_filter = []
    for _ in range(n):
        e_types_filter, pos = read_compact_string(buf, pos)
        f_types_filter.append(e_types_filter)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ListGroupsRequest(f_states_filter, f_types_filter), pos


def _encode_DeleteGroupsResponse_DeletableGroupResult_v2(
    o: DeleteGroupsResponse.DeletableGroupResult, b: bytearray
) -> None:
    """Versions 2."""
    write_compact_string(b, o.group_id)
    b += _S_h.pack(o.error_code)
    b.append(0)  # no tagged fields


def _encode_DeleteGroupsResponse_v2(o: DeleteGroupsResponse, b: bytearray) -> None:
    """Versions 2."""
    b += _S_i.pack(o.throttle_time_ms)
    x_results = o.results
    write_compact_array_length(b, len(x_results))
    for e_results in x_results:
        _encode_DeleteGroupsResponse_DeletableGroupResult_v2(e_results, b)
    b.append(0)  # no tagged fields


def _encode_DeleteGroupsResponse_DeletableGroupResult_v3(
    o: DeleteGroupsResponse.DeletableGroupResult, b: bytearray
) -> None:
    """Versions 3."""
    write_compact_string(b, o.group_id)
    b += _S_h.pack(o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b.append(0)  # no tagged fields


def _encode_DeleteGroupsResponse_v3(o: DeleteGroupsResponse, b: bytearray) -> None:
    """Versions 3."""
    b += _S_i.pack(o.throttle_time_ms)
    x_results = o.results
    write_compact_array_length(b, len(x_results))
    for e_results in x_results:
        _encode_DeleteGroupsResponse_DeletableGroupResult_v3(e_results, b)
    b.append(0)  # no tagged fields


def _decode_DeleteGroupsResponse_DeletableGroupResult_v2(
    buf: memoryview, pos: int
) -> tuple[DeleteGroupsResponse.DeletableGroupResult, int]:
    """Versions 2."""
    f_group_id, pos = read_compact_string(buf, pos)
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteGroupsResponse.DeletableGroupResult(f_group_id, f_error_code, None), pos


def _decode_DeleteGroupsResponse_v2(buf: memoryview, pos: int) -> tuple[DeleteGroupsResponse, int]:
    """Versions 2."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_results: list[DeleteGroupsResponse.DeletableGroupResult]
    if n < 0:
        raise DecodeError("Results: null where it is not nullable")
    f_results = []
    for _ in range(n):
        e_results, pos = _decode_DeleteGroupsResponse_DeletableGroupResult_v2(buf, pos)
        f_results.append(e_results)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteGroupsResponse(f_throttle_time_ms, f_results), pos


def _decode_DeleteGroupsResponse_DeletableGroupResult_v3(
    buf: memoryview, pos: int
) -> tuple[DeleteGroupsResponse.DeletableGroupResult, int]:
    """Versions 3."""
    f_group_id, pos = read_compact_string(buf, pos)
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteGroupsResponse.DeletableGroupResult(f_group_id, f_error_code, f_error_message), pos


def _decode_DeleteGroupsResponse_v3(buf: memoryview, pos: int) -> tuple[DeleteGroupsResponse, int]:
    """Versions 3."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_results: list[DeleteGroupsResponse.DeletableGroupResult]
    if n < 0:
        raise DecodeError("Results: null where it is not nullable")
    f_results = []
    for _ in range(n):
        e_results, pos = _decode_DeleteGroupsResponse_DeletableGroupResult_v3(buf, pos)
        f_results.append(e_results)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteGroupsResponse(f_throttle_time_ms, f_results), pos


def _encode_DeleteGroupsRequest_v2(o: DeleteGroupsRequest, b: bytearray) -> None:
    """Versions 2-3."""
    x_groups_names = o.groups_names
    write_compact_array_length(b, len(x_groups_names))
    for e_groups_names in x_groups_names:
        write_compact_string(b, e_groups_names)
    b.append(0)  # no tagged fields


def _decode_DeleteGroupsRequest_v2(buf: memoryview, pos: int) -> tuple[DeleteGroupsRequest, int]:
    """Versions 2-3."""
    n, pos = read_compact_array_length(buf, pos)
    f_groups_names: list[str]
    if n < 0:
        raise DecodeError("GroupsNames: null where it is not nullable")
    f_groups_names = []
    for _ in range(n):
        e_groups_names, pos = read_compact_string(buf, pos)
        f_groups_names.append(e_groups_names)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteGroupsRequest(f_groups_names), pos


def _encode_ShareGroupHeartbeatResponse_TopicPartitions_v1(
    o: ShareGroupHeartbeatResponse.TopicPartitions, b: bytearray
) -> None:
    """Versions 1."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    write_number_array(b, "i", x_partitions)
    b.append(0)  # no tagged fields


def _encode_ShareGroupHeartbeatResponse_Assignment_v1(
    o: ShareGroupHeartbeatResponse.Assignment, b: bytearray
) -> None:
    """Versions 1."""
    x_topic_partitions = o.topic_partitions
    write_compact_array_length(b, len(x_topic_partitions))
    for e_topic_partitions in x_topic_partitions:
        _encode_ShareGroupHeartbeatResponse_TopicPartitions_v1(e_topic_partitions, b)
    b.append(0)  # no tagged fields


def _encode_ShareGroupHeartbeatResponse_v1(o: ShareGroupHeartbeatResponse, b: bytearray) -> None:
    """Versions 1."""
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    write_compact_nullable_string(b, o.member_id)
    b += _S_ii.pack(o.member_epoch, o.heartbeat_interval_ms)
    x_assignment = o.assignment
    if x_assignment is None:
        b.append(0xFF)  # int8 -1: null
    else:
        b.append(1)
        _encode_ShareGroupHeartbeatResponse_Assignment_v1(x_assignment, b)
    b.append(0)  # no tagged fields


def _decode_ShareGroupHeartbeatResponse_TopicPartitions_v1(
    buf: memoryview, pos: int
) -> tuple[ShareGroupHeartbeatResponse.TopicPartitions, int]:
    """Versions 1."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[int]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions, pos = read_number_array(buf, pos, n, "i", 4)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareGroupHeartbeatResponse.TopicPartitions(f_topic_id, f_partitions), pos


def _decode_ShareGroupHeartbeatResponse_Assignment_v1(
    buf: memoryview, pos: int
) -> tuple[ShareGroupHeartbeatResponse.Assignment, int]:
    """Versions 1."""
    n, pos = read_compact_array_length(buf, pos)
    f_topic_partitions: list[ShareGroupHeartbeatResponse.TopicPartitions]
    if n < 0:
        raise DecodeError("TopicPartitions: null where it is not nullable")
    f_topic_partitions = []
    for _ in range(n):
        e_topic_partitions, pos = _decode_ShareGroupHeartbeatResponse_TopicPartitions_v1(buf, pos)
        f_topic_partitions.append(e_topic_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareGroupHeartbeatResponse.Assignment(f_topic_partitions), pos


def _decode_ShareGroupHeartbeatResponse_v1(
    buf: memoryview, pos: int
) -> tuple[ShareGroupHeartbeatResponse, int]:
    """Versions 1."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    f_member_id, pos = read_compact_nullable_string(buf, pos)
    f_member_epoch, f_heartbeat_interval_ms = _S_ii.unpack_from(buf, pos)
    pos += 8
    f_assignment: ShareGroupHeartbeatResponse.Assignment | None
    if buf[pos] & 0x80:  # int8 -1: null
        f_assignment = None
        pos += 1
    else:
        f_assignment, pos = _decode_ShareGroupHeartbeatResponse_Assignment_v1(buf, pos + 1)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareGroupHeartbeatResponse(
        f_throttle_time_ms,
        f_error_code,
        f_error_message,
        f_member_id,
        f_member_epoch,
        f_heartbeat_interval_ms,
        f_assignment,
    ), pos


def _encode_ShareGroupHeartbeatRequest_v1(o: ShareGroupHeartbeatRequest, b: bytearray) -> None:
    """Versions 1."""
    write_compact_string(b, o.group_id)
    write_compact_string(b, o.member_id)
    b += _S_i.pack(o.member_epoch)
    write_compact_nullable_string(b, o.rack_id)
    x_subscribed_topic_names = o.subscribed_topic_names
    write_compact_array_length(
        b, None if x_subscribed_topic_names is None else len(x_subscribed_topic_names)
    )
    if x_subscribed_topic_names is not None:
        for e_subscribed_topic_names in x_subscribed_topic_names:
            write_compact_string(b, e_subscribed_topic_names)
    b.append(0)  # no tagged fields


def _decode_ShareGroupHeartbeatRequest_v1(
    buf: memoryview, pos: int
) -> tuple[ShareGroupHeartbeatRequest, int]:
    """Versions 1."""
    f_group_id, pos = read_compact_string(buf, pos)
    f_member_id, pos = read_compact_string(buf, pos)
    (f_member_epoch,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_rack_id, pos = read_compact_nullable_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_subscribed_topic_names: list[str] | None
    if n < 0:
        f_subscribed_topic_names = None
    else:
        f_subscribed_topic_names = []
        for _ in range(n):
            e_subscribed_topic_names, pos = read_compact_string(buf, pos)
            f_subscribed_topic_names.append(e_subscribed_topic_names)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareGroupHeartbeatRequest(
        f_group_id, f_member_id, f_member_epoch, f_rack_id, f_subscribed_topic_names
    ), pos


def _encode_ShareGroupDescribeResponse_TopicPartitions_v1(
    o: ShareGroupDescribeResponse.TopicPartitions, b: bytearray
) -> None:
    """Versions 1."""
    b += _S_u.pack(o.topic_id.bytes)
    write_compact_string(b, o.topic_name)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    write_number_array(b, "i", x_partitions)
    b.append(0)  # no tagged fields


def _encode_ShareGroupDescribeResponse_Assignment_v1(
    o: ShareGroupDescribeResponse.Assignment, b: bytearray
) -> None:
    """Versions 1."""
    x_topic_partitions = o.topic_partitions
    write_compact_array_length(b, len(x_topic_partitions))
    for e_topic_partitions in x_topic_partitions:
        _encode_ShareGroupDescribeResponse_TopicPartitions_v1(e_topic_partitions, b)
    b.append(0)  # no tagged fields


def _encode_ShareGroupDescribeResponse_Member_v1(
    o: ShareGroupDescribeResponse.Member, b: bytearray
) -> None:
    """Versions 1."""
    write_compact_string(b, o.member_id)
    write_compact_nullable_string(b, o.rack_id)
    b += _S_i.pack(o.member_epoch)
    write_compact_string(b, o.client_id)
    write_compact_string(b, o.client_host)
    x_subscribed_topic_names = o.subscribed_topic_names
    write_compact_array_length(b, len(x_subscribed_topic_names))
    for e_subscribed_topic_names in x_subscribed_topic_names:
        write_compact_string(b, e_subscribed_topic_names)
    _encode_ShareGroupDescribeResponse_Assignment_v1(o.assignment, b)
    b.append(0)  # no tagged fields


def _encode_ShareGroupDescribeResponse_DescribedGroup_v1(
    o: ShareGroupDescribeResponse.DescribedGroup, b: bytearray
) -> None:
    """Versions 1."""
    b += _S_h.pack(o.error_code)
    write_compact_nullable_string(b, o.error_message)
    write_compact_string(b, o.group_id)
    write_compact_string(b, o.group_state)
    b += _S_ii.pack(o.group_epoch, o.assignment_epoch)
    write_compact_string(b, o.assignor_name)
    x_members = o.members
    write_compact_array_length(b, len(x_members))
    for e_members in x_members:
        _encode_ShareGroupDescribeResponse_Member_v1(e_members, b)
    b += _S_i.pack(o.authorized_operations)
    b.append(0)  # no tagged fields


def _encode_ShareGroupDescribeResponse_v1(o: ShareGroupDescribeResponse, b: bytearray) -> None:
    """Versions 1."""
    b += _S_i.pack(o.throttle_time_ms)
    x_groups = o.groups
    write_compact_array_length(b, len(x_groups))
    for e_groups in x_groups:
        _encode_ShareGroupDescribeResponse_DescribedGroup_v1(e_groups, b)
    b.append(0)  # no tagged fields


def _decode_ShareGroupDescribeResponse_TopicPartitions_v1(
    buf: memoryview, pos: int
) -> tuple[ShareGroupDescribeResponse.TopicPartitions, int]:
    """Versions 1."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    f_topic_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[int]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions, pos = read_number_array(buf, pos, n, "i", 4)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareGroupDescribeResponse.TopicPartitions(f_topic_id, f_topic_name, f_partitions), pos


def _decode_ShareGroupDescribeResponse_Assignment_v1(
    buf: memoryview, pos: int
) -> tuple[ShareGroupDescribeResponse.Assignment, int]:
    """Versions 1."""
    n, pos = read_compact_array_length(buf, pos)
    f_topic_partitions: list[ShareGroupDescribeResponse.TopicPartitions]
    if n < 0:
        raise DecodeError("TopicPartitions: null where it is not nullable")
    f_topic_partitions = []
    for _ in range(n):
        e_topic_partitions, pos = _decode_ShareGroupDescribeResponse_TopicPartitions_v1(buf, pos)
        f_topic_partitions.append(e_topic_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareGroupDescribeResponse.Assignment(f_topic_partitions), pos


def _decode_ShareGroupDescribeResponse_Member_v1(
    buf: memoryview, pos: int
) -> tuple[ShareGroupDescribeResponse.Member, int]:
    """Versions 1."""
    f_member_id, pos = read_compact_string(buf, pos)
    f_rack_id, pos = read_compact_nullable_string(buf, pos)
    (f_member_epoch,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_client_id, pos = read_compact_string(buf, pos)
    f_client_host, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_subscribed_topic_names: list[str]
    if n < 0:
        raise DecodeError("SubscribedTopicNames: null where it is not nullable")
    f_subscribed_topic_names = []
    for _ in range(n):
        e_subscribed_topic_names, pos = read_compact_string(buf, pos)
        f_subscribed_topic_names.append(e_subscribed_topic_names)
    f_assignment, pos = _decode_ShareGroupDescribeResponse_Assignment_v1(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareGroupDescribeResponse.Member(
        f_member_id,
        f_rack_id,
        f_member_epoch,
        f_client_id,
        f_client_host,
        f_subscribed_topic_names,
        f_assignment,
    ), pos


def _decode_ShareGroupDescribeResponse_DescribedGroup_v1(
    buf: memoryview, pos: int
) -> tuple[ShareGroupDescribeResponse.DescribedGroup, int]:
    """Versions 1."""
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    f_group_id, pos = read_compact_string(buf, pos)
    f_group_state, pos = read_compact_string(buf, pos)
    f_group_epoch, f_assignment_epoch = _S_ii.unpack_from(buf, pos)
    pos += 8
    f_assignor_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_members: list[ShareGroupDescribeResponse.Member]
    if n < 0:
        raise DecodeError("Members: null where it is not nullable")
    f_members = []
    for _ in range(n):
        e_members, pos = _decode_ShareGroupDescribeResponse_Member_v1(buf, pos)
        f_members.append(e_members)
    (f_authorized_operations,) = _S_i.unpack_from(buf, pos)
    pos += 4
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareGroupDescribeResponse.DescribedGroup(
        f_error_code,
        f_error_message,
        f_group_id,
        f_group_state,
        f_group_epoch,
        f_assignment_epoch,
        f_assignor_name,
        f_members,
        f_authorized_operations,
    ), pos


def _decode_ShareGroupDescribeResponse_v1(
    buf: memoryview, pos: int
) -> tuple[ShareGroupDescribeResponse, int]:
    """Versions 1."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_groups: list[ShareGroupDescribeResponse.DescribedGroup]
    if n < 0:
        raise DecodeError("Groups: null where it is not nullable")
    f_groups = []
    for _ in range(n):
        e_groups, pos = _decode_ShareGroupDescribeResponse_DescribedGroup_v1(buf, pos)
        f_groups.append(e_groups)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareGroupDescribeResponse(f_throttle_time_ms, f_groups), pos


def _encode_ShareGroupDescribeRequest_v1(o: ShareGroupDescribeRequest, b: bytearray) -> None:
    """Versions 1."""
    x_group_ids = o.group_ids
    write_compact_array_length(b, len(x_group_ids))
    for e_group_ids in x_group_ids:
        write_compact_string(b, e_group_ids)
    b += _S_o.pack(o.include_authorized_operations)
    b.append(0)  # no tagged fields


def _decode_ShareGroupDescribeRequest_v1(
    buf: memoryview, pos: int
) -> tuple[ShareGroupDescribeRequest, int]:
    """Versions 1."""
    n, pos = read_compact_array_length(buf, pos)
    f_group_ids: list[str]
    if n < 0:
        raise DecodeError("GroupIds: null where it is not nullable")
    f_group_ids = []
    for _ in range(n):
        e_group_ids, pos = read_compact_string(buf, pos)
        f_group_ids.append(e_group_ids)
    (f_include_authorized_operations,) = _S_o.unpack_from(buf, pos)
    pos += 1
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareGroupDescribeRequest(f_group_ids, f_include_authorized_operations), pos


def _encode_ShareFetchResponse_LeaderIdAndEpoch_v1(
    o: ShareFetchResponse.LeaderIdAndEpoch, b: bytearray
) -> None:
    """Versions 1-2."""
    b += _S_ii.pack(o.leader_id, o.leader_epoch)
    b.append(0)  # no tagged fields


def _encode_ShareFetchResponse_AcquiredRecords_v1(
    o: ShareFetchResponse.AcquiredRecords, b: bytearray
) -> None:
    """Versions 1-2."""
    b += _S_qqh.pack(o.first_offset, o.last_offset, o.delivery_count)
    b.append(0)  # no tagged fields


def _encode_ShareFetchResponse_PartitionData_v1(
    o: ShareFetchResponse.PartitionData, b: bytearray
) -> None:
    """Versions 1-2."""
    b += _S_ih.pack(o.partition_index, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b += _S_h.pack(o.acknowledge_error_code)
    write_compact_nullable_string(b, o.acknowledge_error_message)
    _encode_ShareFetchResponse_LeaderIdAndEpoch_v1(o.current_leader, b)
    x_records = o.records
    if x_records is None:
        raise UnsupportedVersionError("Records is null, which version 1 cannot carry")
    write_compact_bytes(b, x_records)
    x_acquired_records = o.acquired_records
    write_compact_array_length(b, len(x_acquired_records))
    for e_acquired_records in x_acquired_records:
        _encode_ShareFetchResponse_AcquiredRecords_v1(e_acquired_records, b)
    b.append(0)  # no tagged fields


def _encode_ShareFetchResponse_ShareFetchableTopicResponse_v1(
    o: ShareFetchResponse.ShareFetchableTopicResponse, b: bytearray
) -> None:
    """Versions 1-2."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_ShareFetchResponse_PartitionData_v1(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_ShareFetchResponse_NodeEndpoint_v1(
    o: ShareFetchResponse.NodeEndpoint, b: bytearray
) -> None:
    """Versions 1-2."""
    b += _S_i.pack(o.node_id)
    write_compact_string(b, o.host)
    b += _S_i.pack(o.port)
    write_compact_nullable_string(b, o.rack)
    b.append(0)  # no tagged fields


def _encode_ShareFetchResponse_v1(o: ShareFetchResponse, b: bytearray) -> None:
    """Versions 1-2."""
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b += _S_i.pack(o.acquisition_lock_timeout_ms)
    x_responses = o.responses
    write_compact_array_length(b, len(x_responses))
    for e_responses in x_responses:
        _encode_ShareFetchResponse_ShareFetchableTopicResponse_v1(e_responses, b)
    x_node_endpoints = o.node_endpoints
    write_compact_array_length(b, len(x_node_endpoints))
    for e_node_endpoints in x_node_endpoints:
        _encode_ShareFetchResponse_NodeEndpoint_v1(e_node_endpoints, b)
    b.append(0)  # no tagged fields


def _decode_ShareFetchResponse_LeaderIdAndEpoch_v1(
    buf: memoryview, pos: int
) -> tuple[ShareFetchResponse.LeaderIdAndEpoch, int]:
    """Versions 1-2."""
    f_leader_id, f_leader_epoch = _S_ii.unpack_from(buf, pos)
    pos += 8
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareFetchResponse.LeaderIdAndEpoch(f_leader_id, f_leader_epoch), pos


def _decode_ShareFetchResponse_AcquiredRecords_v1(
    buf: memoryview, pos: int
) -> tuple[ShareFetchResponse.AcquiredRecords, int]:
    """Versions 1-2."""
    f_first_offset, f_last_offset, f_delivery_count = _S_qqh.unpack_from(buf, pos)
    pos += 18
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareFetchResponse.AcquiredRecords(f_first_offset, f_last_offset, f_delivery_count), pos


def _decode_ShareFetchResponse_PartitionData_v1(
    buf: memoryview, pos: int
) -> tuple[ShareFetchResponse.PartitionData, int]:
    """Versions 1-2."""
    f_partition_index, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    (f_acknowledge_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_acknowledge_error_message, pos = read_compact_nullable_string(buf, pos)
    f_current_leader, pos = _decode_ShareFetchResponse_LeaderIdAndEpoch_v1(buf, pos)
    f_records, pos = read_compact_records(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_acquired_records: list[ShareFetchResponse.AcquiredRecords]
    if n < 0:
        raise DecodeError("AcquiredRecords: null where it is not nullable")
    f_acquired_records = []
    for _ in range(n):
        e_acquired_records, pos = _decode_ShareFetchResponse_AcquiredRecords_v1(buf, pos)
        f_acquired_records.append(e_acquired_records)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareFetchResponse.PartitionData(
        f_partition_index,
        f_error_code,
        f_error_message,
        f_acknowledge_error_code,
        f_acknowledge_error_message,
        f_current_leader,
        f_records,
        f_acquired_records,
    ), pos


def _decode_ShareFetchResponse_ShareFetchableTopicResponse_v1(
    buf: memoryview, pos: int
) -> tuple[ShareFetchResponse.ShareFetchableTopicResponse, int]:
    """Versions 1-2."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[ShareFetchResponse.PartitionData]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_ShareFetchResponse_PartitionData_v1(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareFetchResponse.ShareFetchableTopicResponse(f_topic_id, f_partitions), pos


def _decode_ShareFetchResponse_NodeEndpoint_v1(
    buf: memoryview, pos: int
) -> tuple[ShareFetchResponse.NodeEndpoint, int]:
    """Versions 1-2."""
    (f_node_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_host, pos = read_compact_string(buf, pos)
    (f_port,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_rack, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareFetchResponse.NodeEndpoint(f_node_id, f_host, f_port, f_rack), pos


def _decode_ShareFetchResponse_v1(buf: memoryview, pos: int) -> tuple[ShareFetchResponse, int]:
    """Versions 1-2."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    (f_acquisition_lock_timeout_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_responses: list[ShareFetchResponse.ShareFetchableTopicResponse]
    if n < 0:
        raise DecodeError("Responses: null where it is not nullable")
    f_responses = []
    for _ in range(n):
        e_responses, pos = _decode_ShareFetchResponse_ShareFetchableTopicResponse_v1(buf, pos)
        f_responses.append(e_responses)
    n, pos = read_compact_array_length(buf, pos)
    f_node_endpoints: list[ShareFetchResponse.NodeEndpoint]
    if n < 0:
        raise DecodeError("NodeEndpoints: null where it is not nullable")
    f_node_endpoints = []
    for _ in range(n):
        e_node_endpoints, pos = _decode_ShareFetchResponse_NodeEndpoint_v1(buf, pos)
        f_node_endpoints.append(e_node_endpoints)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareFetchResponse(
        f_throttle_time_ms,
        f_error_code,
        f_error_message,
        f_acquisition_lock_timeout_ms,
        f_responses,
        f_node_endpoints,
    ), pos


def _encode_ShareFetchRequest_AcknowledgementBatch_v1(
    o: ShareFetchRequest.AcknowledgementBatch, b: bytearray
) -> None:
    """Versions 1-2."""
    b += _S_qq.pack(o.first_offset, o.last_offset)
    x_acknowledge_types = o.acknowledge_types
    write_compact_array_length(b, len(x_acknowledge_types))
    write_number_array(b, "b", x_acknowledge_types)
    b.append(0)  # no tagged fields


def _encode_ShareFetchRequest_FetchPartition_v1(
    o: ShareFetchRequest.FetchPartition, b: bytearray
) -> None:
    """Versions 1-2."""
    b += _S_i.pack(o.partition_index)
    x_acknowledgement_batches = o.acknowledgement_batches
    write_compact_array_length(b, len(x_acknowledgement_batches))
    for e_acknowledgement_batches in x_acknowledgement_batches:
        _encode_ShareFetchRequest_AcknowledgementBatch_v1(e_acknowledgement_batches, b)
    b.append(0)  # no tagged fields


def _encode_ShareFetchRequest_FetchTopic_v1(o: ShareFetchRequest.FetchTopic, b: bytearray) -> None:
    """Versions 1-2."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_ShareFetchRequest_FetchPartition_v1(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_ShareFetchRequest_ForgottenTopic_v1(
    o: ShareFetchRequest.ForgottenTopic, b: bytearray
) -> None:
    """Versions 1-2."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    write_number_array(b, "i", x_partitions)
    b.append(0)  # no tagged fields


def _encode_ShareFetchRequest_v1(o: ShareFetchRequest, b: bytearray) -> None:
    """Versions 1."""
    if o.is_renew_ack:
        raise UnsupportedVersionError("ShareFetchRequest v1: IsRenewAck cannot be carried")
    write_compact_nullable_string(b, o.group_id)
    write_compact_nullable_string(b, o.member_id)
    b += _S_iiiiii.pack(
        o.share_session_epoch, o.max_wait_ms, o.min_bytes, o.max_bytes, o.max_records, o.batch_size
    )
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_ShareFetchRequest_FetchTopic_v1(e_topics, b)
    x_forgotten_topics_data = o.forgotten_topics_data
    write_compact_array_length(b, len(x_forgotten_topics_data))
    for e_forgotten_topics_data in x_forgotten_topics_data:
        _encode_ShareFetchRequest_ForgottenTopic_v1(e_forgotten_topics_data, b)
    b.append(0)  # no tagged fields


def _encode_ShareFetchRequest_v2(o: ShareFetchRequest, b: bytearray) -> None:
    """Versions 2."""
    write_compact_nullable_string(b, o.group_id)
    write_compact_nullable_string(b, o.member_id)
    b += _S_iiiiiibo.pack(
        o.share_session_epoch,
        o.max_wait_ms,
        o.min_bytes,
        o.max_bytes,
        o.max_records,
        o.batch_size,
        o.share_acquire_mode,
        o.is_renew_ack,
    )
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_ShareFetchRequest_FetchTopic_v1(e_topics, b)
    x_forgotten_topics_data = o.forgotten_topics_data
    write_compact_array_length(b, len(x_forgotten_topics_data))
    for e_forgotten_topics_data in x_forgotten_topics_data:
        _encode_ShareFetchRequest_ForgottenTopic_v1(e_forgotten_topics_data, b)
    b.append(0)  # no tagged fields


def _decode_ShareFetchRequest_AcknowledgementBatch_v1(
    buf: memoryview, pos: int
) -> tuple[ShareFetchRequest.AcknowledgementBatch, int]:
    """Versions 1-2."""
    f_first_offset, f_last_offset = _S_qq.unpack_from(buf, pos)
    pos += 16
    n, pos = read_compact_array_length(buf, pos)
    f_acknowledge_types: list[int]
    if n < 0:
        raise DecodeError("AcknowledgeTypes: null where it is not nullable")
    f_acknowledge_types, pos = read_number_array(buf, pos, n, "b", 1)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareFetchRequest.AcknowledgementBatch(
        f_first_offset, f_last_offset, f_acknowledge_types
    ), pos


def _decode_ShareFetchRequest_FetchPartition_v1(
    buf: memoryview, pos: int
) -> tuple[ShareFetchRequest.FetchPartition, int]:
    """Versions 1-2."""
    (f_partition_index,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_acknowledgement_batches: list[ShareFetchRequest.AcknowledgementBatch]
    if n < 0:
        raise DecodeError("AcknowledgementBatches: null where it is not nullable")
    f_acknowledgement_batches = []
    for _ in range(n):
        e_acknowledgement_batches, pos = _decode_ShareFetchRequest_AcknowledgementBatch_v1(buf, pos)
        f_acknowledgement_batches.append(e_acknowledgement_batches)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareFetchRequest.FetchPartition(f_partition_index, f_acknowledgement_batches), pos


def _decode_ShareFetchRequest_FetchTopic_v1(
    buf: memoryview, pos: int
) -> tuple[ShareFetchRequest.FetchTopic, int]:
    """Versions 1-2."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[ShareFetchRequest.FetchPartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_ShareFetchRequest_FetchPartition_v1(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareFetchRequest.FetchTopic(f_topic_id, f_partitions), pos


def _decode_ShareFetchRequest_ForgottenTopic_v1(
    buf: memoryview, pos: int
) -> tuple[ShareFetchRequest.ForgottenTopic, int]:
    """Versions 1-2."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[int]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions, pos = read_number_array(buf, pos, n, "i", 4)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareFetchRequest.ForgottenTopic(f_topic_id, f_partitions), pos


def _decode_ShareFetchRequest_v1(buf: memoryview, pos: int) -> tuple[ShareFetchRequest, int]:
    """Versions 1."""
    f_group_id, pos = read_compact_nullable_string(buf, pos)
    f_member_id, pos = read_compact_nullable_string(buf, pos)
    f_share_session_epoch, f_max_wait_ms, f_min_bytes, f_max_bytes, f_max_records, f_batch_size = (
        _S_iiiiii.unpack_from(buf, pos)
    )
    pos += 24
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[ShareFetchRequest.FetchTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_ShareFetchRequest_FetchTopic_v1(buf, pos)
        f_topics.append(e_topics)
    n, pos = read_compact_array_length(buf, pos)
    f_forgotten_topics_data: list[ShareFetchRequest.ForgottenTopic]
    if n < 0:
        raise DecodeError("ForgottenTopicsData: null where it is not nullable")
    f_forgotten_topics_data = []
    for _ in range(n):
        e_forgotten_topics_data, pos = _decode_ShareFetchRequest_ForgottenTopic_v1(buf, pos)
        f_forgotten_topics_data.append(e_forgotten_topics_data)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareFetchRequest(
        f_group_id,
        f_member_id,
        f_share_session_epoch,
        f_max_wait_ms,
        f_min_bytes,
        f_max_bytes,
        f_max_records,
        f_batch_size,
        0,
        False,
        f_topics,
        f_forgotten_topics_data,
    ), pos


def _decode_ShareFetchRequest_v2(buf: memoryview, pos: int) -> tuple[ShareFetchRequest, int]:
    """Versions 2."""
    f_group_id, pos = read_compact_nullable_string(buf, pos)
    f_member_id, pos = read_compact_nullable_string(buf, pos)
    (
        f_share_session_epoch,
        f_max_wait_ms,
        f_min_bytes,
        f_max_bytes,
        f_max_records,
        f_batch_size,
        f_share_acquire_mode,
        f_is_renew_ack,
    ) = _S_iiiiiibo.unpack_from(buf, pos)
    pos += 26
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[ShareFetchRequest.FetchTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_ShareFetchRequest_FetchTopic_v1(buf, pos)
        f_topics.append(e_topics)
    n, pos = read_compact_array_length(buf, pos)
    f_forgotten_topics_data: list[ShareFetchRequest.ForgottenTopic]
    if n < 0:
        raise DecodeError("ForgottenTopicsData: null where it is not nullable")
    f_forgotten_topics_data = []
    for _ in range(n):
        e_forgotten_topics_data, pos = _decode_ShareFetchRequest_ForgottenTopic_v1(buf, pos)
        f_forgotten_topics_data.append(e_forgotten_topics_data)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareFetchRequest(
        f_group_id,
        f_member_id,
        f_share_session_epoch,
        f_max_wait_ms,
        f_min_bytes,
        f_max_bytes,
        f_max_records,
        f_batch_size,
        f_share_acquire_mode,
        f_is_renew_ack,
        f_topics,
        f_forgotten_topics_data,
    ), pos


def _encode_ShareAcknowledgeResponse_LeaderIdAndEpoch_v1(
    o: ShareAcknowledgeResponse.LeaderIdAndEpoch, b: bytearray
) -> None:
    """Versions 1-2."""
    b += _S_ii.pack(o.leader_id, o.leader_epoch)
    b.append(0)  # no tagged fields


def _encode_ShareAcknowledgeResponse_PartitionData_v1(
    o: ShareAcknowledgeResponse.PartitionData, b: bytearray
) -> None:
    """Versions 1-2."""
    b += _S_ih.pack(o.partition_index, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    _encode_ShareAcknowledgeResponse_LeaderIdAndEpoch_v1(o.current_leader, b)
    b.append(0)  # no tagged fields


def _encode_ShareAcknowledgeResponse_ShareAcknowledgeTopicResponse_v1(
    o: ShareAcknowledgeResponse.ShareAcknowledgeTopicResponse, b: bytearray
) -> None:
    """Versions 1-2."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_ShareAcknowledgeResponse_PartitionData_v1(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_ShareAcknowledgeResponse_NodeEndpoint_v1(
    o: ShareAcknowledgeResponse.NodeEndpoint, b: bytearray
) -> None:
    """Versions 1-2."""
    b += _S_i.pack(o.node_id)
    write_compact_string(b, o.host)
    b += _S_i.pack(o.port)
    write_compact_nullable_string(b, o.rack)
    b.append(0)  # no tagged fields


def _encode_ShareAcknowledgeResponse_v1(o: ShareAcknowledgeResponse, b: bytearray) -> None:
    """Versions 1."""
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    x_responses = o.responses
    write_compact_array_length(b, len(x_responses))
    for e_responses in x_responses:
        _encode_ShareAcknowledgeResponse_ShareAcknowledgeTopicResponse_v1(e_responses, b)
    x_node_endpoints = o.node_endpoints
    write_compact_array_length(b, len(x_node_endpoints))
    for e_node_endpoints in x_node_endpoints:
        _encode_ShareAcknowledgeResponse_NodeEndpoint_v1(e_node_endpoints, b)
    b.append(0)  # no tagged fields


def _encode_ShareAcknowledgeResponse_v2(o: ShareAcknowledgeResponse, b: bytearray) -> None:
    """Versions 2."""
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b += _S_i.pack(o.acquisition_lock_timeout_ms)
    x_responses = o.responses
    write_compact_array_length(b, len(x_responses))
    for e_responses in x_responses:
        _encode_ShareAcknowledgeResponse_ShareAcknowledgeTopicResponse_v1(e_responses, b)
    x_node_endpoints = o.node_endpoints
    write_compact_array_length(b, len(x_node_endpoints))
    for e_node_endpoints in x_node_endpoints:
        _encode_ShareAcknowledgeResponse_NodeEndpoint_v1(e_node_endpoints, b)
    b.append(0)  # no tagged fields


def _decode_ShareAcknowledgeResponse_LeaderIdAndEpoch_v1(
    buf: memoryview, pos: int
) -> tuple[ShareAcknowledgeResponse.LeaderIdAndEpoch, int]:
    """Versions 1-2."""
    f_leader_id, f_leader_epoch = _S_ii.unpack_from(buf, pos)
    pos += 8
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareAcknowledgeResponse.LeaderIdAndEpoch(f_leader_id, f_leader_epoch), pos


def _decode_ShareAcknowledgeResponse_PartitionData_v1(
    buf: memoryview, pos: int
) -> tuple[ShareAcknowledgeResponse.PartitionData, int]:
    """Versions 1-2."""
    f_partition_index, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    f_current_leader, pos = _decode_ShareAcknowledgeResponse_LeaderIdAndEpoch_v1(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareAcknowledgeResponse.PartitionData(
        f_partition_index, f_error_code, f_error_message, f_current_leader
    ), pos


def _decode_ShareAcknowledgeResponse_ShareAcknowledgeTopicResponse_v1(
    buf: memoryview, pos: int
) -> tuple[ShareAcknowledgeResponse.ShareAcknowledgeTopicResponse, int]:
    """Versions 1-2."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[ShareAcknowledgeResponse.PartitionData]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_ShareAcknowledgeResponse_PartitionData_v1(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareAcknowledgeResponse.ShareAcknowledgeTopicResponse(f_topic_id, f_partitions), pos


def _decode_ShareAcknowledgeResponse_NodeEndpoint_v1(
    buf: memoryview, pos: int
) -> tuple[ShareAcknowledgeResponse.NodeEndpoint, int]:
    """Versions 1-2."""
    (f_node_id,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_host, pos = read_compact_string(buf, pos)
    (f_port,) = _S_i.unpack_from(buf, pos)
    pos += 4
    f_rack, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareAcknowledgeResponse.NodeEndpoint(f_node_id, f_host, f_port, f_rack), pos


def _decode_ShareAcknowledgeResponse_v1(
    buf: memoryview, pos: int
) -> tuple[ShareAcknowledgeResponse, int]:
    """Versions 1."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_responses: list[ShareAcknowledgeResponse.ShareAcknowledgeTopicResponse]
    if n < 0:
        raise DecodeError("Responses: null where it is not nullable")
    f_responses = []
    for _ in range(n):
        e_responses, pos = _decode_ShareAcknowledgeResponse_ShareAcknowledgeTopicResponse_v1(
            buf, pos
        )
        f_responses.append(e_responses)
    n, pos = read_compact_array_length(buf, pos)
    f_node_endpoints: list[ShareAcknowledgeResponse.NodeEndpoint]
    if n < 0:
        raise DecodeError("NodeEndpoints: null where it is not nullable")
    f_node_endpoints = []
    for _ in range(n):
        e_node_endpoints, pos = _decode_ShareAcknowledgeResponse_NodeEndpoint_v1(buf, pos)
        f_node_endpoints.append(e_node_endpoints)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareAcknowledgeResponse(
        f_throttle_time_ms, f_error_code, f_error_message, 0, f_responses, f_node_endpoints
    ), pos


def _decode_ShareAcknowledgeResponse_v2(
    buf: memoryview, pos: int
) -> tuple[ShareAcknowledgeResponse, int]:
    """Versions 2."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    (f_acquisition_lock_timeout_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_responses: list[ShareAcknowledgeResponse.ShareAcknowledgeTopicResponse]
    if n < 0:
        raise DecodeError("Responses: null where it is not nullable")
    f_responses = []
    for _ in range(n):
        e_responses, pos = _decode_ShareAcknowledgeResponse_ShareAcknowledgeTopicResponse_v1(
            buf, pos
        )
        f_responses.append(e_responses)
    n, pos = read_compact_array_length(buf, pos)
    f_node_endpoints: list[ShareAcknowledgeResponse.NodeEndpoint]
    if n < 0:
        raise DecodeError("NodeEndpoints: null where it is not nullable")
    f_node_endpoints = []
    for _ in range(n):
        e_node_endpoints, pos = _decode_ShareAcknowledgeResponse_NodeEndpoint_v1(buf, pos)
        f_node_endpoints.append(e_node_endpoints)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareAcknowledgeResponse(
        f_throttle_time_ms,
        f_error_code,
        f_error_message,
        f_acquisition_lock_timeout_ms,
        f_responses,
        f_node_endpoints,
    ), pos


def _encode_ShareAcknowledgeRequest_AcknowledgementBatch_v1(
    o: ShareAcknowledgeRequest.AcknowledgementBatch, b: bytearray
) -> None:
    """Versions 1-2."""
    b += _S_qq.pack(o.first_offset, o.last_offset)
    x_acknowledge_types = o.acknowledge_types
    write_compact_array_length(b, len(x_acknowledge_types))
    write_number_array(b, "b", x_acknowledge_types)
    b.append(0)  # no tagged fields


def _encode_ShareAcknowledgeRequest_AcknowledgePartition_v1(
    o: ShareAcknowledgeRequest.AcknowledgePartition, b: bytearray
) -> None:
    """Versions 1-2."""
    b += _S_i.pack(o.partition_index)
    x_acknowledgement_batches = o.acknowledgement_batches
    write_compact_array_length(b, len(x_acknowledgement_batches))
    for e_acknowledgement_batches in x_acknowledgement_batches:
        _encode_ShareAcknowledgeRequest_AcknowledgementBatch_v1(e_acknowledgement_batches, b)
    b.append(0)  # no tagged fields


def _encode_ShareAcknowledgeRequest_AcknowledgeTopic_v1(
    o: ShareAcknowledgeRequest.AcknowledgeTopic, b: bytearray
) -> None:
    """Versions 1-2."""
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_ShareAcknowledgeRequest_AcknowledgePartition_v1(e_partitions, b)
    b.append(0)  # no tagged fields


def _encode_ShareAcknowledgeRequest_v1(o: ShareAcknowledgeRequest, b: bytearray) -> None:
    """Versions 1."""
    if o.is_renew_ack:
        raise UnsupportedVersionError("ShareAcknowledgeRequest v1: IsRenewAck cannot be carried")
    write_compact_nullable_string(b, o.group_id)
    write_compact_nullable_string(b, o.member_id)
    b += _S_i.pack(o.share_session_epoch)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_ShareAcknowledgeRequest_AcknowledgeTopic_v1(e_topics, b)
    b.append(0)  # no tagged fields


def _encode_ShareAcknowledgeRequest_v2(o: ShareAcknowledgeRequest, b: bytearray) -> None:
    """Versions 2."""
    write_compact_nullable_string(b, o.group_id)
    write_compact_nullable_string(b, o.member_id)
    b += _S_io.pack(o.share_session_epoch, o.is_renew_ack)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_ShareAcknowledgeRequest_AcknowledgeTopic_v1(e_topics, b)
    b.append(0)  # no tagged fields


def _decode_ShareAcknowledgeRequest_AcknowledgementBatch_v1(
    buf: memoryview, pos: int
) -> tuple[ShareAcknowledgeRequest.AcknowledgementBatch, int]:
    """Versions 1-2."""
    f_first_offset, f_last_offset = _S_qq.unpack_from(buf, pos)
    pos += 16
    n, pos = read_compact_array_length(buf, pos)
    f_acknowledge_types: list[int]
    if n < 0:
        raise DecodeError("AcknowledgeTypes: null where it is not nullable")
    f_acknowledge_types, pos = read_number_array(buf, pos, n, "b", 1)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareAcknowledgeRequest.AcknowledgementBatch(
        f_first_offset, f_last_offset, f_acknowledge_types
    ), pos


def _decode_ShareAcknowledgeRequest_AcknowledgePartition_v1(
    buf: memoryview, pos: int
) -> tuple[ShareAcknowledgeRequest.AcknowledgePartition, int]:
    """Versions 1-2."""
    (f_partition_index,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_acknowledgement_batches: list[ShareAcknowledgeRequest.AcknowledgementBatch]
    if n < 0:
        raise DecodeError("AcknowledgementBatches: null where it is not nullable")
    f_acknowledgement_batches = []
    for _ in range(n):
        e_acknowledgement_batches, pos = _decode_ShareAcknowledgeRequest_AcknowledgementBatch_v1(
            buf, pos
        )
        f_acknowledgement_batches.append(e_acknowledgement_batches)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareAcknowledgeRequest.AcknowledgePartition(
        f_partition_index, f_acknowledgement_batches
    ), pos


def _decode_ShareAcknowledgeRequest_AcknowledgeTopic_v1(
    buf: memoryview, pos: int
) -> tuple[ShareAcknowledgeRequest.AcknowledgeTopic, int]:
    """Versions 1-2."""
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[ShareAcknowledgeRequest.AcknowledgePartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = _decode_ShareAcknowledgeRequest_AcknowledgePartition_v1(buf, pos)
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareAcknowledgeRequest.AcknowledgeTopic(f_topic_id, f_partitions), pos


def _decode_ShareAcknowledgeRequest_v1(
    buf: memoryview, pos: int
) -> tuple[ShareAcknowledgeRequest, int]:
    """Versions 1."""
    f_group_id, pos = read_compact_nullable_string(buf, pos)
    f_member_id, pos = read_compact_nullable_string(buf, pos)
    (f_share_session_epoch,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[ShareAcknowledgeRequest.AcknowledgeTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_ShareAcknowledgeRequest_AcknowledgeTopic_v1(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareAcknowledgeRequest(
        f_group_id, f_member_id, f_share_session_epoch, False, f_topics
    ), pos


def _decode_ShareAcknowledgeRequest_v2(
    buf: memoryview, pos: int
) -> tuple[ShareAcknowledgeRequest, int]:
    """Versions 2."""
    f_group_id, pos = read_compact_nullable_string(buf, pos)
    f_member_id, pos = read_compact_nullable_string(buf, pos)
    f_share_session_epoch, f_is_renew_ack = _S_io.unpack_from(buf, pos)
    pos += 5
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[ShareAcknowledgeRequest.AcknowledgeTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_ShareAcknowledgeRequest_AcknowledgeTopic_v1(buf, pos)
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return ShareAcknowledgeRequest(
        f_group_id, f_member_id, f_share_session_epoch, f_is_renew_ack, f_topics
    ), pos


def _encode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponsePartition_v0(
    o: DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponsePartition, b: bytearray
) -> None:
    """Versions 0."""
    b += _S_iqih.pack(o.partition_index, o.start_offset, o.leader_epoch, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b.append(0)  # no tagged fields


def _encode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseTopic_v0(
    o: DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseTopic, b: bytearray
) -> None:
    """Versions 0."""
    write_compact_string(b, o.topic_name)
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponsePartition_v0(
            e_partitions, b
        )
    b.append(0)  # no tagged fields


def _encode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseGroup_v0(
    o: DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup, b: bytearray
) -> None:
    """Versions 0."""
    write_compact_string(b, o.group_id)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseTopic_v0(
            e_topics, b
        )
    b += _S_h.pack(o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b.append(0)  # no tagged fields


def _encode_DescribeShareGroupOffsetsResponse_v0(
    o: DescribeShareGroupOffsetsResponse, b: bytearray
) -> None:
    """Versions 0."""
    b += _S_i.pack(o.throttle_time_ms)
    x_groups = o.groups
    write_compact_array_length(b, len(x_groups))
    for e_groups in x_groups:
        _encode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseGroup_v0(
            e_groups, b
        )
    b.append(0)  # no tagged fields


def _encode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponsePartition_v1(
    o: DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponsePartition, b: bytearray
) -> None:
    """Versions 1."""
    b += _S_iqiqh.pack(o.partition_index, o.start_offset, o.leader_epoch, o.lag, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b.append(0)  # no tagged fields


def _encode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseTopic_v1(
    o: DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseTopic, b: bytearray
) -> None:
    """Versions 1."""
    write_compact_string(b, o.topic_name)
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponsePartition_v1(
            e_partitions, b
        )
    b.append(0)  # no tagged fields


def _encode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseGroup_v1(
    o: DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup, b: bytearray
) -> None:
    """Versions 1."""
    write_compact_string(b, o.group_id)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseTopic_v1(
            e_topics, b
        )
    b += _S_h.pack(o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b.append(0)  # no tagged fields


def _encode_DescribeShareGroupOffsetsResponse_v1(
    o: DescribeShareGroupOffsetsResponse, b: bytearray
) -> None:
    """Versions 1."""
    b += _S_i.pack(o.throttle_time_ms)
    x_groups = o.groups
    write_compact_array_length(b, len(x_groups))
    for e_groups in x_groups:
        _encode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseGroup_v1(
            e_groups, b
        )
    b.append(0)  # no tagged fields


def _decode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponsePartition_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponsePartition, int]:
    """Versions 0."""
    f_partition_index, f_start_offset, f_leader_epoch, f_error_code = _S_iqih.unpack_from(buf, pos)
    pos += 18
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponsePartition(
        f_partition_index, f_start_offset, f_leader_epoch, -1, f_error_code, f_error_message
    ), pos


def _decode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseTopic_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseTopic, int]:
    """Versions 0."""
    f_topic_name, pos = read_compact_string(buf, pos)
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponsePartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = (
            _decode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponsePartition_v0(
                buf, pos
            )
        )
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseTopic(
        f_topic_name, f_topic_id, f_partitions
    ), pos


def _decode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseGroup_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup, int]:
    """Versions 0."""
    f_group_id, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = (
            _decode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseTopic_v0(
                buf, pos
            )
        )
        f_topics.append(e_topics)
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup(
        f_group_id, f_topics, f_error_code, f_error_message
    ), pos


def _decode_DescribeShareGroupOffsetsResponse_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeShareGroupOffsetsResponse, int]:
    """Versions 0."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_groups: list[DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup]
    if n < 0:
        raise DecodeError("Groups: null where it is not nullable")
    f_groups = []
    for _ in range(n):
        e_groups, pos = (
            _decode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseGroup_v0(
                buf, pos
            )
        )
        f_groups.append(e_groups)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeShareGroupOffsetsResponse(f_throttle_time_ms, f_groups), pos


def _decode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponsePartition_v1(
    buf: memoryview, pos: int
) -> tuple[DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponsePartition, int]:
    """Versions 1."""
    f_partition_index, f_start_offset, f_leader_epoch, f_lag, f_error_code = _S_iqiqh.unpack_from(
        buf, pos
    )
    pos += 26
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponsePartition(
        f_partition_index, f_start_offset, f_leader_epoch, f_lag, f_error_code, f_error_message
    ), pos


def _decode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseTopic_v1(
    buf: memoryview, pos: int
) -> tuple[DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseTopic, int]:
    """Versions 1."""
    f_topic_name, pos = read_compact_string(buf, pos)
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponsePartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = (
            _decode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponsePartition_v1(
                buf, pos
            )
        )
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseTopic(
        f_topic_name, f_topic_id, f_partitions
    ), pos


def _decode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseGroup_v1(
    buf: memoryview, pos: int
) -> tuple[DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup, int]:
    """Versions 1."""
    f_group_id, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = (
            _decode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseTopic_v1(
                buf, pos
            )
        )
        f_topics.append(e_topics)
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup(
        f_group_id, f_topics, f_error_code, f_error_message
    ), pos


def _decode_DescribeShareGroupOffsetsResponse_v1(
    buf: memoryview, pos: int
) -> tuple[DescribeShareGroupOffsetsResponse, int]:
    """Versions 1."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_groups: list[DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup]
    if n < 0:
        raise DecodeError("Groups: null where it is not nullable")
    f_groups = []
    for _ in range(n):
        e_groups, pos = (
            _decode_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseGroup_v1(
                buf, pos
            )
        )
        f_groups.append(e_groups)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeShareGroupOffsetsResponse(f_throttle_time_ms, f_groups), pos


def _encode_DescribeShareGroupOffsetsRequest_DescribeShareGroupOffsetsRequestTopic_v0(
    o: DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestTopic, b: bytearray
) -> None:
    """Versions 0-1."""
    write_compact_string(b, o.topic_name)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    write_number_array(b, "i", x_partitions)
    b.append(0)  # no tagged fields


def _encode_DescribeShareGroupOffsetsRequest_DescribeShareGroupOffsetsRequestGroup_v0(
    o: DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestGroup, b: bytearray
) -> None:
    """Versions 0-1."""
    write_compact_string(b, o.group_id)
    x_topics = o.topics
    write_compact_array_length(b, None if x_topics is None else len(x_topics))
    if x_topics is not None:
        for e_topics in x_topics:
            _encode_DescribeShareGroupOffsetsRequest_DescribeShareGroupOffsetsRequestTopic_v0(
                e_topics, b
            )
    b.append(0)  # no tagged fields


def _encode_DescribeShareGroupOffsetsRequest_v0(
    o: DescribeShareGroupOffsetsRequest, b: bytearray
) -> None:
    """Versions 0-1."""
    x_groups = o.groups
    write_compact_array_length(b, len(x_groups))
    for e_groups in x_groups:
        _encode_DescribeShareGroupOffsetsRequest_DescribeShareGroupOffsetsRequestGroup_v0(
            e_groups, b
        )
    b.append(0)  # no tagged fields


def _decode_DescribeShareGroupOffsetsRequest_DescribeShareGroupOffsetsRequestTopic_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestTopic, int]:
    """Versions 0-1."""
    f_topic_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[int]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions, pos = read_number_array(buf, pos, n, "i", 4)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestTopic(
        f_topic_name, f_partitions
    ), pos


def _decode_DescribeShareGroupOffsetsRequest_DescribeShareGroupOffsetsRequestGroup_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestGroup, int]:
    """Versions 0-1."""
    f_group_id, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestTopic] | None
    if n < 0:
        f_topics = None
    else:
        f_topics = []
        for _ in range(n):
            e_topics, pos = (
                _decode_DescribeShareGroupOffsetsRequest_DescribeShareGroupOffsetsRequestTopic_v0(
                    buf, pos
                )
            )
            f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestGroup(
        f_group_id, f_topics
    ), pos


def _decode_DescribeShareGroupOffsetsRequest_v0(
    buf: memoryview, pos: int
) -> tuple[DescribeShareGroupOffsetsRequest, int]:
    """Versions 0-1."""
    n, pos = read_compact_array_length(buf, pos)
    f_groups: list[DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestGroup]
    if n < 0:
        raise DecodeError("Groups: null where it is not nullable")
    f_groups = []
    for _ in range(n):
        e_groups, pos = (
            _decode_DescribeShareGroupOffsetsRequest_DescribeShareGroupOffsetsRequestGroup_v0(
                buf, pos
            )
        )
        f_groups.append(e_groups)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeShareGroupOffsetsRequest(f_groups), pos


def _encode_AlterShareGroupOffsetsResponse_AlterShareGroupOffsetsResponsePartition_v0(
    o: AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponsePartition, b: bytearray
) -> None:
    """Versions 0."""
    b += _S_ih.pack(o.partition_index, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b.append(0)  # no tagged fields


def _encode_AlterShareGroupOffsetsResponse_AlterShareGroupOffsetsResponseTopic_v0(
    o: AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponseTopic, b: bytearray
) -> None:
    """Versions 0."""
    write_compact_string(b, o.topic_name)
    b += _S_u.pack(o.topic_id.bytes)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_AlterShareGroupOffsetsResponse_AlterShareGroupOffsetsResponsePartition_v0(
            e_partitions, b
        )
    b.append(0)  # no tagged fields


def _encode_AlterShareGroupOffsetsResponse_v0(
    o: AlterShareGroupOffsetsResponse, b: bytearray
) -> None:
    """Versions 0."""
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    x_responses = o.responses
    write_compact_array_length(b, len(x_responses))
    for e_responses in x_responses:
        _encode_AlterShareGroupOffsetsResponse_AlterShareGroupOffsetsResponseTopic_v0(
            e_responses, b
        )
    b.append(0)  # no tagged fields


def _decode_AlterShareGroupOffsetsResponse_AlterShareGroupOffsetsResponsePartition_v0(
    buf: memoryview, pos: int
) -> tuple[AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponsePartition, int]:
    """Versions 0."""
    f_partition_index, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponsePartition(
        f_partition_index, f_error_code, f_error_message
    ), pos


def _decode_AlterShareGroupOffsetsResponse_AlterShareGroupOffsetsResponseTopic_v0(
    buf: memoryview, pos: int
) -> tuple[AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponseTopic, int]:
    """Versions 0."""
    f_topic_name, pos = read_compact_string(buf, pos)
    (u_topic_id,) = _S_u.unpack_from(buf, pos)
    pos += 16
    f_topic_id = UUID(bytes=u_topic_id)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponsePartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = (
            _decode_AlterShareGroupOffsetsResponse_AlterShareGroupOffsetsResponsePartition_v0(
                buf, pos
            )
        )
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponseTopic(
        f_topic_name, f_topic_id, f_partitions
    ), pos


def _decode_AlterShareGroupOffsetsResponse_v0(
    buf: memoryview, pos: int
) -> tuple[AlterShareGroupOffsetsResponse, int]:
    """Versions 0."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_responses: list[AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponseTopic]
    if n < 0:
        raise DecodeError("Responses: null where it is not nullable")
    f_responses = []
    for _ in range(n):
        e_responses, pos = (
            _decode_AlterShareGroupOffsetsResponse_AlterShareGroupOffsetsResponseTopic_v0(buf, pos)
        )
        f_responses.append(e_responses)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AlterShareGroupOffsetsResponse(
        f_throttle_time_ms, f_error_code, f_error_message, f_responses
    ), pos


def _encode_AlterShareGroupOffsetsRequest_AlterShareGroupOffsetsRequestPartition_v0(
    o: AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestPartition, b: bytearray
) -> None:
    """Versions 0."""
    b += _S_iq.pack(o.partition_index, o.start_offset)
    b.append(0)  # no tagged fields


def _encode_AlterShareGroupOffsetsRequest_AlterShareGroupOffsetsRequestTopic_v0(
    o: AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestTopic, b: bytearray
) -> None:
    """Versions 0."""
    write_compact_string(b, o.topic_name)
    x_partitions = o.partitions
    write_compact_array_length(b, len(x_partitions))
    for e_partitions in x_partitions:
        _encode_AlterShareGroupOffsetsRequest_AlterShareGroupOffsetsRequestPartition_v0(
            e_partitions, b
        )
    b.append(0)  # no tagged fields


def _encode_AlterShareGroupOffsetsRequest_v0(
    o: AlterShareGroupOffsetsRequest, b: bytearray
) -> None:
    """Versions 0."""
    write_compact_string(b, o.group_id)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_AlterShareGroupOffsetsRequest_AlterShareGroupOffsetsRequestTopic_v0(e_topics, b)
    b.append(0)  # no tagged fields


def _decode_AlterShareGroupOffsetsRequest_AlterShareGroupOffsetsRequestPartition_v0(
    buf: memoryview, pos: int
) -> tuple[AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestPartition, int]:
    """Versions 0."""
    f_partition_index, f_start_offset = _S_iq.unpack_from(buf, pos)
    pos += 12
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestPartition(
        f_partition_index, f_start_offset
    ), pos


def _decode_AlterShareGroupOffsetsRequest_AlterShareGroupOffsetsRequestTopic_v0(
    buf: memoryview, pos: int
) -> tuple[AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestTopic, int]:
    """Versions 0."""
    f_topic_name, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_partitions: list[AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestPartition]
    if n < 0:
        raise DecodeError("Partitions: null where it is not nullable")
    f_partitions = []
    for _ in range(n):
        e_partitions, pos = (
            _decode_AlterShareGroupOffsetsRequest_AlterShareGroupOffsetsRequestPartition_v0(
                buf, pos
            )
        )
        f_partitions.append(e_partitions)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestTopic(
        f_topic_name, f_partitions
    ), pos


def _decode_AlterShareGroupOffsetsRequest_v0(
    buf: memoryview, pos: int
) -> tuple[AlterShareGroupOffsetsRequest, int]:
    """Versions 0."""
    f_group_id, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = _decode_AlterShareGroupOffsetsRequest_AlterShareGroupOffsetsRequestTopic_v0(
            buf, pos
        )
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AlterShareGroupOffsetsRequest(f_group_id, f_topics), pos


def _encode_DeleteShareGroupOffsetsResponse_DeleteShareGroupOffsetsResponseTopic_v0(
    o: DeleteShareGroupOffsetsResponse.DeleteShareGroupOffsetsResponseTopic, b: bytearray
) -> None:
    """Versions 0."""
    write_compact_string(b, o.topic_name)
    b += _S_uh.pack(o.topic_id.bytes, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b.append(0)  # no tagged fields


def _encode_DeleteShareGroupOffsetsResponse_v0(
    o: DeleteShareGroupOffsetsResponse, b: bytearray
) -> None:
    """Versions 0."""
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    x_responses = o.responses
    write_compact_array_length(b, len(x_responses))
    for e_responses in x_responses:
        _encode_DeleteShareGroupOffsetsResponse_DeleteShareGroupOffsetsResponseTopic_v0(
            e_responses, b
        )
    b.append(0)  # no tagged fields


def _decode_DeleteShareGroupOffsetsResponse_DeleteShareGroupOffsetsResponseTopic_v0(
    buf: memoryview, pos: int
) -> tuple[DeleteShareGroupOffsetsResponse.DeleteShareGroupOffsetsResponseTopic, int]:
    """Versions 0."""
    f_topic_name, pos = read_compact_string(buf, pos)
    u_topic_id, f_error_code = _S_uh.unpack_from(buf, pos)
    pos += 18
    f_topic_id = UUID(bytes=u_topic_id)
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteShareGroupOffsetsResponse.DeleteShareGroupOffsetsResponseTopic(
        f_topic_name, f_topic_id, f_error_code, f_error_message
    ), pos


def _decode_DeleteShareGroupOffsetsResponse_v0(
    buf: memoryview, pos: int
) -> tuple[DeleteShareGroupOffsetsResponse, int]:
    """Versions 0."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_responses: list[DeleteShareGroupOffsetsResponse.DeleteShareGroupOffsetsResponseTopic]
    if n < 0:
        raise DecodeError("Responses: null where it is not nullable")
    f_responses = []
    for _ in range(n):
        e_responses, pos = (
            _decode_DeleteShareGroupOffsetsResponse_DeleteShareGroupOffsetsResponseTopic_v0(
                buf, pos
            )
        )
        f_responses.append(e_responses)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteShareGroupOffsetsResponse(
        f_throttle_time_ms, f_error_code, f_error_message, f_responses
    ), pos


def _encode_DeleteShareGroupOffsetsRequest_DeleteShareGroupOffsetsRequestTopic_v0(
    o: DeleteShareGroupOffsetsRequest.DeleteShareGroupOffsetsRequestTopic, b: bytearray
) -> None:
    """Versions 0."""
    write_compact_string(b, o.topic_name)
    b.append(0)  # no tagged fields


def _encode_DeleteShareGroupOffsetsRequest_v0(
    o: DeleteShareGroupOffsetsRequest, b: bytearray
) -> None:
    """Versions 0."""
    write_compact_string(b, o.group_id)
    x_topics = o.topics
    write_compact_array_length(b, len(x_topics))
    for e_topics in x_topics:
        _encode_DeleteShareGroupOffsetsRequest_DeleteShareGroupOffsetsRequestTopic_v0(e_topics, b)
    b.append(0)  # no tagged fields


def _decode_DeleteShareGroupOffsetsRequest_DeleteShareGroupOffsetsRequestTopic_v0(
    buf: memoryview, pos: int
) -> tuple[DeleteShareGroupOffsetsRequest.DeleteShareGroupOffsetsRequestTopic, int]:
    """Versions 0."""
    f_topic_name, pos = read_compact_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteShareGroupOffsetsRequest.DeleteShareGroupOffsetsRequestTopic(f_topic_name), pos


def _decode_DeleteShareGroupOffsetsRequest_v0(
    buf: memoryview, pos: int
) -> tuple[DeleteShareGroupOffsetsRequest, int]:
    """Versions 0."""
    f_group_id, pos = read_compact_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_topics: list[DeleteShareGroupOffsetsRequest.DeleteShareGroupOffsetsRequestTopic]
    if n < 0:
        raise DecodeError("Topics: null where it is not nullable")
    f_topics = []
    for _ in range(n):
        e_topics, pos = (
            _decode_DeleteShareGroupOffsetsRequest_DeleteShareGroupOffsetsRequestTopic_v0(buf, pos)
        )
        f_topics.append(e_topics)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteShareGroupOffsetsRequest(f_group_id, f_topics), pos


def _encode_DescribeAclsResponse_AclDescription_v2(
    o: DescribeAclsResponse.AclDescription, b: bytearray
) -> None:
    """Versions 2-3."""
    write_compact_string(b, o.principal)
    write_compact_string(b, o.host)
    b += _S_bb.pack(o.operation, o.permission_type)
    b.append(0)  # no tagged fields


def _encode_DescribeAclsResponse_DescribeAclsResource_v2(
    o: DescribeAclsResponse.DescribeAclsResource, b: bytearray
) -> None:
    """Versions 2-3."""
    b += _S_b.pack(o.resource_type)
    write_compact_string(b, o.resource_name)
    b += _S_b.pack(o.pattern_type)
    x_acls = o.acls
    write_compact_array_length(b, len(x_acls))
    for e_acls in x_acls:
        _encode_DescribeAclsResponse_AclDescription_v2(e_acls, b)
    b.append(0)  # no tagged fields


def _encode_DescribeAclsResponse_v2(o: DescribeAclsResponse, b: bytearray) -> None:
    """Versions 2-3."""
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    x_resources = o.resources
    write_compact_array_length(b, len(x_resources))
    for e_resources in x_resources:
        _encode_DescribeAclsResponse_DescribeAclsResource_v2(e_resources, b)
    b.append(0)  # no tagged fields


def _decode_DescribeAclsResponse_AclDescription_v2(
    buf: memoryview, pos: int
) -> tuple[DescribeAclsResponse.AclDescription, int]:
    """Versions 2-3."""
    f_principal, pos = read_compact_string(buf, pos)
    f_host, pos = read_compact_string(buf, pos)
    f_operation, f_permission_type = _S_bb.unpack_from(buf, pos)
    pos += 2
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeAclsResponse.AclDescription(
        f_principal, f_host, f_operation, f_permission_type
    ), pos


def _decode_DescribeAclsResponse_DescribeAclsResource_v2(
    buf: memoryview, pos: int
) -> tuple[DescribeAclsResponse.DescribeAclsResource, int]:
    """Versions 2-3."""
    (f_resource_type,) = _S_b.unpack_from(buf, pos)
    pos += 1
    f_resource_name, pos = read_compact_string(buf, pos)
    (f_pattern_type,) = _S_b.unpack_from(buf, pos)
    pos += 1
    n, pos = read_compact_array_length(buf, pos)
    f_acls: list[DescribeAclsResponse.AclDescription]
    if n < 0:
        raise DecodeError("Acls: null where it is not nullable")
    f_acls = []
    for _ in range(n):
        e_acls, pos = _decode_DescribeAclsResponse_AclDescription_v2(buf, pos)
        f_acls.append(e_acls)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeAclsResponse.DescribeAclsResource(
        f_resource_type, f_resource_name, f_pattern_type, f_acls
    ), pos


def _decode_DescribeAclsResponse_v2(buf: memoryview, pos: int) -> tuple[DescribeAclsResponse, int]:
    """Versions 2-3."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_resources: list[DescribeAclsResponse.DescribeAclsResource]
    if n < 0:
        raise DecodeError("Resources: null where it is not nullable")
    f_resources = []
    for _ in range(n):
        e_resources, pos = _decode_DescribeAclsResponse_DescribeAclsResource_v2(buf, pos)
        f_resources.append(e_resources)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeAclsResponse(f_throttle_time_ms, f_error_code, f_error_message, f_resources), pos


def _encode_DescribeAclsRequest_v2(o: DescribeAclsRequest, b: bytearray) -> None:
    """Versions 2-3."""
    b += _S_b.pack(o.resource_type_filter)
    write_compact_nullable_string(b, o.resource_name_filter)
    b += _S_b.pack(o.pattern_type_filter)
    write_compact_nullable_string(b, o.principal_filter)
    write_compact_nullable_string(b, o.host_filter)
    b += _S_bb.pack(o.operation, o.permission_type)
    b.append(0)  # no tagged fields


def _decode_DescribeAclsRequest_v2(buf: memoryview, pos: int) -> tuple[DescribeAclsRequest, int]:
    """Versions 2-3."""
    (f_resource_type_filter,) = _S_b.unpack_from(buf, pos)
    pos += 1
    f_resource_name_filter, pos = read_compact_nullable_string(buf, pos)
    (f_pattern_type_filter,) = _S_b.unpack_from(buf, pos)
    pos += 1
    f_principal_filter, pos = read_compact_nullable_string(buf, pos)
    f_host_filter, pos = read_compact_nullable_string(buf, pos)
    f_operation, f_permission_type = _S_bb.unpack_from(buf, pos)
    pos += 2
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeAclsRequest(
        f_resource_type_filter,
        f_resource_name_filter,
        f_pattern_type_filter,
        f_principal_filter,
        f_host_filter,
        f_operation,
        f_permission_type,
    ), pos


def _encode_CreateAclsResponse_AclCreationResult_v2(
    o: CreateAclsResponse.AclCreationResult, b: bytearray
) -> None:
    """Versions 2-3."""
    b += _S_h.pack(o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b.append(0)  # no tagged fields


def _encode_CreateAclsResponse_v2(o: CreateAclsResponse, b: bytearray) -> None:
    """Versions 2-3."""
    b += _S_i.pack(o.throttle_time_ms)
    x_results = o.results
    write_compact_array_length(b, len(x_results))
    for e_results in x_results:
        _encode_CreateAclsResponse_AclCreationResult_v2(e_results, b)
    b.append(0)  # no tagged fields


def _decode_CreateAclsResponse_AclCreationResult_v2(
    buf: memoryview, pos: int
) -> tuple[CreateAclsResponse.AclCreationResult, int]:
    """Versions 2-3."""
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return CreateAclsResponse.AclCreationResult(f_error_code, f_error_message), pos


def _decode_CreateAclsResponse_v2(buf: memoryview, pos: int) -> tuple[CreateAclsResponse, int]:
    """Versions 2-3."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_results: list[CreateAclsResponse.AclCreationResult]
    if n < 0:
        raise DecodeError("Results: null where it is not nullable")
    f_results = []
    for _ in range(n):
        e_results, pos = _decode_CreateAclsResponse_AclCreationResult_v2(buf, pos)
        f_results.append(e_results)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return CreateAclsResponse(f_throttle_time_ms, f_results), pos


def _encode_CreateAclsRequest_AclCreation_v2(
    o: CreateAclsRequest.AclCreation, b: bytearray
) -> None:
    """Versions 2-3."""
    b += _S_b.pack(o.resource_type)
    write_compact_string(b, o.resource_name)
    b += _S_b.pack(o.resource_pattern_type)
    write_compact_string(b, o.principal)
    write_compact_string(b, o.host)
    b += _S_bb.pack(o.operation, o.permission_type)
    b.append(0)  # no tagged fields


def _encode_CreateAclsRequest_v2(o: CreateAclsRequest, b: bytearray) -> None:
    """Versions 2-3."""
    x_creations = o.creations
    write_compact_array_length(b, len(x_creations))
    for e_creations in x_creations:
        _encode_CreateAclsRequest_AclCreation_v2(e_creations, b)
    b.append(0)  # no tagged fields


def _decode_CreateAclsRequest_AclCreation_v2(
    buf: memoryview, pos: int
) -> tuple[CreateAclsRequest.AclCreation, int]:
    """Versions 2-3."""
    (f_resource_type,) = _S_b.unpack_from(buf, pos)
    pos += 1
    f_resource_name, pos = read_compact_string(buf, pos)
    (f_resource_pattern_type,) = _S_b.unpack_from(buf, pos)
    pos += 1
    f_principal, pos = read_compact_string(buf, pos)
    f_host, pos = read_compact_string(buf, pos)
    f_operation, f_permission_type = _S_bb.unpack_from(buf, pos)
    pos += 2
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return CreateAclsRequest.AclCreation(
        f_resource_type,
        f_resource_name,
        f_resource_pattern_type,
        f_principal,
        f_host,
        f_operation,
        f_permission_type,
    ), pos


def _decode_CreateAclsRequest_v2(buf: memoryview, pos: int) -> tuple[CreateAclsRequest, int]:
    """Versions 2-3."""
    n, pos = read_compact_array_length(buf, pos)
    f_creations: list[CreateAclsRequest.AclCreation]
    if n < 0:
        raise DecodeError("Creations: null where it is not nullable")
    f_creations = []
    for _ in range(n):
        e_creations, pos = _decode_CreateAclsRequest_AclCreation_v2(buf, pos)
        f_creations.append(e_creations)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return CreateAclsRequest(f_creations), pos


def _encode_DeleteAclsResponse_DeleteAclsMatchingAcl_v2(
    o: DeleteAclsResponse.DeleteAclsMatchingAcl, b: bytearray
) -> None:
    """Versions 2-3."""
    b += _S_h.pack(o.error_code)
    write_compact_nullable_string(b, o.error_message)
    b += _S_b.pack(o.resource_type)
    write_compact_string(b, o.resource_name)
    b += _S_b.pack(o.pattern_type)
    write_compact_string(b, o.principal)
    write_compact_string(b, o.host)
    b += _S_bb.pack(o.operation, o.permission_type)
    b.append(0)  # no tagged fields


def _encode_DeleteAclsResponse_DeleteAclsFilterResult_v2(
    o: DeleteAclsResponse.DeleteAclsFilterResult, b: bytearray
) -> None:
    """Versions 2-3."""
    b += _S_h.pack(o.error_code)
    write_compact_nullable_string(b, o.error_message)
    x_matching_acls = o.matching_acls
    write_compact_array_length(b, len(x_matching_acls))
    for e_matching_acls in x_matching_acls:
        _encode_DeleteAclsResponse_DeleteAclsMatchingAcl_v2(e_matching_acls, b)
    b.append(0)  # no tagged fields


def _encode_DeleteAclsResponse_v2(o: DeleteAclsResponse, b: bytearray) -> None:
    """Versions 2-3."""
    b += _S_i.pack(o.throttle_time_ms)
    x_filter_results = o.filter_results
    write_compact_array_length(b, len(x_filter_results))
    for e_filter_results in x_filter_results:
        _encode_DeleteAclsResponse_DeleteAclsFilterResult_v2(e_filter_results, b)
    b.append(0)  # no tagged fields


def _decode_DeleteAclsResponse_DeleteAclsMatchingAcl_v2(
    buf: memoryview, pos: int
) -> tuple[DeleteAclsResponse.DeleteAclsMatchingAcl, int]:
    """Versions 2-3."""
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    (f_resource_type,) = _S_b.unpack_from(buf, pos)
    pos += 1
    f_resource_name, pos = read_compact_string(buf, pos)
    (f_pattern_type,) = _S_b.unpack_from(buf, pos)
    pos += 1
    f_principal, pos = read_compact_string(buf, pos)
    f_host, pos = read_compact_string(buf, pos)
    f_operation, f_permission_type = _S_bb.unpack_from(buf, pos)
    pos += 2
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteAclsResponse.DeleteAclsMatchingAcl(
        f_error_code,
        f_error_message,
        f_resource_type,
        f_resource_name,
        f_pattern_type,
        f_principal,
        f_host,
        f_operation,
        f_permission_type,
    ), pos


def _decode_DeleteAclsResponse_DeleteAclsFilterResult_v2(
    buf: memoryview, pos: int
) -> tuple[DeleteAclsResponse.DeleteAclsFilterResult, int]:
    """Versions 2-3."""
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_matching_acls: list[DeleteAclsResponse.DeleteAclsMatchingAcl]
    if n < 0:
        raise DecodeError("MatchingAcls: null where it is not nullable")
    f_matching_acls = []
    for _ in range(n):
        e_matching_acls, pos = _decode_DeleteAclsResponse_DeleteAclsMatchingAcl_v2(buf, pos)
        f_matching_acls.append(e_matching_acls)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteAclsResponse.DeleteAclsFilterResult(
        f_error_code, f_error_message, f_matching_acls
    ), pos


def _decode_DeleteAclsResponse_v2(buf: memoryview, pos: int) -> tuple[DeleteAclsResponse, int]:
    """Versions 2-3."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_filter_results: list[DeleteAclsResponse.DeleteAclsFilterResult]
    if n < 0:
        raise DecodeError("FilterResults: null where it is not nullable")
    f_filter_results = []
    for _ in range(n):
        e_filter_results, pos = _decode_DeleteAclsResponse_DeleteAclsFilterResult_v2(buf, pos)
        f_filter_results.append(e_filter_results)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteAclsResponse(f_throttle_time_ms, f_filter_results), pos


def _encode_DeleteAclsRequest_DeleteAclsFilter_v2(
    o: DeleteAclsRequest.DeleteAclsFilter, b: bytearray
) -> None:
    """Versions 2-3."""
    b += _S_b.pack(o.resource_type_filter)
    write_compact_nullable_string(b, o.resource_name_filter)
    b += _S_b.pack(o.pattern_type_filter)
    write_compact_nullable_string(b, o.principal_filter)
    write_compact_nullable_string(b, o.host_filter)
    b += _S_bb.pack(o.operation, o.permission_type)
    b.append(0)  # no tagged fields


def _encode_DeleteAclsRequest_v2(o: DeleteAclsRequest, b: bytearray) -> None:
    """Versions 2-3."""
    x_filters = o.filters
    write_compact_array_length(b, len(x_filters))
    for e_filters in x_filters:
        _encode_DeleteAclsRequest_DeleteAclsFilter_v2(e_filters, b)
    b.append(0)  # no tagged fields


def _decode_DeleteAclsRequest_DeleteAclsFilter_v2(
    buf: memoryview, pos: int
) -> tuple[DeleteAclsRequest.DeleteAclsFilter, int]:
    """Versions 2-3."""
    (f_resource_type_filter,) = _S_b.unpack_from(buf, pos)
    pos += 1
    f_resource_name_filter, pos = read_compact_nullable_string(buf, pos)
    (f_pattern_type_filter,) = _S_b.unpack_from(buf, pos)
    pos += 1
    f_principal_filter, pos = read_compact_nullable_string(buf, pos)
    f_host_filter, pos = read_compact_nullable_string(buf, pos)
    f_operation, f_permission_type = _S_bb.unpack_from(buf, pos)
    pos += 2
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteAclsRequest.DeleteAclsFilter(
        f_resource_type_filter,
        f_resource_name_filter,
        f_pattern_type_filter,
        f_principal_filter,
        f_host_filter,
        f_operation,
        f_permission_type,
    ), pos


def _decode_DeleteAclsRequest_v2(buf: memoryview, pos: int) -> tuple[DeleteAclsRequest, int]:
    """Versions 2-3."""
    n, pos = read_compact_array_length(buf, pos)
    f_filters: list[DeleteAclsRequest.DeleteAclsFilter]
    if n < 0:
        raise DecodeError("Filters: null where it is not nullable")
    f_filters = []
    for _ in range(n):
        e_filters, pos = _decode_DeleteAclsRequest_DeleteAclsFilter_v2(buf, pos)
        f_filters.append(e_filters)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DeleteAclsRequest(f_filters), pos


def _encode_DescribeClientQuotasResponse_EntityData_v1(
    o: DescribeClientQuotasResponse.EntityData, b: bytearray
) -> None:
    """Versions 1."""
    write_compact_string(b, o.entity_type)
    write_compact_nullable_string(b, o.entity_name)
    b.append(0)  # no tagged fields


def _encode_DescribeClientQuotasResponse_ValueData_v1(
    o: DescribeClientQuotasResponse.ValueData, b: bytearray
) -> None:
    """Versions 1."""
    write_compact_string(b, o.key)
    b += _S_d.pack(o.value)
    b.append(0)  # no tagged fields


def _encode_DescribeClientQuotasResponse_EntryData_v1(
    o: DescribeClientQuotasResponse.EntryData, b: bytearray
) -> None:
    """Versions 1."""
    x_entity = o.entity
    write_compact_array_length(b, len(x_entity))
    for e_entity in x_entity:
        _encode_DescribeClientQuotasResponse_EntityData_v1(e_entity, b)
    x_values = o.values
    write_compact_array_length(b, len(x_values))
    for e_values in x_values:
        _encode_DescribeClientQuotasResponse_ValueData_v1(e_values, b)
    b.append(0)  # no tagged fields


def _encode_DescribeClientQuotasResponse_v1(o: DescribeClientQuotasResponse, b: bytearray) -> None:
    """Versions 1."""
    b += _S_ih.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(b, o.error_message)
    x_entries = o.entries
    write_compact_array_length(b, None if x_entries is None else len(x_entries))
    if x_entries is not None:
        for e_entries in x_entries:
            _encode_DescribeClientQuotasResponse_EntryData_v1(e_entries, b)
    b.append(0)  # no tagged fields


def _decode_DescribeClientQuotasResponse_EntityData_v1(
    buf: memoryview, pos: int
) -> tuple[DescribeClientQuotasResponse.EntityData, int]:
    """Versions 1."""
    f_entity_type, pos = read_compact_string(buf, pos)
    f_entity_name, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeClientQuotasResponse.EntityData(f_entity_type, f_entity_name), pos


def _decode_DescribeClientQuotasResponse_ValueData_v1(
    buf: memoryview, pos: int
) -> tuple[DescribeClientQuotasResponse.ValueData, int]:
    """Versions 1."""
    f_key, pos = read_compact_string(buf, pos)
    (f_value,) = _S_d.unpack_from(buf, pos)
    pos += 8
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeClientQuotasResponse.ValueData(f_key, f_value), pos


def _decode_DescribeClientQuotasResponse_EntryData_v1(
    buf: memoryview, pos: int
) -> tuple[DescribeClientQuotasResponse.EntryData, int]:
    """Versions 1."""
    n, pos = read_compact_array_length(buf, pos)
    f_entity: list[DescribeClientQuotasResponse.EntityData]
    if n < 0:
        raise DecodeError("Entity: null where it is not nullable")
    f_entity = []
    for _ in range(n):
        e_entity, pos = _decode_DescribeClientQuotasResponse_EntityData_v1(buf, pos)
        f_entity.append(e_entity)
    n, pos = read_compact_array_length(buf, pos)
    f_values: list[DescribeClientQuotasResponse.ValueData]
    if n < 0:
        raise DecodeError("Values: null where it is not nullable")
    f_values = []
    for _ in range(n):
        e_values, pos = _decode_DescribeClientQuotasResponse_ValueData_v1(buf, pos)
        f_values.append(e_values)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeClientQuotasResponse.EntryData(f_entity, f_values), pos


def _decode_DescribeClientQuotasResponse_v1(
    buf: memoryview, pos: int
) -> tuple[DescribeClientQuotasResponse, int]:
    """Versions 1."""
    f_throttle_time_ms, f_error_code = _S_ih.unpack_from(buf, pos)
    pos += 6
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_entries: list[DescribeClientQuotasResponse.EntryData] | None
    if n < 0:
        f_entries = None
    else:
        f_entries = []
        for _ in range(n):
            e_entries, pos = _decode_DescribeClientQuotasResponse_EntryData_v1(buf, pos)
            f_entries.append(e_entries)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeClientQuotasResponse(
        f_throttle_time_ms, f_error_code, f_error_message, f_entries
    ), pos


def _encode_DescribeClientQuotasRequest_ComponentData_v1(
    o: DescribeClientQuotasRequest.ComponentData, b: bytearray
) -> None:
    """Versions 1."""
    write_compact_string(b, o.entity_type)
    b += _S_b.pack(o.match_type)
    write_compact_nullable_string(b, o.match)
    b.append(0)  # no tagged fields


def _encode_DescribeClientQuotasRequest_v1(o: DescribeClientQuotasRequest, b: bytearray) -> None:
    """Versions 1."""
    x_components = o.components
    write_compact_array_length(b, len(x_components))
    for e_components in x_components:
        _encode_DescribeClientQuotasRequest_ComponentData_v1(e_components, b)
    b += _S_o.pack(o.strict)
    b.append(0)  # no tagged fields


def _decode_DescribeClientQuotasRequest_ComponentData_v1(
    buf: memoryview, pos: int
) -> tuple[DescribeClientQuotasRequest.ComponentData, int]:
    """Versions 1."""
    f_entity_type, pos = read_compact_string(buf, pos)
    (f_match_type,) = _S_b.unpack_from(buf, pos)
    pos += 1
    f_match, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeClientQuotasRequest.ComponentData(f_entity_type, f_match_type, f_match), pos


def _decode_DescribeClientQuotasRequest_v1(
    buf: memoryview, pos: int
) -> tuple[DescribeClientQuotasRequest, int]:
    """Versions 1."""
    n, pos = read_compact_array_length(buf, pos)
    f_components: list[DescribeClientQuotasRequest.ComponentData]
    if n < 0:
        raise DecodeError("Components: null where it is not nullable")
    f_components = []
    for _ in range(n):
        e_components, pos = _decode_DescribeClientQuotasRequest_ComponentData_v1(buf, pos)
        f_components.append(e_components)
    (f_strict,) = _S_o.unpack_from(buf, pos)
    pos += 1
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return DescribeClientQuotasRequest(f_components, f_strict), pos


def _encode_AlterClientQuotasResponse_EntityData_v1(
    o: AlterClientQuotasResponse.EntityData, b: bytearray
) -> None:
    """Versions 1."""
    write_compact_string(b, o.entity_type)
    write_compact_nullable_string(b, o.entity_name)
    b.append(0)  # no tagged fields


def _encode_AlterClientQuotasResponse_EntryData_v1(
    o: AlterClientQuotasResponse.EntryData, b: bytearray
) -> None:
    """Versions 1."""
    b += _S_h.pack(o.error_code)
    write_compact_nullable_string(b, o.error_message)
    x_entity = o.entity
    write_compact_array_length(b, len(x_entity))
    for e_entity in x_entity:
        _encode_AlterClientQuotasResponse_EntityData_v1(e_entity, b)
    b.append(0)  # no tagged fields


def _encode_AlterClientQuotasResponse_v1(o: AlterClientQuotasResponse, b: bytearray) -> None:
    """Versions 1."""
    b += _S_i.pack(o.throttle_time_ms)
    x_entries = o.entries
    write_compact_array_length(b, len(x_entries))
    for e_entries in x_entries:
        _encode_AlterClientQuotasResponse_EntryData_v1(e_entries, b)
    b.append(0)  # no tagged fields


def _decode_AlterClientQuotasResponse_EntityData_v1(
    buf: memoryview, pos: int
) -> tuple[AlterClientQuotasResponse.EntityData, int]:
    """Versions 1."""
    f_entity_type, pos = read_compact_string(buf, pos)
    f_entity_name, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AlterClientQuotasResponse.EntityData(f_entity_type, f_entity_name), pos


def _decode_AlterClientQuotasResponse_EntryData_v1(
    buf: memoryview, pos: int
) -> tuple[AlterClientQuotasResponse.EntryData, int]:
    """Versions 1."""
    (f_error_code,) = _S_h.unpack_from(buf, pos)
    pos += 2
    f_error_message, pos = read_compact_nullable_string(buf, pos)
    n, pos = read_compact_array_length(buf, pos)
    f_entity: list[AlterClientQuotasResponse.EntityData]
    if n < 0:
        raise DecodeError("Entity: null where it is not nullable")
    f_entity = []
    for _ in range(n):
        e_entity, pos = _decode_AlterClientQuotasResponse_EntityData_v1(buf, pos)
        f_entity.append(e_entity)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AlterClientQuotasResponse.EntryData(f_error_code, f_error_message, f_entity), pos


def _decode_AlterClientQuotasResponse_v1(
    buf: memoryview, pos: int
) -> tuple[AlterClientQuotasResponse, int]:
    """Versions 1."""
    (f_throttle_time_ms,) = _S_i.unpack_from(buf, pos)
    pos += 4
    n, pos = read_compact_array_length(buf, pos)
    f_entries: list[AlterClientQuotasResponse.EntryData]
    if n < 0:
        raise DecodeError("Entries: null where it is not nullable")
    f_entries = []
    for _ in range(n):
        e_entries, pos = _decode_AlterClientQuotasResponse_EntryData_v1(buf, pos)
        f_entries.append(e_entries)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AlterClientQuotasResponse(f_throttle_time_ms, f_entries), pos


def _encode_AlterClientQuotasRequest_EntityData_v1(
    o: AlterClientQuotasRequest.EntityData, b: bytearray
) -> None:
    """Versions 1."""
    write_compact_string(b, o.entity_type)
    write_compact_nullable_string(b, o.entity_name)
    b.append(0)  # no tagged fields


def _encode_AlterClientQuotasRequest_OpData_v1(
    o: AlterClientQuotasRequest.OpData, b: bytearray
) -> None:
    """Versions 1."""
    write_compact_string(b, o.key)
    b += _S_do.pack(o.value, o.remove)
    b.append(0)  # no tagged fields


def _encode_AlterClientQuotasRequest_EntryData_v1(
    o: AlterClientQuotasRequest.EntryData, b: bytearray
) -> None:
    """Versions 1."""
    x_entity = o.entity
    write_compact_array_length(b, len(x_entity))
    for e_entity in x_entity:
        _encode_AlterClientQuotasRequest_EntityData_v1(e_entity, b)
    x_ops = o.ops
    write_compact_array_length(b, len(x_ops))
    for e_ops in x_ops:
        _encode_AlterClientQuotasRequest_OpData_v1(e_ops, b)
    b.append(0)  # no tagged fields


def _encode_AlterClientQuotasRequest_v1(o: AlterClientQuotasRequest, b: bytearray) -> None:
    """Versions 1."""
    x_entries = o.entries
    write_compact_array_length(b, len(x_entries))
    for e_entries in x_entries:
        _encode_AlterClientQuotasRequest_EntryData_v1(e_entries, b)
    b += _S_o.pack(o.validate_only)
    b.append(0)  # no tagged fields


def _decode_AlterClientQuotasRequest_EntityData_v1(
    buf: memoryview, pos: int
) -> tuple[AlterClientQuotasRequest.EntityData, int]:
    """Versions 1."""
    f_entity_type, pos = read_compact_string(buf, pos)
    f_entity_name, pos = read_compact_nullable_string(buf, pos)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AlterClientQuotasRequest.EntityData(f_entity_type, f_entity_name), pos


def _decode_AlterClientQuotasRequest_OpData_v1(
    buf: memoryview, pos: int
) -> tuple[AlterClientQuotasRequest.OpData, int]:
    """Versions 1."""
    f_key, pos = read_compact_string(buf, pos)
    f_value, f_remove = _S_do.unpack_from(buf, pos)
    pos += 9
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AlterClientQuotasRequest.OpData(f_key, f_value, f_remove), pos


def _decode_AlterClientQuotasRequest_EntryData_v1(
    buf: memoryview, pos: int
) -> tuple[AlterClientQuotasRequest.EntryData, int]:
    """Versions 1."""
    n, pos = read_compact_array_length(buf, pos)
    f_entity: list[AlterClientQuotasRequest.EntityData]
    if n < 0:
        raise DecodeError("Entity: null where it is not nullable")
    f_entity = []
    for _ in range(n):
        e_entity, pos = _decode_AlterClientQuotasRequest_EntityData_v1(buf, pos)
        f_entity.append(e_entity)
    n, pos = read_compact_array_length(buf, pos)
    f_ops: list[AlterClientQuotasRequest.OpData]
    if n < 0:
        raise DecodeError("Ops: null where it is not nullable")
    f_ops = []
    for _ in range(n):
        e_ops, pos = _decode_AlterClientQuotasRequest_OpData_v1(buf, pos)
        f_ops.append(e_ops)
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AlterClientQuotasRequest.EntryData(f_entity, f_ops), pos


def _decode_AlterClientQuotasRequest_v1(
    buf: memoryview, pos: int
) -> tuple[AlterClientQuotasRequest, int]:
    """Versions 1."""
    n, pos = read_compact_array_length(buf, pos)
    f_entries: list[AlterClientQuotasRequest.EntryData]
    if n < 0:
        raise DecodeError("Entries: null where it is not nullable")
    f_entries = []
    for _ in range(n):
        e_entries, pos = _decode_AlterClientQuotasRequest_EntryData_v1(buf, pos)
        f_entries.append(e_entries)
    (f_validate_only,) = _S_o.unpack_from(buf, pos)
    pos += 1
    pos = skip_tagged_fields(buf, pos) if buf[pos] else pos + 1
    return AlterClientQuotasRequest(f_entries, f_validate_only), pos


RequestHeader.ENCODERS = {1: _encode_RequestHeader_v1, 2: _encode_RequestHeader_v2}
RequestHeader.DECODERS = {1: _decode_RequestHeader_v1, 2: _decode_RequestHeader_v2}

ResponseHeader.ENCODERS = {0: _encode_ResponseHeader_v0, 1: _encode_ResponseHeader_v1}
ResponseHeader.DECODERS = {0: _decode_ResponseHeader_v0, 1: _decode_ResponseHeader_v1}

ApiVersionsResponse.ENCODERS = {
    0: _encode_ApiVersionsResponse_v0,
    1: _encode_ApiVersionsResponse_v1,
    2: _encode_ApiVersionsResponse_v1,
    3: _encode_ApiVersionsResponse_v3,
    4: _encode_ApiVersionsResponse_v3,
    5: _encode_ApiVersionsResponse_v3,
}
ApiVersionsResponse.DECODERS = {
    0: _decode_ApiVersionsResponse_v0,
    1: _decode_ApiVersionsResponse_v1,
    2: _decode_ApiVersionsResponse_v1,
    3: _decode_ApiVersionsResponse_v3,
    4: _decode_ApiVersionsResponse_v3,
    5: _decode_ApiVersionsResponse_v3,
}

ApiVersionsRequest.ENCODERS = {
    0: _encode_ApiVersionsRequest_v0,
    1: _encode_ApiVersionsRequest_v0,
    2: _encode_ApiVersionsRequest_v0,
    3: _encode_ApiVersionsRequest_v3,
    4: _encode_ApiVersionsRequest_v3,
    5: _encode_ApiVersionsRequest_v5,
}
ApiVersionsRequest.DECODERS = {
    0: _decode_ApiVersionsRequest_v0,
    1: _decode_ApiVersionsRequest_v0,
    2: _decode_ApiVersionsRequest_v0,
    3: _decode_ApiVersionsRequest_v3,
    4: _decode_ApiVersionsRequest_v3,
    5: _decode_ApiVersionsRequest_v5,
}

SaslHandshakeResponse.ENCODERS = {
    0: _encode_SaslHandshakeResponse_v0,
    1: _encode_SaslHandshakeResponse_v0,
}
SaslHandshakeResponse.DECODERS = {
    0: _decode_SaslHandshakeResponse_v0,
    1: _decode_SaslHandshakeResponse_v0,
}

SaslHandshakeRequest.ENCODERS = {
    0: _encode_SaslHandshakeRequest_v0,
    1: _encode_SaslHandshakeRequest_v0,
}
SaslHandshakeRequest.DECODERS = {
    0: _decode_SaslHandshakeRequest_v0,
    1: _decode_SaslHandshakeRequest_v0,
}

SaslAuthenticateResponse.ENCODERS = {2: _encode_SaslAuthenticateResponse_v2}
SaslAuthenticateResponse.DECODERS = {2: _decode_SaslAuthenticateResponse_v2}

SaslAuthenticateRequest.ENCODERS = {2: _encode_SaslAuthenticateRequest_v2}
SaslAuthenticateRequest.DECODERS = {2: _decode_SaslAuthenticateRequest_v2}

MetadataResponse.ENCODERS = {
    9: _encode_MetadataResponse_v9,
    10: _encode_MetadataResponse_v10,
    11: _encode_MetadataResponse_v11,
    12: _encode_MetadataResponse_v12,
    13: _encode_MetadataResponse_v13,
}
MetadataResponse.DECODERS = {
    9: _decode_MetadataResponse_v9,
    10: _decode_MetadataResponse_v10,
    11: _decode_MetadataResponse_v11,
    12: _decode_MetadataResponse_v12,
    13: _decode_MetadataResponse_v13,
}

MetadataRequest.ENCODERS = {
    9: _encode_MetadataRequest_v9,
    10: _encode_MetadataRequest_v10,
    11: _encode_MetadataRequest_v11,
    12: _encode_MetadataRequest_v11,
    13: _encode_MetadataRequest_v11,
}
MetadataRequest.DECODERS = {
    9: _decode_MetadataRequest_v9,
    10: _decode_MetadataRequest_v10,
    11: _decode_MetadataRequest_v11,
    12: _decode_MetadataRequest_v11,
    13: _decode_MetadataRequest_v11,
}

DescribeClusterResponse.ENCODERS = {
    0: _encode_DescribeClusterResponse_v0,
    1: _encode_DescribeClusterResponse_v1,
    2: _encode_DescribeClusterResponse_v2,
}
DescribeClusterResponse.DECODERS = {
    0: _decode_DescribeClusterResponse_v0,
    1: _decode_DescribeClusterResponse_v1,
    2: _decode_DescribeClusterResponse_v2,
}

DescribeClusterRequest.ENCODERS = {
    0: _encode_DescribeClusterRequest_v0,
    1: _encode_DescribeClusterRequest_v1,
    2: _encode_DescribeClusterRequest_v2,
}
DescribeClusterRequest.DECODERS = {
    0: _decode_DescribeClusterRequest_v0,
    1: _decode_DescribeClusterRequest_v1,
    2: _decode_DescribeClusterRequest_v2,
}

FindCoordinatorResponse.ENCODERS = {
    3: _encode_FindCoordinatorResponse_v3,
    4: _encode_FindCoordinatorResponse_v4,
    5: _encode_FindCoordinatorResponse_v4,
    6: _encode_FindCoordinatorResponse_v4,
}
FindCoordinatorResponse.DECODERS = {
    3: _decode_FindCoordinatorResponse_v3,
    4: _decode_FindCoordinatorResponse_v4,
    5: _decode_FindCoordinatorResponse_v4,
    6: _decode_FindCoordinatorResponse_v4,
}

FindCoordinatorRequest.ENCODERS = {
    3: _encode_FindCoordinatorRequest_v3,
    4: _encode_FindCoordinatorRequest_v4,
    5: _encode_FindCoordinatorRequest_v4,
    6: _encode_FindCoordinatorRequest_v4,
}
FindCoordinatorRequest.DECODERS = {
    3: _decode_FindCoordinatorRequest_v3,
    4: _decode_FindCoordinatorRequest_v4,
    5: _decode_FindCoordinatorRequest_v4,
    6: _decode_FindCoordinatorRequest_v4,
}

CreateTopicsResponse.ENCODERS = {
    5: _encode_CreateTopicsResponse_v5,
    6: _encode_CreateTopicsResponse_v5,
    7: _encode_CreateTopicsResponse_v7,
}
CreateTopicsResponse.DECODERS = {
    5: _decode_CreateTopicsResponse_v5,
    6: _decode_CreateTopicsResponse_v5,
    7: _decode_CreateTopicsResponse_v7,
}

CreateTopicsRequest.ENCODERS = {
    5: _encode_CreateTopicsRequest_v5,
    6: _encode_CreateTopicsRequest_v5,
    7: _encode_CreateTopicsRequest_v5,
}
CreateTopicsRequest.DECODERS = {
    5: _decode_CreateTopicsRequest_v5,
    6: _decode_CreateTopicsRequest_v5,
    7: _decode_CreateTopicsRequest_v5,
}

DeleteTopicsResponse.ENCODERS = {
    4: _encode_DeleteTopicsResponse_v4,
    5: _encode_DeleteTopicsResponse_v5,
    6: _encode_DeleteTopicsResponse_v6,
}
DeleteTopicsResponse.DECODERS = {
    4: _decode_DeleteTopicsResponse_v4,
    5: _decode_DeleteTopicsResponse_v5,
    6: _decode_DeleteTopicsResponse_v6,
}

DeleteTopicsRequest.ENCODERS = {
    4: _encode_DeleteTopicsRequest_v4,
    5: _encode_DeleteTopicsRequest_v4,
    6: _encode_DeleteTopicsRequest_v6,
}
DeleteTopicsRequest.DECODERS = {
    4: _decode_DeleteTopicsRequest_v4,
    5: _decode_DeleteTopicsRequest_v4,
    6: _decode_DeleteTopicsRequest_v6,
}

CreatePartitionsResponse.ENCODERS = {
    2: _encode_CreatePartitionsResponse_v2,
    3: _encode_CreatePartitionsResponse_v2,
}
CreatePartitionsResponse.DECODERS = {
    2: _decode_CreatePartitionsResponse_v2,
    3: _decode_CreatePartitionsResponse_v2,
}

CreatePartitionsRequest.ENCODERS = {
    2: _encode_CreatePartitionsRequest_v2,
    3: _encode_CreatePartitionsRequest_v2,
}
CreatePartitionsRequest.DECODERS = {
    2: _decode_CreatePartitionsRequest_v2,
    3: _decode_CreatePartitionsRequest_v2,
}

DescribeConfigsResponse.ENCODERS = {4: _encode_DescribeConfigsResponse_v4}
DescribeConfigsResponse.DECODERS = {4: _decode_DescribeConfigsResponse_v4}

DescribeConfigsRequest.ENCODERS = {4: _encode_DescribeConfigsRequest_v4}
DescribeConfigsRequest.DECODERS = {4: _decode_DescribeConfigsRequest_v4}

IncrementalAlterConfigsResponse.ENCODERS = {1: _encode_IncrementalAlterConfigsResponse_v1}
IncrementalAlterConfigsResponse.DECODERS = {1: _decode_IncrementalAlterConfigsResponse_v1}

IncrementalAlterConfigsRequest.ENCODERS = {1: _encode_IncrementalAlterConfigsRequest_v1}
IncrementalAlterConfigsRequest.DECODERS = {1: _decode_IncrementalAlterConfigsRequest_v1}

DeleteRecordsResponse.ENCODERS = {2: _encode_DeleteRecordsResponse_v2}
DeleteRecordsResponse.DECODERS = {2: _decode_DeleteRecordsResponse_v2}

DeleteRecordsRequest.ENCODERS = {2: _encode_DeleteRecordsRequest_v2}
DeleteRecordsRequest.DECODERS = {2: _decode_DeleteRecordsRequest_v2}

ListOffsetsResponse.ENCODERS = {
    6: _encode_ListOffsetsResponse_v6,
    7: _encode_ListOffsetsResponse_v6,
    8: _encode_ListOffsetsResponse_v6,
    9: _encode_ListOffsetsResponse_v6,
    10: _encode_ListOffsetsResponse_v6,
    11: _encode_ListOffsetsResponse_v6,
}
ListOffsetsResponse.DECODERS = {
    6: _decode_ListOffsetsResponse_v6,
    7: _decode_ListOffsetsResponse_v6,
    8: _decode_ListOffsetsResponse_v6,
    9: _decode_ListOffsetsResponse_v6,
    10: _decode_ListOffsetsResponse_v6,
    11: _decode_ListOffsetsResponse_v6,
}

ListOffsetsRequest.ENCODERS = {
    6: _encode_ListOffsetsRequest_v6,
    7: _encode_ListOffsetsRequest_v6,
    8: _encode_ListOffsetsRequest_v6,
    9: _encode_ListOffsetsRequest_v6,
    10: _encode_ListOffsetsRequest_v10,
    11: _encode_ListOffsetsRequest_v10,
}
ListOffsetsRequest.DECODERS = {
    6: _decode_ListOffsetsRequest_v6,
    7: _decode_ListOffsetsRequest_v6,
    8: _decode_ListOffsetsRequest_v6,
    9: _decode_ListOffsetsRequest_v6,
    10: _decode_ListOffsetsRequest_v10,
    11: _decode_ListOffsetsRequest_v10,
}

ProduceResponse.ENCODERS = {
    9: _encode_ProduceResponse_v9,
    10: _encode_ProduceResponse_v10,
    11: _encode_ProduceResponse_v10,
    12: _encode_ProduceResponse_v10,
    13: _encode_ProduceResponse_v13,
}
ProduceResponse.DECODERS = {
    9: _decode_ProduceResponse_v9,
    10: _decode_ProduceResponse_v10,
    11: _decode_ProduceResponse_v10,
    12: _decode_ProduceResponse_v10,
    13: _decode_ProduceResponse_v13,
}

ProduceRequest.ENCODERS = {
    9: _encode_ProduceRequest_v9,
    10: _encode_ProduceRequest_v9,
    11: _encode_ProduceRequest_v9,
    12: _encode_ProduceRequest_v9,
    13: _encode_ProduceRequest_v13,
}
ProduceRequest.DECODERS = {
    9: _decode_ProduceRequest_v9,
    10: _decode_ProduceRequest_v9,
    11: _decode_ProduceRequest_v9,
    12: _decode_ProduceRequest_v9,
    13: _decode_ProduceRequest_v13,
}

FetchResponse.ENCODERS = {
    12: _encode_FetchResponse_v12,
    13: _encode_FetchResponse_v13,
    14: _encode_FetchResponse_v13,
    15: _encode_FetchResponse_v13,
    16: _encode_FetchResponse_v16,
    17: _encode_FetchResponse_v16,
    18: _encode_FetchResponse_v16,
}
FetchResponse.DECODERS = {
    12: _decode_FetchResponse_v12,
    13: _decode_FetchResponse_v13,
    14: _decode_FetchResponse_v13,
    15: _decode_FetchResponse_v13,
    16: _decode_FetchResponse_v16,
    17: _decode_FetchResponse_v16,
    18: _decode_FetchResponse_v16,
}

FetchRequest.ENCODERS = {
    12: _encode_FetchRequest_v12,
    13: _encode_FetchRequest_v13,
    14: _encode_FetchRequest_v13,
    15: _encode_FetchRequest_v15,
    16: _encode_FetchRequest_v15,
    17: _encode_FetchRequest_v17,
    18: _encode_FetchRequest_v18,
}
FetchRequest.DECODERS = {
    12: _decode_FetchRequest_v12,
    13: _decode_FetchRequest_v13,
    14: _decode_FetchRequest_v13,
    15: _decode_FetchRequest_v15,
    16: _decode_FetchRequest_v15,
    17: _decode_FetchRequest_v17,
    18: _decode_FetchRequest_v18,
}

InitProducerIdResponse.ENCODERS = {
    2: _encode_InitProducerIdResponse_v2,
    3: _encode_InitProducerIdResponse_v2,
    4: _encode_InitProducerIdResponse_v2,
    5: _encode_InitProducerIdResponse_v2,
    6: _encode_InitProducerIdResponse_v6,
}
InitProducerIdResponse.DECODERS = {
    2: _decode_InitProducerIdResponse_v2,
    3: _decode_InitProducerIdResponse_v2,
    4: _decode_InitProducerIdResponse_v2,
    5: _decode_InitProducerIdResponse_v2,
    6: _decode_InitProducerIdResponse_v6,
}

InitProducerIdRequest.ENCODERS = {
    2: _encode_InitProducerIdRequest_v2,
    3: _encode_InitProducerIdRequest_v3,
    4: _encode_InitProducerIdRequest_v3,
    5: _encode_InitProducerIdRequest_v3,
    6: _encode_InitProducerIdRequest_v6,
}
InitProducerIdRequest.DECODERS = {
    2: _decode_InitProducerIdRequest_v2,
    3: _decode_InitProducerIdRequest_v3,
    4: _decode_InitProducerIdRequest_v3,
    5: _decode_InitProducerIdRequest_v3,
    6: _decode_InitProducerIdRequest_v6,
}

AddPartitionsToTxnResponse.ENCODERS = {
    3: _encode_AddPartitionsToTxnResponse_v3,
    4: _encode_AddPartitionsToTxnResponse_v4,
    5: _encode_AddPartitionsToTxnResponse_v4,
}
AddPartitionsToTxnResponse.DECODERS = {
    3: _decode_AddPartitionsToTxnResponse_v3,
    4: _decode_AddPartitionsToTxnResponse_v4,
    5: _decode_AddPartitionsToTxnResponse_v4,
}

AddPartitionsToTxnRequest.ENCODERS = {
    3: _encode_AddPartitionsToTxnRequest_v3,
    4: _encode_AddPartitionsToTxnRequest_v4,
    5: _encode_AddPartitionsToTxnRequest_v4,
}
AddPartitionsToTxnRequest.DECODERS = {
    3: _decode_AddPartitionsToTxnRequest_v3,
    4: _decode_AddPartitionsToTxnRequest_v4,
    5: _decode_AddPartitionsToTxnRequest_v4,
}

AddOffsetsToTxnResponse.ENCODERS = {
    3: _encode_AddOffsetsToTxnResponse_v3,
    4: _encode_AddOffsetsToTxnResponse_v3,
}
AddOffsetsToTxnResponse.DECODERS = {
    3: _decode_AddOffsetsToTxnResponse_v3,
    4: _decode_AddOffsetsToTxnResponse_v3,
}

AddOffsetsToTxnRequest.ENCODERS = {
    3: _encode_AddOffsetsToTxnRequest_v3,
    4: _encode_AddOffsetsToTxnRequest_v3,
}
AddOffsetsToTxnRequest.DECODERS = {
    3: _decode_AddOffsetsToTxnRequest_v3,
    4: _decode_AddOffsetsToTxnRequest_v3,
}

TxnOffsetCommitResponse.ENCODERS = {
    3: _encode_TxnOffsetCommitResponse_v3,
    4: _encode_TxnOffsetCommitResponse_v3,
    5: _encode_TxnOffsetCommitResponse_v3,
    6: _encode_TxnOffsetCommitResponse_v6,
}
TxnOffsetCommitResponse.DECODERS = {
    3: _decode_TxnOffsetCommitResponse_v3,
    4: _decode_TxnOffsetCommitResponse_v3,
    5: _decode_TxnOffsetCommitResponse_v3,
    6: _decode_TxnOffsetCommitResponse_v6,
}

TxnOffsetCommitRequest.ENCODERS = {
    3: _encode_TxnOffsetCommitRequest_v3,
    4: _encode_TxnOffsetCommitRequest_v3,
    5: _encode_TxnOffsetCommitRequest_v3,
    6: _encode_TxnOffsetCommitRequest_v6,
}
TxnOffsetCommitRequest.DECODERS = {
    3: _decode_TxnOffsetCommitRequest_v3,
    4: _decode_TxnOffsetCommitRequest_v3,
    5: _decode_TxnOffsetCommitRequest_v3,
    6: _decode_TxnOffsetCommitRequest_v6,
}

EndTxnResponse.ENCODERS = {
    3: _encode_EndTxnResponse_v3,
    4: _encode_EndTxnResponse_v3,
    5: _encode_EndTxnResponse_v5,
}
EndTxnResponse.DECODERS = {
    3: _decode_EndTxnResponse_v3,
    4: _decode_EndTxnResponse_v3,
    5: _decode_EndTxnResponse_v5,
}

EndTxnRequest.ENCODERS = {
    3: _encode_EndTxnRequest_v3,
    4: _encode_EndTxnRequest_v3,
    5: _encode_EndTxnRequest_v3,
}
EndTxnRequest.DECODERS = {
    3: _decode_EndTxnRequest_v3,
    4: _decode_EndTxnRequest_v3,
    5: _decode_EndTxnRequest_v3,
}

DescribeProducersResponse.ENCODERS = {0: _encode_DescribeProducersResponse_v0}
DescribeProducersResponse.DECODERS = {0: _decode_DescribeProducersResponse_v0}

DescribeProducersRequest.ENCODERS = {0: _encode_DescribeProducersRequest_v0}
DescribeProducersRequest.DECODERS = {0: _decode_DescribeProducersRequest_v0}

DescribeTransactionsResponse.ENCODERS = {0: _encode_DescribeTransactionsResponse_v0}
DescribeTransactionsResponse.DECODERS = {0: _decode_DescribeTransactionsResponse_v0}

DescribeTransactionsRequest.ENCODERS = {0: _encode_DescribeTransactionsRequest_v0}
DescribeTransactionsRequest.DECODERS = {0: _decode_DescribeTransactionsRequest_v0}

ListTransactionsResponse.ENCODERS = {
    0: _encode_ListTransactionsResponse_v0,
    1: _encode_ListTransactionsResponse_v0,
    2: _encode_ListTransactionsResponse_v0,
}
ListTransactionsResponse.DECODERS = {
    0: _decode_ListTransactionsResponse_v0,
    1: _decode_ListTransactionsResponse_v0,
    2: _decode_ListTransactionsResponse_v0,
}

ListTransactionsRequest.ENCODERS = {
    0: _encode_ListTransactionsRequest_v0,
    1: _encode_ListTransactionsRequest_v1,
    2: _encode_ListTransactionsRequest_v2,
}
ListTransactionsRequest.DECODERS = {
    0: _decode_ListTransactionsRequest_v0,
    1: _decode_ListTransactionsRequest_v1,
    2: _decode_ListTransactionsRequest_v2,
}

ConsumerGroupHeartbeatResponse.ENCODERS = {
    0: _encode_ConsumerGroupHeartbeatResponse_v0,
    1: _encode_ConsumerGroupHeartbeatResponse_v0,
}
ConsumerGroupHeartbeatResponse.DECODERS = {
    0: _decode_ConsumerGroupHeartbeatResponse_v0,
    1: _decode_ConsumerGroupHeartbeatResponse_v0,
}

ConsumerGroupHeartbeatRequest.ENCODERS = {
    0: _encode_ConsumerGroupHeartbeatRequest_v0,
    1: _encode_ConsumerGroupHeartbeatRequest_v1,
}
ConsumerGroupHeartbeatRequest.DECODERS = {
    0: _decode_ConsumerGroupHeartbeatRequest_v0,
    1: _decode_ConsumerGroupHeartbeatRequest_v1,
}

ConsumerGroupDescribeResponse.ENCODERS = {
    0: _encode_ConsumerGroupDescribeResponse_v0,
    1: _encode_ConsumerGroupDescribeResponse_v1,
}
ConsumerGroupDescribeResponse.DECODERS = {
    0: _decode_ConsumerGroupDescribeResponse_v0,
    1: _decode_ConsumerGroupDescribeResponse_v1,
}

ConsumerGroupDescribeRequest.ENCODERS = {
    0: _encode_ConsumerGroupDescribeRequest_v0,
    1: _encode_ConsumerGroupDescribeRequest_v0,
}
ConsumerGroupDescribeRequest.DECODERS = {
    0: _decode_ConsumerGroupDescribeRequest_v0,
    1: _decode_ConsumerGroupDescribeRequest_v0,
}

OffsetCommitResponse.ENCODERS = {
    8: _encode_OffsetCommitResponse_v8,
    9: _encode_OffsetCommitResponse_v8,
    10: _encode_OffsetCommitResponse_v10,
}
OffsetCommitResponse.DECODERS = {
    8: _decode_OffsetCommitResponse_v8,
    9: _decode_OffsetCommitResponse_v8,
    10: _decode_OffsetCommitResponse_v10,
}

OffsetCommitRequest.ENCODERS = {
    8: _encode_OffsetCommitRequest_v8,
    9: _encode_OffsetCommitRequest_v8,
    10: _encode_OffsetCommitRequest_v10,
}
OffsetCommitRequest.DECODERS = {
    8: _decode_OffsetCommitRequest_v8,
    9: _decode_OffsetCommitRequest_v8,
    10: _decode_OffsetCommitRequest_v10,
}

OffsetFetchResponse.ENCODERS = {
    6: _encode_OffsetFetchResponse_v6,
    7: _encode_OffsetFetchResponse_v6,
    8: _encode_OffsetFetchResponse_v8,
    9: _encode_OffsetFetchResponse_v8,
    10: _encode_OffsetFetchResponse_v10,
}
OffsetFetchResponse.DECODERS = {
    6: _decode_OffsetFetchResponse_v6,
    7: _decode_OffsetFetchResponse_v6,
    8: _decode_OffsetFetchResponse_v8,
    9: _decode_OffsetFetchResponse_v8,
    10: _decode_OffsetFetchResponse_v10,
}

OffsetFetchRequest.ENCODERS = {
    6: _encode_OffsetFetchRequest_v6,
    7: _encode_OffsetFetchRequest_v7,
    8: _encode_OffsetFetchRequest_v8,
    9: _encode_OffsetFetchRequest_v9,
    10: _encode_OffsetFetchRequest_v10,
}
OffsetFetchRequest.DECODERS = {
    6: _decode_OffsetFetchRequest_v6,
    7: _decode_OffsetFetchRequest_v7,
    8: _decode_OffsetFetchRequest_v8,
    9: _decode_OffsetFetchRequest_v9,
    10: _decode_OffsetFetchRequest_v10,
}

OffsetDeleteResponse.ENCODERS = {0: _encode_OffsetDeleteResponse_v0}
OffsetDeleteResponse.DECODERS = {0: _decode_OffsetDeleteResponse_v0}

OffsetDeleteRequest.ENCODERS = {0: _encode_OffsetDeleteRequest_v0}
OffsetDeleteRequest.DECODERS = {0: _decode_OffsetDeleteRequest_v0}

ListGroupsResponse.ENCODERS = {
    3: _encode_ListGroupsResponse_v3,
    4: _encode_ListGroupsResponse_v4,
    5: _encode_ListGroupsResponse_v5,
}
ListGroupsResponse.DECODERS = {
    3: _decode_ListGroupsResponse_v3,
    4: _decode_ListGroupsResponse_v4,
    5: _decode_ListGroupsResponse_v5,
}

ListGroupsRequest.ENCODERS = {
    3: _encode_ListGroupsRequest_v3,
    4: _encode_ListGroupsRequest_v4,
    5: _encode_ListGroupsRequest_v5,
}
ListGroupsRequest.DECODERS = {
    3: _decode_ListGroupsRequest_v3,
    4: _decode_ListGroupsRequest_v4,
    5: _decode_ListGroupsRequest_v5,
}

DeleteGroupsResponse.ENCODERS = {
    2: _encode_DeleteGroupsResponse_v2,
    3: _encode_DeleteGroupsResponse_v3,
}
DeleteGroupsResponse.DECODERS = {
    2: _decode_DeleteGroupsResponse_v2,
    3: _decode_DeleteGroupsResponse_v3,
}

DeleteGroupsRequest.ENCODERS = {
    2: _encode_DeleteGroupsRequest_v2,
    3: _encode_DeleteGroupsRequest_v2,
}
DeleteGroupsRequest.DECODERS = {
    2: _decode_DeleteGroupsRequest_v2,
    3: _decode_DeleteGroupsRequest_v2,
}

ShareGroupHeartbeatResponse.ENCODERS = {1: _encode_ShareGroupHeartbeatResponse_v1}
ShareGroupHeartbeatResponse.DECODERS = {1: _decode_ShareGroupHeartbeatResponse_v1}

ShareGroupHeartbeatRequest.ENCODERS = {1: _encode_ShareGroupHeartbeatRequest_v1}
ShareGroupHeartbeatRequest.DECODERS = {1: _decode_ShareGroupHeartbeatRequest_v1}

ShareGroupDescribeResponse.ENCODERS = {1: _encode_ShareGroupDescribeResponse_v1}
ShareGroupDescribeResponse.DECODERS = {1: _decode_ShareGroupDescribeResponse_v1}

ShareGroupDescribeRequest.ENCODERS = {1: _encode_ShareGroupDescribeRequest_v1}
ShareGroupDescribeRequest.DECODERS = {1: _decode_ShareGroupDescribeRequest_v1}

ShareFetchResponse.ENCODERS = {1: _encode_ShareFetchResponse_v1, 2: _encode_ShareFetchResponse_v1}
ShareFetchResponse.DECODERS = {1: _decode_ShareFetchResponse_v1, 2: _decode_ShareFetchResponse_v1}

ShareFetchRequest.ENCODERS = {1: _encode_ShareFetchRequest_v1, 2: _encode_ShareFetchRequest_v2}
ShareFetchRequest.DECODERS = {1: _decode_ShareFetchRequest_v1, 2: _decode_ShareFetchRequest_v2}

ShareAcknowledgeResponse.ENCODERS = {
    1: _encode_ShareAcknowledgeResponse_v1,
    2: _encode_ShareAcknowledgeResponse_v2,
}
ShareAcknowledgeResponse.DECODERS = {
    1: _decode_ShareAcknowledgeResponse_v1,
    2: _decode_ShareAcknowledgeResponse_v2,
}

ShareAcknowledgeRequest.ENCODERS = {
    1: _encode_ShareAcknowledgeRequest_v1,
    2: _encode_ShareAcknowledgeRequest_v2,
}
ShareAcknowledgeRequest.DECODERS = {
    1: _decode_ShareAcknowledgeRequest_v1,
    2: _decode_ShareAcknowledgeRequest_v2,
}

DescribeShareGroupOffsetsResponse.ENCODERS = {
    0: _encode_DescribeShareGroupOffsetsResponse_v0,
    1: _encode_DescribeShareGroupOffsetsResponse_v1,
}
DescribeShareGroupOffsetsResponse.DECODERS = {
    0: _decode_DescribeShareGroupOffsetsResponse_v0,
    1: _decode_DescribeShareGroupOffsetsResponse_v1,
}

DescribeShareGroupOffsetsRequest.ENCODERS = {
    0: _encode_DescribeShareGroupOffsetsRequest_v0,
    1: _encode_DescribeShareGroupOffsetsRequest_v0,
}
DescribeShareGroupOffsetsRequest.DECODERS = {
    0: _decode_DescribeShareGroupOffsetsRequest_v0,
    1: _decode_DescribeShareGroupOffsetsRequest_v0,
}

AlterShareGroupOffsetsResponse.ENCODERS = {0: _encode_AlterShareGroupOffsetsResponse_v0}
AlterShareGroupOffsetsResponse.DECODERS = {0: _decode_AlterShareGroupOffsetsResponse_v0}

AlterShareGroupOffsetsRequest.ENCODERS = {0: _encode_AlterShareGroupOffsetsRequest_v0}
AlterShareGroupOffsetsRequest.DECODERS = {0: _decode_AlterShareGroupOffsetsRequest_v0}

DeleteShareGroupOffsetsResponse.ENCODERS = {0: _encode_DeleteShareGroupOffsetsResponse_v0}
DeleteShareGroupOffsetsResponse.DECODERS = {0: _decode_DeleteShareGroupOffsetsResponse_v0}

DeleteShareGroupOffsetsRequest.ENCODERS = {0: _encode_DeleteShareGroupOffsetsRequest_v0}
DeleteShareGroupOffsetsRequest.DECODERS = {0: _decode_DeleteShareGroupOffsetsRequest_v0}

DescribeAclsResponse.ENCODERS = {
    2: _encode_DescribeAclsResponse_v2,
    3: _encode_DescribeAclsResponse_v2,
}
DescribeAclsResponse.DECODERS = {
    2: _decode_DescribeAclsResponse_v2,
    3: _decode_DescribeAclsResponse_v2,
}

DescribeAclsRequest.ENCODERS = {
    2: _encode_DescribeAclsRequest_v2,
    3: _encode_DescribeAclsRequest_v2,
}
DescribeAclsRequest.DECODERS = {
    2: _decode_DescribeAclsRequest_v2,
    3: _decode_DescribeAclsRequest_v2,
}

CreateAclsResponse.ENCODERS = {2: _encode_CreateAclsResponse_v2, 3: _encode_CreateAclsResponse_v2}
CreateAclsResponse.DECODERS = {2: _decode_CreateAclsResponse_v2, 3: _decode_CreateAclsResponse_v2}

CreateAclsRequest.ENCODERS = {2: _encode_CreateAclsRequest_v2, 3: _encode_CreateAclsRequest_v2}
CreateAclsRequest.DECODERS = {2: _decode_CreateAclsRequest_v2, 3: _decode_CreateAclsRequest_v2}

DeleteAclsResponse.ENCODERS = {2: _encode_DeleteAclsResponse_v2, 3: _encode_DeleteAclsResponse_v2}
DeleteAclsResponse.DECODERS = {2: _decode_DeleteAclsResponse_v2, 3: _decode_DeleteAclsResponse_v2}

DeleteAclsRequest.ENCODERS = {2: _encode_DeleteAclsRequest_v2, 3: _encode_DeleteAclsRequest_v2}
DeleteAclsRequest.DECODERS = {2: _decode_DeleteAclsRequest_v2, 3: _decode_DeleteAclsRequest_v2}

DescribeClientQuotasResponse.ENCODERS = {1: _encode_DescribeClientQuotasResponse_v1}
DescribeClientQuotasResponse.DECODERS = {1: _decode_DescribeClientQuotasResponse_v1}

DescribeClientQuotasRequest.ENCODERS = {1: _encode_DescribeClientQuotasRequest_v1}
DescribeClientQuotasRequest.DECODERS = {1: _decode_DescribeClientQuotasRequest_v1}

AlterClientQuotasResponse.ENCODERS = {1: _encode_AlterClientQuotasResponse_v1}
AlterClientQuotasResponse.DECODERS = {1: _decode_AlterClientQuotasResponse_v1}

AlterClientQuotasRequest.ENCODERS = {1: _encode_AlterClientQuotasRequest_v1}
AlterClientQuotasRequest.DECODERS = {1: _decode_AlterClientQuotasRequest_v1}

# every request and response generated here, by API key
REQUESTS: dict[int, type[Request[Any]]] = {
    0: ProduceRequest,
    1: FetchRequest,
    2: ListOffsetsRequest,
    3: MetadataRequest,
    8: OffsetCommitRequest,
    9: OffsetFetchRequest,
    10: FindCoordinatorRequest,
    16: ListGroupsRequest,
    17: SaslHandshakeRequest,
    18: ApiVersionsRequest,
    19: CreateTopicsRequest,
    20: DeleteTopicsRequest,
    21: DeleteRecordsRequest,
    22: InitProducerIdRequest,
    24: AddPartitionsToTxnRequest,
    25: AddOffsetsToTxnRequest,
    26: EndTxnRequest,
    28: TxnOffsetCommitRequest,
    29: DescribeAclsRequest,
    30: CreateAclsRequest,
    31: DeleteAclsRequest,
    32: DescribeConfigsRequest,
    36: SaslAuthenticateRequest,
    37: CreatePartitionsRequest,
    42: DeleteGroupsRequest,
    44: IncrementalAlterConfigsRequest,
    47: OffsetDeleteRequest,
    48: DescribeClientQuotasRequest,
    49: AlterClientQuotasRequest,
    60: DescribeClusterRequest,
    61: DescribeProducersRequest,
    65: DescribeTransactionsRequest,
    66: ListTransactionsRequest,
    68: ConsumerGroupHeartbeatRequest,
    69: ConsumerGroupDescribeRequest,
    76: ShareGroupHeartbeatRequest,
    77: ShareGroupDescribeRequest,
    78: ShareFetchRequest,
    79: ShareAcknowledgeRequest,
    90: DescribeShareGroupOffsetsRequest,
    91: AlterShareGroupOffsetsRequest,
    92: DeleteShareGroupOffsetsRequest,
}
RESPONSES: dict[int, type[Response]] = {
    0: ProduceResponse,
    1: FetchResponse,
    2: ListOffsetsResponse,
    3: MetadataResponse,
    8: OffsetCommitResponse,
    9: OffsetFetchResponse,
    10: FindCoordinatorResponse,
    16: ListGroupsResponse,
    17: SaslHandshakeResponse,
    18: ApiVersionsResponse,
    19: CreateTopicsResponse,
    20: DeleteTopicsResponse,
    21: DeleteRecordsResponse,
    22: InitProducerIdResponse,
    24: AddPartitionsToTxnResponse,
    25: AddOffsetsToTxnResponse,
    26: EndTxnResponse,
    28: TxnOffsetCommitResponse,
    29: DescribeAclsResponse,
    30: CreateAclsResponse,
    31: DeleteAclsResponse,
    32: DescribeConfigsResponse,
    36: SaslAuthenticateResponse,
    37: CreatePartitionsResponse,
    42: DeleteGroupsResponse,
    44: IncrementalAlterConfigsResponse,
    47: OffsetDeleteResponse,
    48: DescribeClientQuotasResponse,
    49: AlterClientQuotasResponse,
    60: DescribeClusterResponse,
    61: DescribeProducersResponse,
    65: DescribeTransactionsResponse,
    66: ListTransactionsResponse,
    68: ConsumerGroupHeartbeatResponse,
    69: ConsumerGroupDescribeResponse,
    76: ShareGroupHeartbeatResponse,
    77: ShareGroupDescribeResponse,
    78: ShareFetchResponse,
    79: ShareAcknowledgeResponse,
    90: DescribeShareGroupOffsetsResponse,
    91: AlterShareGroupOffsetsResponse,
    92: DeleteShareGroupOffsetsResponse,
}

"""Wire schemas for the OpenAPI document. Wire format only, no behaviour.

Request bodies are not parsed through these models: the hand parsers of ``app.api.wire`` are
what the server runs, and these models only describe the same shapes in ``/openapi.json``.
Parsing through pydantic instead would make one declaration serve both, but it costs a third or
more of the throughput of produce, share fetch and acknowledge, and FastAPI's validation answers
422 with its own error shape where the wire promises 400 with a stable code and a message
naming the field. ``documented_body`` attaches a model as a request body without FastAPI
validating it.

So that the two descriptions cannot drift apart unnoticed, every model in ``REQUEST_MODELS``
carries at least one example (``examples``, also shown in the OpenAPI document), and a test
runs each example through the real parser and checks that it parses, and that dropping any
field documented as required makes the parser refuse the body.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from app.api.schemas._base import (
    Encoding,
    ErrorBody,
    ErrorDetail,
    Partition,
    WireHeader,
    WireRecord,
    examples,
)
from app.api.schemas.acls import AclBindingRequest
from app.api.schemas.groups import (
    FetchedOffset,
    GroupDescription,
    GroupHeartbeatRequest,
    GroupHeartbeatResponse,
    GroupList,
    GroupMemberDescription,
    GroupOffsetLag,
    GroupSummary,
    OffsetCommitItem,
    OffsetCommitRequest,
    OffsetCommitResponse,
    OffsetCommitResult,
    OffsetFetchResponse,
    TopicPartitions,
)
from app.api.schemas.quotas import PrincipalQuota, QuotaDefaults, QuotaList, QuotaSet
from app.api.schemas.records import (
    DeleteRecordsPartition,
    DeleteRecordsRequest,
    DeleteRecordsResponse,
    ListOffsetsResponse,
    LogStart,
    PartitionDescription,
    ProducedOffset,
    ProduceRequest,
    ProduceResponse,
    ReadRecord,
    ReadResponse,
    TopicCreate,
    TopicDescription,
    TopicList,
    TopicPatch,
    TopicSummary,
)
from app.api.schemas.security import KeyCreate, KeyCreated, KeyDescription, KeyList, WhoAmI, WsToken
from app.api.schemas.share import (
    AcquiredRange,
    PartitionError,
    ShareAck,
    ShareAcknowledgeRequest,
    ShareAcknowledgeResponse,
    ShareAcquisition,
    ShareAcquisitionList,
    ShareAcquisitionPartition,
    ShareAcquisitionRecords,
    ShareAcquisitionsAcknowledgeRequest,
    ShareAcquisitionsAcknowledgeResponse,
    ShareFetchRequest,
    ShareFetchResponse,
    ShareGroupConfig,
    ShareGroupDescription,
    ShareGroupList,
    ShareGroupSummary,
    ShareHeartbeatRequest,
    ShareHeartbeatResponse,
    ShareMember,
    ShareOffsetsReset,
    ShareOffsetsResetResponse,
    ShareOffsetsTarget,
    SharePartitionState,
    ShareRecord,
    ShareRecordState,
    ShareRecordsView,
    ShareStartOffset,
    ShareTopicStartOffsets,
    TxnAcknowledgementsRequest,
)
from app.api.schemas.txn import (
    InitProducerRequest,
    ProduceBatchRequest,
    ProduceBatchResult,
    ProducerIdentity,
    StatefulProduceRequest,
    StatefulProduceResponse,
    TransactionDescription,
    TransactionList,
    TxnAbortPrefixRequest,
    TxnAbortPrefixResponse,
    TxnCommitAllItem,
    TxnCommitAllRequest,
    TxnCommitAllResponse,
    TxnCommitRequest,
    TxnOffsetResult,
    TxnOffsetsRequest,
    TxnOffsetsResponse,
    TxnPartition,
)

SHARE_REQUEST_MODELS: list[type[BaseModel]] = [
    ShareHeartbeatRequest,
    ShareFetchRequest,
    ShareAcknowledgeRequest,
    ShareAcquisitionsAcknowledgeRequest,
    ShareGroupConfig,
    ShareOffsetsReset,
]


REQUEST_MODELS: list[type[BaseModel]] = [
    ProduceRequest,
    TopicCreate,
    TopicPatch,
    DeleteRecordsRequest,
    InitProducerRequest,
    ProducerIdentity,
    StatefulProduceRequest,
    TxnOffsetsRequest,  # txn
    TxnCommitRequest,
    TxnCommitAllRequest,
    TxnAbortPrefixRequest,
    GroupHeartbeatRequest,
    OffsetCommitRequest,  # consumer groups
    *SHARE_REQUEST_MODELS,  # share groups
    TxnAcknowledgementsRequest,  # transactional share acknowledgements
    AclBindingRequest,  # admin
    KeyCreate,  # API keys
    QuotaSet,  # admin
]

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (400, 404, 409, 413, 429, 503)
}


IDEMPOTENCY_KEY_HEADER: dict[str, Any] = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
    "description": "a retry with the same key within the retention window answers the first "
    "answer and appends nothing",
}


def documented_body(model: type[BaseModel], *, required: bool = True) -> dict[str, Any]:
    """``openapi_extra`` of a route whose body ``model`` describes (``required``: False where
    an empty body is taken as ``{}``)."""
    return {
        "requestBody": {
            "required": required,
            "content": {
                "application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}
            },
        }
    }


__all__ = [
    "ERRORS",
    "IDEMPOTENCY_KEY_HEADER",
    "REQUEST_MODELS",
    "SHARE_REQUEST_MODELS",
    "AclBindingRequest",
    "AcquiredRange",
    "DeleteRecordsPartition",
    "DeleteRecordsRequest",
    "DeleteRecordsResponse",
    "Encoding",
    "ErrorBody",
    "ErrorDetail",
    "FetchedOffset",
    "GroupDescription",
    "GroupHeartbeatRequest",
    "GroupHeartbeatResponse",
    "GroupList",
    "GroupMemberDescription",
    "GroupOffsetLag",
    "GroupSummary",
    "InitProducerRequest",
    "KeyCreate",
    "KeyCreated",
    "KeyDescription",
    "KeyList",
    "ListOffsetsResponse",
    "LogStart",
    "OffsetCommitItem",
    "OffsetCommitRequest",
    "OffsetCommitResponse",
    "OffsetCommitResult",
    "OffsetFetchResponse",
    "Partition",
    "PartitionDescription",
    "PartitionError",
    "PrincipalQuota",
    "ProduceBatchRequest",
    "ProduceBatchResult",
    "ProduceRequest",
    "ProduceResponse",
    "ProducedOffset",
    "ProducerIdentity",
    "QuotaDefaults",
    "QuotaList",
    "QuotaSet",
    "ReadRecord",
    "ReadResponse",
    "ShareAck",
    "ShareAcknowledgeRequest",
    "ShareAcknowledgeResponse",
    "ShareAcquisition",
    "ShareAcquisitionList",
    "ShareAcquisitionPartition",
    "ShareAcquisitionRecords",
    "ShareAcquisitionsAcknowledgeRequest",
    "ShareAcquisitionsAcknowledgeResponse",
    "ShareFetchRequest",
    "ShareFetchResponse",
    "ShareGroupConfig",
    "ShareGroupDescription",
    "ShareGroupList",
    "ShareGroupSummary",
    "ShareHeartbeatRequest",
    "ShareHeartbeatResponse",
    "ShareMember",
    "ShareOffsetsReset",
    "ShareOffsetsResetResponse",
    "ShareOffsetsTarget",
    "SharePartitionState",
    "ShareRecord",
    "ShareRecordState",
    "ShareRecordsView",
    "ShareStartOffset",
    "ShareTopicStartOffsets",
    "StatefulProduceRequest",
    "StatefulProduceResponse",
    "TopicCreate",
    "TopicDescription",
    "TopicList",
    "TopicPartitions",
    "TopicPatch",
    "TopicSummary",
    "TransactionDescription",
    "TransactionList",
    "TxnAbortPrefixRequest",
    "TxnAbortPrefixResponse",
    "TxnAcknowledgementsRequest",
    "TxnCommitAllItem",
    "TxnCommitAllRequest",
    "TxnCommitAllResponse",
    "TxnCommitRequest",
    "TxnOffsetResult",
    "TxnOffsetsRequest",
    "TxnOffsetsResponse",
    "TxnPartition",
    "WhoAmI",
    "WireHeader",
    "WireRecord",
    "WsToken",
    "documented_body",
    "examples",
]

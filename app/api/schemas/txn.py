"""Producer ids, produce with producer state, transactions and their offsets."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.api.schemas._base import (
    Encoding,
    ErrorDetail,
    Model,
    WireRecord,
    given,
    records_encoded,
    when,
    with_examples,
)
from app.api.schemas.groups import OffsetCommitItem
from app.api.schemas.share import TxnGroupAcknowledgements


class InitProducerRequest(Model):
    model_config = with_examples(
        {"transactional_id": "orders-tx", "transaction_timeout_ms": 60_000},
        {},
        # an epoch bump (KIP-360) names both, a new producer neither
        rules=[
            when(given("producer_id"), given("producer_epoch")),
            when(given("producer_epoch"), given("producer_id")),
        ],
    )

    transactional_id: str | None = None  # a name (app.api.openapi)
    transaction_timeout_ms: int = Field(60_000, ge=1)
    producer_id: int | None = Field(None, ge=0)
    producer_epoch: int | None = Field(None, ge=0, le=32767)


class ProducerIdentity(Model):
    model_config = with_examples({"producer_id": 4000, "producer_epoch": 0})

    producer_id: int = Field(ge=0)
    producer_epoch: int = Field(ge=0, le=32767)


class ProduceBatchRequest(Model):
    topic: str
    partition: int = Field(ge=0)
    base_sequence: int = Field(ge=0, le=2**31 - 1)
    records: list[WireRecord] = Field(min_length=1)


class StatefulProduceRequest(Model):
    model_config = with_examples(
        {
            "producer_id": 4000,
            "producer_epoch": 0,
            "transactional_id": "orders-tx",
            "encoding": "utf8",
            "batches": [
                {
                    "topic": "orders",
                    "partition": 0,
                    "base_sequence": 0,
                    "records": [{"key": "customer-7", "value": "order created"}],
                }
            ],
        },
        rules=[*records_encoded("batches")],
    )

    producer_id: int = Field(ge=0)
    producer_epoch: int = Field(ge=0, le=32767)
    transactional_id: str | None = None
    encoding: Encoding | None = "utf8"
    batches: list[ProduceBatchRequest] = Field(min_length=1)


class ProduceBatchResult(Model):
    topic: str
    partition: int
    base_offset: int = Field(description="-1 when the batch failed")
    error: ErrorDetail | None


class StatefulProduceResponse(Model):
    batches: list[ProduceBatchResult]


class TxnGroupOffsets(Model):
    group_id: str
    member_id: str | None = None
    member_epoch: int = Field(-1, ge=-2, le=2**31 - 1)
    group_instance_id: str | None = None
    offsets: list[OffsetCommitItem] = Field(min_length=1)


class TxnOffsetsRequest(TxnGroupOffsets):
    model_config = with_examples(
        {
            "producer_id": 4000,
            "producer_epoch": 0,
            "group_id": "billing",
            "member_id": "m-1",
            "member_epoch": 3,
            "group_instance_id": None,
            "offsets": [{"topic": "orders", "partition": 0, "offset": 42, "metadata": "batch 7"}],
        }
    )

    producer_id: int = Field(ge=0)
    producer_epoch: int = Field(ge=0, le=32767)


class TxnCommitRequest(Model):
    model_config = with_examples(
        {"producer_id": 4000, "producer_epoch": 0},
        {
            "producer_id": 4000,
            "producer_epoch": 0,
            "encoding": "utf8",
            "batches": [
                {
                    "topic": "thumbnails",
                    "partition": 0,
                    "base_sequence": 0,
                    "records": [{"key": "img-1", "value": "resized img-1"}],
                }
            ],
            "share_acknowledgements": [
                {
                    "group_id": "resizers",
                    "member_id": "worker-1",
                    "acknowledgements": [
                        {
                            "topic": "jobs",
                            "partition": 0,
                            "first_offset": 0,
                            "last_offset": 0,
                            "type": "accept",
                        }
                    ],
                }
            ],
        },
        {
            "producer_id": 4000,
            "producer_epoch": 0,
            "batches": [
                {
                    "topic": "totals",
                    "partition": 0,
                    "base_sequence": 0,
                    "records": [{"value": "42"}],
                }
            ],
            "group_offsets": [
                {
                    "group_id": "billing",
                    "member_id": "m-1",
                    "member_epoch": 3,
                    "offsets": [{"topic": "orders", "partition": 0, "offset": 42}],
                }
            ],
        },
        rules=[*records_encoded("batches")],
    )
    model_config["extra"] = "forbid"  # the server refuses unknown fields of a commit

    producer_id: int = Field(ge=0)
    producer_epoch: int = Field(ge=0, le=32767)
    encoding: Encoding | None = "utf8"
    batches: list[ProduceBatchRequest] = Field(
        default_factory=list, description="records added to the transaction, as in /v1/produce"
    )
    group_offsets: list[TxnGroupOffsets] = Field(
        default_factory=list, description="KIP-447 offsets, as in …/offsets, per group"
    )
    share_acknowledgements: list[TxnGroupAcknowledgements] = Field(
        default_factory=list, description="acknowledgements, as in …/acknowledgements, per group"
    )


class TxnCommitAllItem(Model):
    """A transaction named by its transactional id and its producer's id and epoch."""

    transactional_id: str  # a name (app.api.openapi)
    producer_id: int = Field(ge=0)
    producer_epoch: int = Field(ge=0, le=32767)


class TxnCommitAllRequest(Model):
    model_config = with_examples(
        {
            "transactions": [
                {"transactional_id": "etl-q1-0", "producer_id": 7, "producer_epoch": 3},
                {"transactional_id": "etl-q1-1", "producer_id": 8, "producer_epoch": 3},
            ],
            "idempotency_key": "q1:42",
        },
        {
            "transactions": [
                {"transactional_id": "orders-tx", "producer_id": 4000, "producer_epoch": 0}
            ]
        },
    )
    model_config["extra"] = "forbid"  # the server refuses unknown fields of a commit-all

    transactions: list[TxnCommitAllItem] = Field(
        min_length=1,
        description="the transactions to commit, each transactional id once; at most "
        "SLUICE_TXN_COMMIT_ALL_MAX (413 REQUEST_TOO_LARGE beyond)",
    )
    idempotency_key: str | None = Field(
        None,
        min_length=1,
        max_length=255,
        description="a key committed before makes the request a duplicate: it commits nothing "
        "and aborts those of its transactions that are open",
    )


class TxnCommitAllResponse(Model):
    duplicate: bool = Field(description="the idempotency key had been committed before")
    committed_ms: int | None = Field(
        None, description="a duplicate only: when the key was committed"
    )
    transactions: list[TxnCommitAllItem] = Field(
        description="the identity of each transactional id's next transaction, in request order"
    )


class TxnAbortPrefixRequest(Model):
    model_config = with_examples({"prefix": "etl-q1-"})
    model_config["extra"] = "forbid"

    prefix: str = Field(min_length=1, max_length=255)


class TxnAbortPrefixResponse(Model):
    aborted: list[str] = Field(description="the transactional ids whose transaction was aborted")


class TxnOffsetResult(Model):
    topic: str
    partition: int
    error: ErrorDetail | None


class TxnOffsetsResponse(Model):
    offsets: list[TxnOffsetResult]


class TxnPartition(Model):
    topic: str
    partition: int


class TransactionDescription(Model):
    transactional_id: str
    state: Literal[
        "Empty",
        "Ongoing",
        "PrepareCommit",
        "PrepareAbort",
        "CompleteCommit",
        "CompleteAbort",
        "Dead",
    ]
    producer_id: int
    producer_epoch: int
    timeout_ms: int
    start_ms: int = Field(description="-1 when no transaction is open")
    updated_ms: int
    partitions: list[TxnPartition]
    groups: list[str]
    share_groups: list[str] = Field(
        default_factory=list, description="share groups with acknowledgements in the transaction"
    )  # transactional share acknowledgements
    pending_state: str | None


class TransactionList(Model):
    transactions: list[TransactionDescription]


# consumer groups

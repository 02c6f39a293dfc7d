"""Producer ids, produce with producer state, transactions: the answers."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.api.schemas._base import ErrorDetail, Model


class TxnIdentity(Model):
    """A transaction named by its transactional id and its producer's id and epoch."""

    transactional_id: str
    producer_id: int
    producer_epoch: int


class ProduceBatchResult(Model):
    topic: str
    partition: int
    base_offset: int = Field(description="-1 when the batch failed")
    error: ErrorDetail | None


class StatefulProduceResponse(Model):
    batches: list[ProduceBatchResult]


class TxnCommitAllResponse(Model):
    duplicate: bool = Field(description="the idempotency key had been committed before")
    committed_ms: int | None = Field(
        None, description="a duplicate only: when the key was committed"
    )
    transactions: list[TxnIdentity] = Field(
        description="the identity of each transactional id's next transaction, in request order"
    )


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

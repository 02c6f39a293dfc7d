"""Produce on the Kafka backend (docs/kafka-protocol.md#produce): record batches to the leader
of their partition, as the client built them or as built here from JSON records.

A client's batches (``produce_batches``) get the checks the embedded engine makes before it
looks at any state (``app.storage.record.check_client_batches``: framing, CRC-32C, attributes,
timestamps, sizes) and the rules of the producer fields that need no state (a batch without a
producer has -1 in all three fields; a producer's request holds one batch; the transactional
bit exactly when the request names a transactional id). Then each batch goes to the
partition's leader in a Produce request, its bytes unchanged: the producer id, epoch, base
sequence and CRC are the client's, and the broker checks sequences and epochs itself. Kafka
takes one batch for a partition in a Produce request, so a body of several batches without a
producer is sent as that many requests, one after the other.

JSON records (``produce_records``) are placed as the embedded engine places them (the partition
asked for, murmur2 of the key, else one partition for the request, rotating), encoded by the
repository's own encoder (``app.storage.record.encode_batch``), one batch per partition, and
sent the same way, with or without a producer id.

A transactional batch joins its partition to the transaction through the Produce itself: under
the second version of transactions (KIP-890, the cluster's ``transaction.version`` 2) a
Produce of version 12 or later that names the transactional id adds the partition on the
broker's side, and no AddPartitionsToTxn is sent. A cluster without it is refused here.

Kafka's errors are answered through ``app.kafka.errors_map``; a batch the broker already holds
(one of a producer's last five) is answered by Kafka as written, at its first offset, and so
here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import NamedTuple

from app.awaiting import side_by_side
from app.config import Settings
from app.errors import ErrorCode, InvalidRequest, NotFound, SluiceError, TooLarge
from app.kafka.cluster import Cluster, PartitionInfo, TopicInfo
from app.kafka.connection import CLIENT_SOFTWARE_NAME, CLIENT_SOFTWARE_VERSION
from app.kafka.errors_map import DUPLICATE_SEQUENCE_NUMBER, to_sluice
from app.kafka.protocol.errors import NONE, BrokerError
from app.kafka.protocol.messages import ApiVersionsRequest, ProduceRequest, ProduceResponse
from app.partitioner import partition_for_key
from app.producers.appender import BatchResult
from app.producers.produce import Placed, Produced
from app.storage import record
from app.storage.record import Record

ACKS_ALL = -1
ACKS = (-1, 0, 1)  # all in-sync replicas, none (no answer), the leader alone
# the first Produce version under which a transactional batch adds its partition itself
# (KIP-890), and the feature level of the cluster that turns it on
IMPLICIT_ADD_PRODUCE_VERSION = 12
TRANSACTION_VERSION_FEATURE = "transaction.version"
TRANSACTIONS_V2 = 2
DEFAULT_TIMEOUT_MS = 30_000


class Sent(NamedTuple):
    """The broker's answer for one batch: its base offset (-1 with acks=0), and its log append
    time (-1 for a new batch of a topic that keeps the producer's time; for a duplicate, the
    stored batch's max timestamp, whatever the topic keeps)."""

    base_offset: int
    log_append_time_ms: int


class KafkaProduce:
    """Produce to a Kafka cluster (``cluster`` started). ``settings`` gives the limits the
    embedded engine holds a produce to (record size, records per request)."""

    def __init__(
        self, cluster: Cluster, settings: Settings, *, timeout_ms: int = DEFAULT_TIMEOUT_MS
    ) -> None:
        self.cluster = cluster
        self.settings = settings
        self.timeout_ms = timeout_ms
        self._next_partition: dict[str, int] = {}
        # the cluster's transaction.version, asked once (ApiVersions' finalized features)
        self._transaction_version: int | None = None

    # -- batches a client built ---------------------------------------------------------------

    async def produce_batches(
        self,
        topic: str,
        partition: int,
        body: bytes,
        transactional_id: str | None,
        acks: int = ACKS_ALL,
        check_producer: Callable[[int], Awaitable[None]] | None = None,
    ) -> list[BatchResult]:
        """Produce the record batches of ``body`` to one partition as they are
        (docs/api.md#produce-batches); one result per batch, in order. Every batch is checked
        before any is sent; ``check_producer`` admits (or raises for) the producer id of an
        idempotent producer's batch, one without a transactional id."""
        _check_acks(acks)
        checked = record.check_client_batches(
            body,
            max_record_bytes=self.settings.max_record_bytes,
            # the topic's own max.message.bytes is the broker's to hold (MESSAGE_TOO_LARGE)
            max_message_bytes=self.settings.max_record_bytes,
        )
        count = sum(b.header.record_count for b in checked)
        if count > self.settings.max_records_per_request:
            raise TooLarge(
                ErrorCode.REQUEST_TOO_LARGE,
                f"{count} records; the limit is {self.settings.max_records_per_request} a request",
            )
        check_producer_fields([b.header for b in checked], transactional_id)
        first = checked[0].header
        if check_producer is not None and transactional_id is None and first.producer_id >= 0:
            await check_producer(first.producer_id)
        if transactional_id is not None:
            await self._require_implicit_add(topic, partition)
        results: list[BatchResult] = []
        whole = len(checked) == 1
        for b in checked:
            batch = body if whole else body[b.start : b.end]
            sent = await self._send(topic, partition, batch, transactional_id, acks)
            results.append(BatchResult(topic, partition, sent.base_offset, None))
        return results

    # -- JSON records -------------------------------------------------------------------------

    async def produce_records(
        self,
        topic: str,
        records: Placed,
        *,
        producer_id: int = -1,
        producer_epoch: int = -1,
        base_sequences: Mapping[int, int] | None = None,
        transactional_id: str | None = None,
        acks: int = ACKS_ALL,
    ) -> list[Produced]:
        """Place ``records`` (each with the partition asked for, or None), build one batch per
        partition and produce them; the answer is each record's partition, offset and
        timestamp, in the order given. With a producer id, ``base_sequences`` gives the base
        sequence of each partition's batch."""
        _check_acks(acks)
        if not records:
            raise InvalidRequest(ErrorCode.INVALID_REQUEST, "no records to produce")
        if producer_id < 0 and (transactional_id is not None or base_sequences):
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST, "a transactional id or sequences need a producer id"
            )
        info = await self._topic(topic)
        placement = self._place(info, records)
        by_partition: dict[int, list[Record]] = {}
        for p, (_, rec) in zip(placement, records, strict=True):
            by_partition.setdefault(p, []).append(rec)
        attributes = record.TRANSACTIONAL_FLAG if transactional_id is not None else 0
        batches: dict[int, bytes] = {}
        for p, recs in by_partition.items():
            sequence = -1
            if producer_id >= 0:
                if base_sequences is None or p not in base_sequences:
                    raise InvalidRequest(
                        ErrorCode.INVALID_REQUEST,
                        f"no base sequence for partition {p} of producer id {producer_id}",
                    )
                sequence = base_sequences[p]
            batches[p] = record.encode_batch(
                0,
                recs,
                producer_id=producer_id,
                producer_epoch=producer_epoch,
                base_sequence=sequence,
                attributes=attributes,
            )
        if transactional_id is not None:
            await self._require_implicit_add(topic, next(iter(batches)))
        # the partitions' leaders answer side by side; the first refusal is the answer
        sent = await side_by_side(
            [self._send(topic, p, b, transactional_id, acks) for p, b in batches.items()]
        )
        bases = dict(zip(batches, sent, strict=True))
        next_offset = {p: s.base_offset for p, s in bases.items()}
        out: list[Produced] = []
        for p, (_, rec) in zip(placement, records, strict=True):
            offset = next_offset[p]
            if offset >= 0:
                next_offset[p] += 1
            # the record's own time, as the embedded engine answers: the topics the contract
            # creates keep the producer's time. (Kafka's log_append_time_ms cannot tell: a
            # duplicate is answered with the stored batch's max timestamp there.)
            out.append(Produced(p, offset, rec.timestamp))
        return out

    async def _topic(self, name: str) -> TopicInfo:
        try:
            return await self.cluster.topic(name)
        except BrokerError as exc:
            raise to_sluice(exc.code, None, f"topic {name!r}") from None

    def _place(self, info: TopicInfo, records: Placed) -> list[int]:
        """The partition of each record: the one asked for, by key (murmur2), or one partition
        for the request's unkeyed records, the next one at each request."""
        n = len(info.partitions)
        rotating = -1
        out: list[int] = []
        for p, rec in records:
            if p is None:
                if rec.key is not None:
                    p = partition_for_key(rec.key, n)
                else:
                    if rotating < 0:
                        rotating = self._next_partition.get(info.name, 0) % n
                        self._next_partition[info.name] = rotating + 1
                    p = rotating
            elif p not in info.partitions:
                raise NotFound(
                    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                    f"topic {info.name!r} has no partition {p}",
                )
            out.append(p)
        return out

    # -- sending ------------------------------------------------------------------------------

    async def _send(
        self, topic: str, partition: int, batch: bytes, transactional_id: str | None, acks: int
    ) -> Sent:
        """One batch to the partition's leader, in a Produce of its own; a stale leader or topic
        id is learned again and the request sent again (``Cluster.send_to_leader``)."""

        def build(t: TopicInfo, p: PartitionInfo) -> ProduceRequest:
            return ProduceRequest(
                transactional_id=transactional_id,
                acks=acks,
                timeout_ms=self.timeout_ms,
                topic_data=[
                    ProduceRequest.TopicProduceData(
                        name=t.name,
                        topic_id=t.topic_id,
                        partition_data=[
                            ProduceRequest.PartitionProduceData(index=p.partition, records=batch)
                        ],
                    )
                ],
            )

        try:
            return await self._send_once(topic, partition, build, acks)
        except BrokerError as exc:
            # the leader could not be learned (no such topic, no leader after the retries)
            raise to_sluice(exc.code, None, f"{topic}-{partition}") from None

    async def _send_once(
        self,
        topic: str,
        partition: int,
        build: Callable[[TopicInfo, PartitionInfo], ProduceRequest],
        acks: int,
    ) -> Sent:
        if acks == 0:
            # no answer comes: nothing to retry on, and no offset to answer
            info, p = await self.cluster.leader(topic, partition)
            conn = await self.cluster.connection(p.leader_id)
            await conn.send_no_response(build(info, p))
            return Sent(-1, -1)
        answer = await self.cluster.send_to_leader(topic, partition, build, _partition_error)
        r = _partition(answer)
        if r.error_code not in (NONE, DUPLICATE_SEQUENCE_NUMBER):
            message = r.error_message
            if r.record_errors:
                message = "; ".join(
                    f"record {e.batch_index}: {e.batch_index_error_message}"
                    for e in r.record_errors
                ) + (f" ({message})" if message else "")
            raise to_sluice(r.error_code, message, f"{topic}-{partition}", answer.throttle_time_ms)
        return Sent(r.base_offset, r.log_append_time_ms)

    async def _require_implicit_add(self, topic: str, partition: int) -> None:
        """Refuse a transactional produce where the Produce would not add its partition to the
        transaction: the cluster without the second version of transactions, or a leader
        that does not take Produce 12."""
        try:
            _, p = await self.cluster.leader(topic, partition)
        except BrokerError as exc:
            raise to_sluice(exc.code, None, f"{topic}-{partition}") from None
        conn = await self.cluster.connection(p.leader_id)
        if self._transaction_version is None:
            answer = await conn.send(
                ApiVersionsRequest(
                    client_software_name=CLIENT_SOFTWARE_NAME,
                    client_software_version=CLIENT_SOFTWARE_VERSION,
                )
            )
            self._transaction_version = next(
                (
                    f.max_version_level
                    for f in answer.finalized_features
                    if f.name == TRANSACTION_VERSION_FEATURE
                ),
                0,
            )
        if (
            self._transaction_version < TRANSACTIONS_V2
            or conn.version(ProduceRequest) < IMPLICIT_ADD_PRODUCE_VERSION
        ):
            # a condition of the cluster, not of the request: the contract has no code for it
            raise SluiceError(
                ErrorCode.INTERNAL,
                f"{topic}-{partition}: a transactional produce needs the cluster's "
                f"{TRANSACTION_VERSION_FEATURE} {TRANSACTIONS_V2} (it has "
                f"{self._transaction_version}) and Produce {IMPLICIT_ADD_PRODUCE_VERSION} (the "
                f"leader takes {conn.version(ProduceRequest)})",
            )


def check_producer_fields(
    headers: Sequence[record.BatchHeader], transactional_id: str | None
) -> None:
    """The rules of a batch's producer fields that need no producer state, as the embedded
    engine holds a client's batches to them (docs/api.md#produce-batches): without a producer
    id, epoch and base sequence are -1 and the batch is not transactional, and the request
    names no transactional id; a producer's request holds one batch, transactional exactly
    when the request names a transactional id. Whether the producer id was issued to the
    caller, and its epochs and sequences, are checked by whoever keeps that state."""
    first = headers[0]
    if first.producer_id < 0:
        for i, h in enumerate(headers):
            if h.producer_id >= 0 or h.producer_epoch != -1 or h.base_sequence != -1:
                raise _invalid(i, "without a producer id, epoch and base sequence are -1")
            if h.is_transactional:
                raise _invalid(i, "a transactional batch needs a producer id")
        if transactional_id is not None:
            raise _invalid(0, "a transactional_id takes a transactional producer's batch")
        return
    if len(headers) != 1:
        raise _invalid(1, "a producer's request holds one batch for a partition, as Kafka's")
    if transactional_id is None and first.is_transactional:
        raise _invalid(0, "a transactional batch needs the request's transactional_id")
    if transactional_id is not None and not first.is_transactional:
        raise _invalid(0, "a request with a transactional_id takes transactional batches")


def _check_acks(acks: int) -> None:
    if acks not in ACKS:
        raise InvalidRequest(ErrorCode.INVALID_REQUEST, f"acks {acks}: -1 (all), 1 or 0")


def _invalid(index: int, message: str) -> InvalidRequest:
    return InvalidRequest(ErrorCode.INVALID_RECORD, f"batch {index}: {message}")


def _partition(answer: ProduceResponse) -> ProduceResponse.PartitionProduceResponse:
    return answer.responses[0].partition_responses[0]


def _partition_error(answer: ProduceResponse) -> int:
    return _partition(answer).error_code

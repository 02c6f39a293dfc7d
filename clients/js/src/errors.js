// The errors of the Sluice client: one class per error code of the server, generated from its
// error table (clients/js/gen_errors.py; do not edit by hand).
//
// Every class derives from SluiceError through the class of its HTTP status (BadRequestError,
// ConflictError, ...) and carries `code`, `status`, `retriable` and `kafkaCode`;
// errorFrom(status, body) builds the one an answer names.

/** An error answer of the server; `code` is "" when the client could not read one. */
export class SluiceError extends Error {
  static code = "";
  static status = 0;
  static retriable = false;
  static kafkaCode = null;

  constructor(message = "", { status, code, retriable, throttleTimeMs } = {}) {
    super(message);
    this.name = this.constructor.name;
    this.code = code ?? this.constructor.code;
    this.status = status ?? this.constructor.status;
    this.retriable = retriable ?? this.constructor.retriable;
    this.kafkaCode = this.constructor.kafkaCode;
    this.throttleTimeMs = throttleTimeMs ?? null;
  }
}

/** An error answer whose code this client does not know (a newer server). */
export class UnknownServerError extends SluiceError {}

/** No answer came (the network, a timeout): code NO_ANSWER; `sent`: it may have arrived. */
export class ConnectionError extends SluiceError {
  constructor(message, { sent }) {
    super(message, { code: "NO_ANSWER", status: 0, retriable: true });
    this.sent = sent;
  }
}

export class BadRequestError extends SluiceError {
  static status = 400;
}

export class AuthenticationError extends SluiceError {
  static status = 401;
}

export class AuthorizationError extends SluiceError {
  static status = 403;
}

export class NotFoundError extends SluiceError {
  static status = 404;
  /** no such resource */
  static code = "NOT_FOUND";
  static retriable = false;
  static kafkaCode = null;
}

export class MethodNotAllowedError extends SluiceError {
  static status = 405;
  /** method not allowed on this resource */
  static code = "METHOD_NOT_ALLOWED";
  static retriable = false;
  static kafkaCode = null;
}

export class RequestTimeoutError extends SluiceError {
  static status = 408;
  /** the request's headers or body did not arrive in time; the connection closes */
  static code = "REQUEST_TIMEOUT";
  static retriable = true;
  static kafkaCode = null;
}

export class ConflictError extends SluiceError {
  static status = 409;
}

export class TooLargeError extends SluiceError {
  static status = 413;
}

export class UnsupportedMediaTypeError extends SluiceError {
  static status = 415;
  /** the body's Content-Type is not taken here */
  static code = "UNSUPPORTED_MEDIA_TYPE";
  static retriable = false;
  static kafkaCode = null;
}

export class ThrottledError extends SluiceError {
  static status = 429;
}

export class HeadersTooLargeError extends SluiceError {
  static status = 431;
}

export class InternalServerError extends SluiceError {
  static status = 500;
}

export class UnavailableError extends SluiceError {
  static status = 503;
}

export class StorageError extends SluiceError {
  static status = 507;
}

export class InvalidRequestError extends BadRequestError {
  /** the request is malformed */
  static code = "INVALID_REQUEST";
  static retriable = false;
  static kafkaCode = 42;
}

export class InvalidConfigError extends BadRequestError {
  /** the configuration is invalid */
  static code = "INVALID_CONFIG";
  static retriable = false;
  static kafkaCode = 40;
}

export class InvalidTopicError extends BadRequestError {
  /** the topic name is invalid */
  static code = "INVALID_TOPIC";
  static retriable = false;
  static kafkaCode = 17;
}

export class InvalidPartitionsError extends BadRequestError {
  /** the number of partitions is invalid */
  static code = "INVALID_PARTITIONS";
  static retriable = false;
  static kafkaCode = 37;
}

export class InvalidTimestampError extends BadRequestError {
  /** the timestamp is invalid */
  static code = "INVALID_TIMESTAMP";
  static retriable = false;
  static kafkaCode = 32;
}

export class CorruptMessageError extends BadRequestError {
  /** a record batch is corrupt: its CRC, length or record framing */
  static code = "CORRUPT_MESSAGE";
  static retriable = false;
  static kafkaCode = 2;
}

export class InvalidRecordError extends BadRequestError {
  /** a record batch breaks a rule: offsets, timestamps, attributes, producer */
  static code = "INVALID_RECORD";
  static retriable = false;
  static kafkaCode = 87;
}

export class UnsupportedCompressionTypeError extends BadRequestError {
  /** the record batch's compression is not supported */
  static code = "UNSUPPORTED_COMPRESSION_TYPE";
  static retriable = false;
  static kafkaCode = 76;
}

export class UnknownProducerIdError extends BadRequestError {
  /** the server never issued this producer id */
  static code = "UNKNOWN_PRODUCER_ID";
  static retriable = false;
  static kafkaCode = null;
}

export class InvalidTransactionTimeoutError extends BadRequestError {
  /** the transaction timeout is outside the server's bounds */
  static code = "INVALID_TRANSACTION_TIMEOUT";
  static retriable = false;
  static kafkaCode = 50;
}

export class UnsupportedOnKafkaBackendError extends BadRequestError {
  /** the Kafka backend does not have this; nothing of the request was applied */
  static code = "UNSUPPORTED_ON_KAFKA_BACKEND";
  static retriable = false;
  static kafkaCode = null;
}

export class UnauthenticatedError extends AuthenticationError {
  /** missing or invalid credentials */
  static code = "UNAUTHENTICATED";
  static retriable = false;
  static kafkaCode = 58;
}

export class TopicAuthorizationFailedError extends AuthorizationError {
  /** not authorized to access the topic */
  static code = "TOPIC_AUTHORIZATION_FAILED";
  static retriable = false;
  static kafkaCode = 29;
}

export class GroupAuthorizationFailedError extends AuthorizationError {
  /** not authorized to access the group */
  static code = "GROUP_AUTHORIZATION_FAILED";
  static retriable = false;
  static kafkaCode = 30;
}

export class ClusterAuthorizationFailedError extends AuthorizationError {
  /** not authorized on the cluster */
  static code = "CLUSTER_AUTHORIZATION_FAILED";
  static retriable = false;
  static kafkaCode = 31;
}

export class TransactionalIdAuthorizationFailedError extends AuthorizationError {
  /** not authorized to use the transactional id */
  static code = "TRANSACTIONAL_ID_AUTHORIZATION_FAILED";
  static retriable = false;
  static kafkaCode = 53;
}

export class OriginNotAllowedError extends AuthorizationError {
  /** a page of another site may not change anything on this server */
  static code = "ORIGIN_NOT_ALLOWED";
  static retriable = false;
  static kafkaCode = null;
}

export class HostNotAllowedError extends AuthorizationError {
  /** the server does not answer to this host name */
  static code = "HOST_NOT_ALLOWED";
  static retriable = false;
  static kafkaCode = null;
}

export class UnknownTopicOrPartitionError extends NotFoundError {
  /** the topic or partition does not exist */
  static code = "UNKNOWN_TOPIC_OR_PARTITION";
  static retriable = false;
  static kafkaCode = 3;
}

export class UnknownMemberIdError extends NotFoundError {
  /** the member is not in the group */
  static code = "UNKNOWN_MEMBER_ID";
  static retriable = false;
  static kafkaCode = 25;
}

export class GroupIdNotFoundError extends NotFoundError {
  /** the group does not exist */
  static code = "GROUP_ID_NOT_FOUND";
  static retriable = false;
  static kafkaCode = 69;
}

export class TopicAlreadyExistsError extends ConflictError {
  /** the topic already exists */
  static code = "TOPIC_ALREADY_EXISTS";
  static retriable = false;
  static kafkaCode = 36;
}

export class OffsetOutOfRangeError extends ConflictError {
  /** the offset is outside the log */
  static code = "OFFSET_OUT_OF_RANGE";
  static retriable = false;
  static kafkaCode = 1;
}

export class IdempotencyKeyReusedError extends ConflictError {
  /** the idempotency key was used with a different request */
  static code = "IDEMPOTENCY_KEY_REUSED";
  static retriable = false;
  static kafkaCode = null;
}

export class TopicDeletionInProgressError extends ConflictError {
  /** the topic is being deleted */
  static code = "TOPIC_DELETION_IN_PROGRESS";
  static retriable = true;
  static kafkaCode = null;
}

export class OutOfOrderSequenceNumberError extends ConflictError {
  /** the batch's sequence is out of order */
  static code = "OUT_OF_ORDER_SEQUENCE_NUMBER";
  static retriable = false;
  static kafkaCode = 45;
}

export class InvalidProducerEpochError extends ConflictError {
  /** the producer epoch is stale: abort the transaction and re-initialise */
  static code = "INVALID_PRODUCER_EPOCH";
  static retriable = false;
  static kafkaCode = 47;
}

export class InvalidTxnStateError extends ConflictError {
  /** the transaction is in the wrong state */
  static code = "INVALID_TXN_STATE";
  static retriable = false;
  static kafkaCode = 48;
}

export class InvalidProducerIdMappingError extends ConflictError {
  /** the producer id does not belong to this transactional id */
  static code = "INVALID_PRODUCER_ID_MAPPING";
  static retriable = false;
  static kafkaCode = 49;
}

export class ConcurrentTransactionsError extends ConflictError {
  /** another change of this transaction is in progress; retry */
  static code = "CONCURRENT_TRANSACTIONS";
  static retriable = true;
  static kafkaCode = 51;
}

export class ProducerFencedError extends ConflictError {
  /** a newer producer instance owns this transactional id */
  static code = "PRODUCER_FENCED";
  static retriable = false;
  static kafkaCode = 90;
}

export class TransactionTimedOutError extends ConflictError {
  /** the server aborted the transaction after its timeout; re-initialise with the current producer id and epoch and start over */
  static code = "TRANSACTION_TIMED_OUT";
  static retriable = true;
  static kafkaCode = null;
}

export class InvalidRecordStateError extends ConflictError {
  /** the records are not acquired by this member (or the lock expired) */
  static code = "INVALID_RECORD_STATE";
  static retriable = false;
  static kafkaCode = 121;
}

export class IllegalGenerationError extends ConflictError {
  /** the member epoch (generation) is not current */
  static code = "ILLEGAL_GENERATION";
  static retriable = false;
  static kafkaCode = 22;
}

export class StaleMemberEpochError extends ConflictError {
  /** the member epoch is stale */
  static code = "STALE_MEMBER_EPOCH";
  static retriable = false;
  static kafkaCode = 113;
}

export class FencedMemberEpochError extends ConflictError {
  /** the member epoch is fenced; rejoin with 0 */
  static code = "FENCED_MEMBER_EPOCH";
  static retriable = false;
  static kafkaCode = 110;
}

export class FencedInstanceIdError extends ConflictError {
  /** the static instance id belongs to another member */
  static code = "FENCED_INSTANCE_ID";
  static retriable = false;
  static kafkaCode = 82;
}

export class UnreleasedInstanceIdError extends ConflictError {
  /** the static instance id is held by a live member */
  static code = "UNRELEASED_INSTANCE_ID";
  static retriable = false;
  static kafkaCode = 111;
}

export class NonEmptyGroupError extends ConflictError {
  /** the group has members */
  static code = "NON_EMPTY_GROUP";
  static retriable = false;
  static kafkaCode = 68;
}

export class PendingTransactionError extends ConflictError {
  /** offsets of an undecided transaction are pending */
  static code = "PENDING_TRANSACTION";
  static retriable = true;
  static kafkaCode = 88;
}

export class RequestTooLargeError extends TooLargeError {
  /** the request is too large */
  static code = "REQUEST_TOO_LARGE";
  static retriable = false;
  static kafkaCode = null;
}

export class RecordTooLargeError extends TooLargeError {
  /** a record is larger than the limit */
  static code = "RECORD_TOO_LARGE";
  static retriable = false;
  static kafkaCode = 10;
}

export class RequestTooComplexError extends TooLargeError {
  /** the body holds more JSON values, or nests deeper, than the limit */
  static code = "REQUEST_TOO_COMPLEX";
  static retriable = false;
  static kafkaCode = null;
}

export class TooManyRequestsError extends ThrottledError {
  /** too many requests */
  static code = "TOO_MANY_REQUESTS";
  static retriable = true;
  static kafkaCode = null;
}

export class ThrottlingQuotaExceededError extends ThrottledError {
  /** the principal's byte-rate quota is exceeded; retry after Retry-After */
  static code = "THROTTLING_QUOTA_EXCEEDED";
  static retriable = true;
  static kafkaCode = 89;
}

export class GroupMaxSizeReachedError extends ThrottledError {
  /** the group has reached its member limit */
  static code = "GROUP_MAX_SIZE_REACHED";
  static retriable = false;
  static kafkaCode = 81;
}

export class RequestHeaderFieldsTooLargeError extends HeadersTooLargeError {
  /** the request's headers are too large or too many */
  static code = "REQUEST_HEADER_FIELDS_TOO_LARGE";
  static retriable = false;
  static kafkaCode = null;
}

export class InternalError extends InternalServerError {
  /** internal error */
  static code = "INTERNAL";
  static retriable = true;
  static kafkaCode = -1;
}

export class NotReadyError extends UnavailableError {
  /** the server is starting or stopping */
  static code = "NOT_READY";
  static retriable = true;
  static kafkaCode = null;
}

export class GroupsUnavailableError extends UnavailableError {
  /** consumer groups are not available on this server */
  static code = "GROUPS_UNAVAILABLE";
  static retriable = false;
  static kafkaCode = null;
}

export class ClusterUnavailableError extends UnavailableError {
  /** the Kafka cluster cannot take the request now (a broker is away); retry */
  static code = "CLUSTER_UNAVAILABLE";
  static retriable = true;
  static kafkaCode = null;
}

export class KafkaStorageErrorError extends StorageError {
  /** the disk refused the write (full or failing); retry later */
  static code = "KAFKA_STORAGE_ERROR";
  static retriable = true;
  static kafkaCode = 56;
}

/** The class of each error code. */
export const ERRORS = Object.freeze({
  INVALID_REQUEST: InvalidRequestError,
  INVALID_CONFIG: InvalidConfigError,
  INVALID_TOPIC: InvalidTopicError,
  INVALID_PARTITIONS: InvalidPartitionsError,
  INVALID_TIMESTAMP: InvalidTimestampError,
  CORRUPT_MESSAGE: CorruptMessageError,
  INVALID_RECORD: InvalidRecordError,
  UNSUPPORTED_COMPRESSION_TYPE: UnsupportedCompressionTypeError,
  UNKNOWN_PRODUCER_ID: UnknownProducerIdError,
  INVALID_TRANSACTION_TIMEOUT: InvalidTransactionTimeoutError,
  UNSUPPORTED_ON_KAFKA_BACKEND: UnsupportedOnKafkaBackendError,
  UNAUTHENTICATED: UnauthenticatedError,
  TOPIC_AUTHORIZATION_FAILED: TopicAuthorizationFailedError,
  GROUP_AUTHORIZATION_FAILED: GroupAuthorizationFailedError,
  CLUSTER_AUTHORIZATION_FAILED: ClusterAuthorizationFailedError,
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: TransactionalIdAuthorizationFailedError,
  ORIGIN_NOT_ALLOWED: OriginNotAllowedError,
  HOST_NOT_ALLOWED: HostNotAllowedError,
  NOT_FOUND: NotFoundError,
  UNKNOWN_TOPIC_OR_PARTITION: UnknownTopicOrPartitionError,
  UNKNOWN_MEMBER_ID: UnknownMemberIdError,
  GROUP_ID_NOT_FOUND: GroupIdNotFoundError,
  METHOD_NOT_ALLOWED: MethodNotAllowedError,
  REQUEST_TIMEOUT: RequestTimeoutError,
  TOPIC_ALREADY_EXISTS: TopicAlreadyExistsError,
  OFFSET_OUT_OF_RANGE: OffsetOutOfRangeError,
  IDEMPOTENCY_KEY_REUSED: IdempotencyKeyReusedError,
  TOPIC_DELETION_IN_PROGRESS: TopicDeletionInProgressError,
  OUT_OF_ORDER_SEQUENCE_NUMBER: OutOfOrderSequenceNumberError,
  INVALID_PRODUCER_EPOCH: InvalidProducerEpochError,
  INVALID_TXN_STATE: InvalidTxnStateError,
  INVALID_PRODUCER_ID_MAPPING: InvalidProducerIdMappingError,
  CONCURRENT_TRANSACTIONS: ConcurrentTransactionsError,
  PRODUCER_FENCED: ProducerFencedError,
  TRANSACTION_TIMED_OUT: TransactionTimedOutError,
  INVALID_RECORD_STATE: InvalidRecordStateError,
  ILLEGAL_GENERATION: IllegalGenerationError,
  STALE_MEMBER_EPOCH: StaleMemberEpochError,
  FENCED_MEMBER_EPOCH: FencedMemberEpochError,
  FENCED_INSTANCE_ID: FencedInstanceIdError,
  UNRELEASED_INSTANCE_ID: UnreleasedInstanceIdError,
  NON_EMPTY_GROUP: NonEmptyGroupError,
  PENDING_TRANSACTION: PendingTransactionError,
  REQUEST_TOO_LARGE: RequestTooLargeError,
  RECORD_TOO_LARGE: RecordTooLargeError,
  REQUEST_TOO_COMPLEX: RequestTooComplexError,
  UNSUPPORTED_MEDIA_TYPE: UnsupportedMediaTypeError,
  TOO_MANY_REQUESTS: TooManyRequestsError,
  THROTTLING_QUOTA_EXCEEDED: ThrottlingQuotaExceededError,
  GROUP_MAX_SIZE_REACHED: GroupMaxSizeReachedError,
  REQUEST_HEADER_FIELDS_TOO_LARGE: RequestHeaderFieldsTooLargeError,
  INTERNAL: InternalError,
  NOT_READY: NotReadyError,
  GROUPS_UNAVAILABLE: GroupsUnavailableError,
  CLUSTER_UNAVAILABLE: ClusterUnavailableError,
  KAFKA_STORAGE_ERROR: KafkaStorageErrorError,
});

/** The error an answer names: `{"error": {"code", "message", "retriable", ...}}`. */
export function errorFrom(status, body) {
  const detail = body && typeof body === "object" ? body.error : null;
  if (!detail || typeof detail !== "object") {
    return new UnknownServerError(`HTTP ${status}`, { status, retriable: status >= 500 });
  }
  const options = {
    status,
    throttleTimeMs: Number.isInteger(detail.throttle_time_ms) ? detail.throttle_time_ms : null,
  };
  const cls = ERRORS[detail.code];
  if (cls === undefined) {
    return new UnknownServerError(String(detail.message ?? ""), {
      ...options,
      code: String(detail.code ?? ""),
      retriable: Boolean(detail.retriable),
    });
  }
  return new cls(String(detail.message ?? ""), options);
}

/** Throws the first error of an answer's per-item results (items with an `error`). */
export function throwFirst(items) {
  for (const item of items ?? []) {
    const error = item.error;
    if (error !== null && error !== undefined) throw errorFrom(200, { error });
  }
}

// Types of the Sluice client (the JavaScript in this directory).

export * from "./errors.js";

export const DEFAULT_URL: string;

export type Bytes = Uint8Array;
export type Value = string | Bytes | null;
export type Headers = Record<string, Value> | Array<[string, Value]>;
export type AckType = "accept" | "release" | "reject" | "renew";
/** How records travel: Kafka's record batches (the default) or JSON. */
export type Wire = "batches" | "json";

export interface SluiceOptions {
  /** Default: SLUICE_URL (Node), the page's origin (browser), else http://127.0.0.1:8080. */
  url?: string;
  /** Sent as "Authorization: Bearer"; default: SLUICE_API_KEY (Node). A function is asked at every request. */
  apiKey?: string | null | (() => string | null);
  timeoutMs?: number;
  /** How many times a retriable error, or a request that never reached the server, is tried again. */
  retries?: number;
  backoffMs?: number;
  maxBackoffMs?: number;
  fetch?: typeof globalThis.fetch;
  /** A WebSocket class for push consumption (default: the global one, else a built-in one in Node). */
  WebSocket?: unknown;
  /** How producers, reads and share consumers carry records (default "batches"). */
  wire?: Wire;
}

export interface RequestOptions {
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as it is, with `contentType`. */
  data?: Uint8Array;
  contentType?: string;
  query?: Record<string, string | number | boolean | null | undefined>;
  headers?: Record<string, string>;
  /** Sending it twice does no harm: a lost answer is sent again. */
  safe?: boolean;
  /** Retriable codes this call must not retry itself. */
  final?: string[];
}

export interface RecordMetadata {
  topic: string;
  partition: number;
  offset: number;
}

export interface SendOptions {
  key?: Value;
  partition?: number;
  headers?: Headers;
  timestamp?: number;
}

export class Sluice {
  constructor(options?: SluiceOptions);
  readonly url: string;
  readonly wire: Wire;
  apiKey: string | null | (() => string | null);
  readonly admin: Admin;
  producer(options?: ProducerOptions): Producer;
  transactionalProducer(
    transactionalId: string,
    options?: TransactionalProducerOptions,
  ): Promise<TransactionalProducer>;
  shareConsumer(groupId: string, options?: ShareConsumerOptions): ShareConsumer;
  /** One API call: the answer's JSON, or its bytes when the server answers record batches. */
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<T>;
  /** The headers every request carries (Accept, and Authorization with a key). */
  headers(): Record<string, string>;
  /** The WebSocket URL of an API path, and the subprotocols that carry the key. */
  socketAddress(path: string): { url: string; protocols: string[] };
}

export class Record {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
  readonly key: Bytes | null;
  readonly value: Bytes | null;
  readonly headers: Array<[string, Bytes | null]>;
  /** Share groups: how many times the record was delivered. */
  readonly deliveryCount?: number;
  text(): string | null;
  keyText(): string | null;
}

export interface ProducerOptions {
  /** ms to wait for more records before a request goes (default 5). */
  linger?: number;
  /** Records a request carries at most (default 500). */
  maxBatch?: number;
}

export class Producer {
  send(topic: string, value: Value, options?: SendOptions): Promise<RecordMetadata>;
  flush(): Promise<void>;
  close(): Promise<void>;
  readonly producerId: number | null;
}

export interface TransactionalProducerOptions {
  transactionTimeoutMs?: number;
  maxBatch?: number;
}

export interface GroupMetadata {
  groupId: string;
  memberId?: string | null;
  memberEpoch?: number;
  groupInstanceId?: string | null;
}

export interface WireAcknowledgement {
  topic: string;
  partition: number;
  first_offset: number;
  last_offset: number;
  type: AckType;
}

export class TransactionalProducer {
  readonly transactionalId: string;
  readonly producerId: number | null;
  readonly producerEpoch: number | null;
  init(): Promise<void>;
  begin(): void;
  send(topic: string, value: Value, options?: SendOptions): Promise<void>;
  sendOffsets(offsets: Array<{ topic: string; partition: number; offset: number }>, group: GroupMetadata): void;
  sendAcknowledgements(groupId: string, memberId: string, acknowledgements: WireAcknowledgement[]): void;
  commit(): Promise<void>;
  abort(): Promise<void>;
  transaction<T>(work: (producer: TransactionalProducer) => Promise<T> | T): Promise<T>;
}

export interface ShareConsumerOptions {
  maxRecords?: number;
  acknowledgementMode?: "implicit" | "explicit";
  acquireMode?: "batch_optimized" | "record_limit";
  /** Take records over the WebSocket instead of polling over HTTP. */
  push?: boolean;
  /** Push mode: the most records out at once. */
  credits?: number;
  /** Push mode: keep the locks alive while the socket lives. */
  autoRenew?: boolean;
  /** How long each poll of `for await` waits for records (ms). */
  iterationWaitMs?: number;
}

export class ShareConsumer implements AsyncIterable<Record> {
  readonly groupId: string;
  readonly memberId: string | null;
  subscribe(topics: string[]): void;
  poll(timeoutMs?: number): Promise<Record[]>;
  acknowledge(record: Record, type?: AckType): void;
  acknowledgements(records: Record[], type?: AckType): WireAcknowledgement[];
  settled(records: Record[]): void;
  commitSync(): Promise<void>;
  commitAsync(): void;
  close(): Promise<void>;
  [Symbol.asyncIterator](): AsyncIterator<Record>;
}

export class DeadLetter {
  readonly dlqTopic: string;
  readonly record: Record;
  readonly headers: Array<[string, Bytes | null]>;
  readonly source: { topic: string | null; partition: number | null; offset: number | null };
  readonly group: string | null;
  readonly reason: string | null;
  readonly deliveryCount: number | null;
}

export type ResetTarget = "earliest" | "latest" | { timestamp: number } | { offset: number };

export class Admin {
  createTopic(name: string, options?: { partitions?: number; config?: Record<string, number> }): Promise<any>;
  listTopics(): Promise<Array<{ name: string; partitions: number }>>;
  describeTopic(name: string): Promise<any>;
  alterTopic(name: string, options: { partitions?: number; config?: Record<string, number | null> }): Promise<any>;
  deleteTopic(name: string): Promise<void>;
  read(
    topic: string,
    partition: number,
    options?: { offset?: number; maxRecords?: number; maxBytes?: number; isolationLevel?: "read_committed" | "read_uncommitted" },
  ): Promise<Record[]>;
  listGroups(): Promise<any[]>;
  describeGroup(groupId: string): Promise<any>;
  groupOffsets(groupId: string, topic?: string): Promise<any[]>;
  commitGroupOffsets(groupId: string, offsets: Array<{ topic: string; partition: number; offset: number }>): Promise<void>;
  deleteGroup(groupId: string): Promise<void>;
  listShareGroups(): Promise<any[]>;
  describeShareGroup(groupId: string): Promise<any>;
  alterShareGroupConfig(groupId: string, changes: Record<string, unknown>): Promise<any>;
  resetShareGroupOffsets(
    groupId: string,
    targets: Array<{ topic: string; partitions?: number[] | null; to: ResetTarget }>,
    options?: { dryRun?: boolean },
  ): Promise<any>;
  deleteShareGroupOffsets(groupId: string, topic: string): Promise<void>;
  deleteShareGroup(groupId: string): Promise<void>;
  deadLetters(groupId: string, options?: { perPartition?: number }): Promise<DeadLetter[]>;
  redrive(letter: DeadLetter): Promise<any>;
  listTransactions(options?: { state?: string }): Promise<any[]>;
  describeTransaction(transactionalId: string): Promise<any>;
}

export function murmur2(data: Uint8Array): number;
export function partitionForKey(key: Uint8Array, partitions: number): number;

/** The media type of a produce body of record batches. */
export const RECORD_BATCH_MEDIA_TYPE: string;
/** The media type of an answer of record batches (the envelope). */
export const BATCHES_MEDIA_TYPE: string;

/** A record to encode: keys and values as bytes; a timestamp in ms (now when absent). */
export interface BatchRecord {
  timestamp?: number | bigint;
  key: Bytes | null;
  value: Bytes | null;
  headers?: Array<[string, Bytes | null]>;
}

/** A record decoded from a batch; 64-bit values beyond 2^53 come as bigint. */
export interface DecodedRecord {
  offset: number | bigint;
  timestamp: number | bigint;
  key: Bytes | null;
  value: Bytes | null;
  headers: Array<[string, Bytes | null]>;
}

export interface EncodeBatchOptions {
  /** Set by the server when it appends the batch (default 0). */
  baseOffset?: number | bigint;
  /** Set by the server (default -1). */
  partitionLeaderEpoch?: number;
  /** -1 (the default): no producer. */
  producerId?: number | bigint;
  producerEpoch?: number;
  baseSequence?: number;
  transactional?: boolean;
}

/** A batch decoded and checked: its header's fields and its records. */
export interface DecodedBatch {
  baseOffset: number | bigint;
  batchLength: number;
  partitionLeaderEpoch: number;
  magic: number;
  crc: number;
  attributes: number;
  lastOffsetDelta: number;
  baseTimestamp: number | bigint;
  maxTimestamp: number | bigint;
  producerId: number | bigint;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
  transactional: boolean;
  control: boolean;
  records: DecodedRecord[];
  /** Where the next batch starts in the bytes decoded. */
  end: number;
}

/** CRC-32C (Castagnoli) of `bytes[start, end)`, unsigned. */
export function crc32c(bytes: Uint8Array, start?: number, end?: number): number;
/** One RecordBatch v2 (magic 2, uncompressed) of the records. */
export function encodeBatch(records: BatchRecord[], options?: EncodeBatchOptions): Uint8Array;
/** The batch at `pos`, checked; throws CorruptMessageError or UnsupportedCompressionTypeError. */
export function decodeBatch(bytes: Uint8Array, pos?: number, limit?: number): DecodedBatch;
/** Every batch of `bytes[start, end)`, checked. */
export function decodeBatches(bytes: Uint8Array, start?: number, end?: number): DecodedBatch[];
/** An answer of record batches: its JSON head and its batches. */
export function openEnvelope(bytes: Uint8Array): { head: any; batches: DecodedBatch[] };
/** The varint (32) or varlong (64) at `pos`, and its length in bytes. */
export function readVarint(bytes: Uint8Array, bits?: 32 | 64, pos?: number): [number | bigint, number];
/** The bytes of `n` as a zigzag varint (32) or varlong (64). */
export function varintBytes(n: number | bigint, bits?: 32 | 64): Uint8Array;

// The idempotent producer's bookkeeping: records waiting per partition, the next sequence of
// each partition, and the requests that carry them: one record batch per request and partition
// (POST /v1/topics/{t}/partitions/{p}/batches), or, with the JSON wire, one POST /v1/produce
// for all partitions. A batch keeps its base sequence until it is answered, and is encoded
// once, so a retry after a lost answer sends the very same bytes and the server answers its
// original offsets instead of storing it twice.

import { RECORD_BATCH_MEDIA_TYPE, encodeBatch } from "./codec.js";
import { errorFrom, throwFirst } from "./errors.js";
import { keyBytes } from "./records.js";
import { partitionForKey } from "./partitioner.js";

const enc = encodeURIComponent;

// answers after which the producer's sequences may no longer be what the server expects:
// the client starts again with a new producer id (or a new epoch)
const STATE_CODES = new Set([
  "OUT_OF_ORDER_SEQUENCE_NUMBER",
  "UNKNOWN_PRODUCER_ID",
  "INVALID_PRODUCER_EPOCH",
  "PRODUCER_FENCED",
]);

/**
 * Whether, after `error`, the server may hold the batch or disagree about the sequences: no
 * answer came, the server failed, or the answer is about the producer's state. A refusal of
 * the batch itself (too large, an unknown topic, ...) stored nothing and changes nothing.
 */
export function outcomeUnknown(error) {
  return !(error?.status >= 400 && error.status < 500) || STATE_CODES.has(error.code);
}

export class Batches {
  constructor(maxBatch) {
    this.maxBatch = maxBatch;
    this.waiting = new Map(); // "topic\0partition" -> {topic, partition, items: [[record, done]]}
    this.count = 0;
    this.sequences = new Map();
  }

  /** Queue a record; true when a request should go now (`maxBatch` reached). */
  add(topic, partition, record, done) {
    const tp = `${topic}\0${partition}`;
    let entry = this.waiting.get(tp);
    if (!entry) this.waiting.set(tp, (entry = { topic, partition, items: [] }));
    entry.items.push([record, done]);
    this.count += 1;
    return this.count >= this.maxBatch;
  }

  /** The next request's batches: up to `maxBatch` records, each partition once. */
  take() {
    const batches = [];
    let room = this.maxBatch;
    for (const [tp, entry] of this.waiting) {
      if (room <= 0) break;
      const now = entry.items.slice(0, room);
      const rest = entry.items.slice(room);
      if (rest.length) entry.items = rest;
      else this.waiting.delete(tp);
      room -= now.length;
      this.count -= now.length;
      batches.push({
        topic: entry.topic,
        partition: entry.partition,
        baseSequence: this.sequences.get(tp) ?? 0,
        records: now.map(([r]) => r),
        done: now.map(([, d]) => d),
      });
    }
    return batches;
  }

  /** The request; when every record is in base64, so is the request (records leave out theirs). */
  static body(producerId, epoch, batches, transactionalId) {
    const binary = batches.length > 0 && batches.every((b) => b.records.every((r) => r.encoding === "base64"));
    const records = (b) =>
      binary
        ? b.records.map(({ encoding, ...rest }) => rest)
        : b.records;
    const body = {
      producer_id: producerId,
      producer_epoch: epoch,
      batches: batches.map((b) => ({
        topic: b.topic,
        partition: b.partition,
        base_sequence: b.baseSequence,
        records: records(b),
      })),
    };
    if (binary) body.encoding = "base64";
    if (transactionalId !== undefined) body.transactional_id = transactionalId;
    return body;
  }

  /**
   * POST one taken batch (record batches wire) and answer its base offset. The batch is
   * encoded the first time, and a retry sends the same bytes.
   */
  static async send(client, b, [producerId, producerEpoch], { transactionalId, final } = {}) {
    b.bytes ??= encodeBatch(b.records, {
      producerId,
      producerEpoch,
      baseSequence: b.baseSequence,
      transactional: transactionalId !== undefined,
    });
    const answer = await client.request("POST", `/v1/topics/${enc(b.topic)}/partitions/${b.partition}/batches`, {
      data: b.bytes,
      contentType: RECORD_BATCH_MEDIA_TYPE,
      query: { transactional_id: transactionalId },
      safe: true,
      final,
    });
    throwFirst(answer.batches);
    return answer.batches[0].base_offset;
  }

  /**
   * Send `batches` (one request each, at once) and settle: each stored batch moves its
   * partition's sequence on. Answers the errors of those that failed, by batch.
   */
  async sendAll(client, batches, identity, options) {
    const sent = await Promise.allSettled(batches.map((b) => Batches.send(client, b, identity, options)));
    const errors = new Map();
    sent.forEach((result, i) => {
      const b = batches[i];
      if (result.status === "fulfilled") {
        this.advance([b]);
        b.done.forEach((done, j) => done({ topic: b.topic, partition: b.partition, offset: result.value + j }, null));
      } else {
        errors.set(b, result.reason);
        for (const done of b.done) done(null, result.reason);
      }
    });
    return errors;
  }

  /** The batches were stored: their partitions' sequences move on. */
  advance(batches) {
    for (const b of batches) {
      this.sequences.set(`${b.topic}\0${b.partition}`, (b.baseSequence + b.records.length) % 2 ** 31);
    }
  }

  /** Settle each record of a request's batches from the answer (one entry per batch). */
  answered(batches, answer) {
    answer.batches.forEach((result, i) => {
      const b = batches[i];
      if (result.error === null || result.error === undefined) {
        this.advance([b]);
        b.done.forEach((done, j) => done({ topic: b.topic, partition: b.partition, offset: result.base_offset + j }, null));
      } else {
        const failure = errorFrom(200, { error: result.error });
        for (const done of b.done) done(null, failure);
      }
    });
  }

  static failed(batches, error) {
    for (const b of batches) for (const done of b.done) done(null, error);
  }
}

/** Partition counts (asked once per topic) and the sticky partition of keyless records. */
export class Routing {
  constructor(admin) {
    this.admin = admin;
    this.partitions = new Map(); // topic -> Promise<count>
    this.sticky = new Map();
  }

  /** The partition of a record: given, by key (Kafka's murmur2), else sticky per request. */
  async pick(topic, key, partition) {
    if (partition !== undefined && partition !== null) return partition;
    let count = this.partitions.get(topic);
    if (count === undefined) {
      count = this.admin.describeTopic(topic).then((d) => d.partitions.length);
      this.partitions.set(topic, count);
      count.catch(() => this.partitions.delete(topic)); // ask again next time
    }
    const n = await count;
    const raw = keyBytes(key);
    if (raw !== null) return partitionForKey(raw, n);
    if (!this.sticky.has(topic)) this.sticky.set(topic, Math.floor(Math.random() * n));
    return this.sticky.get(topic);
  }

  nextRequest() {
    this.sticky.clear();
  }
}

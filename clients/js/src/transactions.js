// The transactional producer (KIP-98, KIP-447, KIP-588). `init` takes the transactional id
// (fencing any older instance), `begin` opens a transaction on this side, `send` queues
// records, `sendOffsets` consumer-group offsets with the consumer's group metadata,
// `sendAcknowledgements` share-group acknowledgements; `commit` sends what is left and commits
// it all in one request (records, offsets and acknowledgements become visible together or not
// at all), `abort` drops it. Records beyond `maxBatch` go out before the commit, inside the
// transaction. With record batches (the default wire) the records go as transactional batches,
// one request per partition, before the commit's request; with the JSON wire the last ones
// ride in the commit's request.
//
// Errors, as Kafka's producer has them: TransactionTimedOutError when the server aborted the
// transaction after its timeout; the producer has already taken a new epoch, so the caller's
// loop simply starts the transaction again. ProducerFencedError when a newer instance took the
// transactional id: fatal, this instance must stop. A write refused for an epoch that is no
// longer current (INVALID_PRODUCER_EPOCH, as Kafka's produce answers both cases) is asked of
// the transaction endpoint, which tells the two apart, so that it throws one of these.

import { Batches, Routing } from "./batches.js";
import {
  InvalidProducerEpochError,
  InvalidTxnStateError,
  ProducerFencedError,
  TransactionTimedOutError,
  throwFirst,
} from "./errors.js";
import { batchRecord, wireRecord } from "./records.js";

const TIMED_OUT = ["TRANSACTION_TIMED_OUT"];
const enc = encodeURIComponent;
const ignore = () => {};

export class TransactionalProducer {
  constructor(client, transactionalId, { transactionTimeoutMs = 60_000, maxBatch = 500 } = {}) {
    this.client = client;
    this.transactionalId = transactionalId;
    this.transactionTimeoutMs = transactionTimeoutMs;
    this.maxBatch = maxBatch;
    this.identity = null;
    this.open = false;
    this.routing = new Routing(client.admin);
    this.json = client.wire === "json";
    this.#reset();
  }

  #reset() {
    this.batches = new Batches(this.maxBatch);
    this.offsets = new Map(); // group metadata (JSON) -> Map("topic\0partition" -> offset)
    this.acks = new Map(); // "group\0member" -> acknowledgements
    this.routing.nextRequest();
  }

  get producerId() {
    return this.identity?.[0] ?? null;
  }

  get producerEpoch() {
    return this.identity?.[1] ?? null;
  }

  async init() {
    const body = {
      transactional_id: this.transactionalId,
      transaction_timeout_ms: this.transactionTimeoutMs,
    };
    if (this.identity !== null) [body.producer_id, body.producer_epoch] = this.identity;
    const got = await this.client.request("POST", "/v1/producers", { body, final: TIMED_OUT });
    this.#took(got);
  }

  #took(answer) {
    this.identity = [answer.producer_id, answer.producer_epoch];
    this.batches.sequences.clear(); // a new epoch counts from 0
  }

  begin() {
    if (this.identity === null) throw new InvalidTxnStateError("call init() first");
    if (this.open) throw new InvalidTxnStateError("a transaction is already open");
    this.open = true;
  }

  #mustBeOpen() {
    if (!this.open) throw new InvalidTxnStateError("no transaction is open: call begin() first");
  }

  /** Queue a record in the transaction (sent with the commit, or before once `maxBatch` wait). */
  async send(topic, value, { key, partition, headers, timestamp } = {}) {
    this.#mustBeOpen();
    const record = this.json ? wireRecord(value, { key, headers, timestamp }) : batchRecord(value, { key, headers, timestamp });
    const p = await this.routing.pick(topic, key, partition);
    if (this.batches.add(topic, p, record, ignore)) await this.#guarded(() => this.#produce());
  }

  async #produce() {
    const taken = this.batches.take();
    if (!this.json) return this.#sendBatches(taken);
    const body = Batches.body(...this.identity, taken, this.transactionalId);
    const answer = await this.client.request("POST", "/v1/produce", { body, safe: true, final: TIMED_OUT });
    throwFirst(answer.batches); // a refused batch fails the transaction
    this.batches.advance(taken);
  }

  /**
   * Transactional batches, a request per partition, all at once; a refused one fails the
   * transaction. A partition's first batch joins it to the transaction (the server takes joins
   * of one transaction in turn, each request waiting for the one before).
   */
  async #sendBatches(taken) {
    const options = { transactionalId: this.transactionalId, final: TIMED_OUT };
    const errors = await this.batches.sendAll(this.client, taken, this.identity, options);
    const [first] = errors.values();
    if (first !== undefined) throw first;
  }

  /**
   * Consumer-group offsets committed with the transaction: `offsets` are {topic, partition,
   * offset} (the next offset to read); `group` the consumer's metadata {groupId, memberId,
   * memberEpoch, groupInstanceId} (KIP-447: a zombie's offsets are refused).
   */
  sendOffsets(offsets, group) {
    this.#mustBeOpen();
    const meta = JSON.stringify([
      group.groupId,
      group.memberId ?? null,
      group.memberEpoch ?? -1,
      group.groupInstanceId ?? null,
    ]);
    if (!this.offsets.has(meta)) this.offsets.set(meta, new Map());
    const mine = this.offsets.get(meta);
    for (const o of offsets) mine.set(`${o.topic}\0${o.partition}`, o);
  }

  /** Share-group acknowledgements (the wire's ranges) applied when the transaction commits. */
  sendAcknowledgements(groupId, memberId, acknowledgements) {
    this.#mustBeOpen();
    const k = `${groupId}\0${memberId}`;
    if (!this.acks.has(k)) this.acks.set(k, []);
    this.acks.get(k).push(...acknowledgements);
  }

  async commit() {
    this.#mustBeOpen();
    await this.#guarded(async () => {
      const taken = this.batches.take();
      if (!this.json && taken.length) await this.#sendBatches(taken);
      const body = Batches.body(...this.identity, this.json ? taken : []);
      if (!this.json || !taken.length) delete body.batches;
      if (this.offsets.size) {
        body.group_offsets = [...this.offsets].map(([meta, offs]) => {
          const [groupId, memberId, memberEpoch, groupInstanceId] = JSON.parse(meta);
          return {
            group_id: groupId,
            member_id: memberId,
            member_epoch: memberEpoch,
            group_instance_id: groupInstanceId,
            offsets: [...offs.values()].map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset })),
          };
        });
      }
      if (this.acks.size) {
        body.share_acknowledgements = [...this.acks].map(([k, acknowledgements]) => {
          const [groupId, memberId] = k.split("\0");
          return { group_id: groupId, member_id: memberId, acknowledgements };
        });
      }
      const path = `/v1/transactions/${enc(this.transactionalId)}/commit`;
      const answer = await this.client.request("POST", path, { body, safe: true, final: TIMED_OUT });
      throwFirst(answer.batches);
      this.#ended(answer);
    });
  }

  async abort() {
    this.#mustBeOpen();
    await this.#guarded(async () => {
      const path = `/v1/transactions/${enc(this.transactionalId)}/abort`;
      const [pid, epoch] = this.identity;
      const body = { producer_id: pid, producer_epoch: epoch };
      this.#ended(await this.client.request("POST", path, { body, safe: true, final: TIMED_OUT }));
    });
  }

  #ended(answer) {
    this.open = false;
    this.#reset();
    if (answer) this.#took(answer);
  }

  async #guarded(step) {
    try {
      await step();
    } catch (error) {
      const failure = error instanceof InvalidProducerEpochError ? await this.#whyStale(error) : error;
      if (failure instanceof TransactionTimedOutError) {
        // KIP-588: the server aborted it; take a new epoch now, the caller starts over
        this.#ended(null);
        await this.init();
      }
      throw failure;
    }
  }

  /**
   * A write was refused for a stale epoch: the server aborted the transaction after its timeout,
   * or a newer instance took the transactional id. An abort with this epoch answers which
   * (TRANSACTION_TIMED_OUT or PRODUCER_FENCED) and can end nothing that is not this one's.
   */
  async #whyStale(error) {
    const path = `/v1/transactions/${enc(this.transactionalId)}/abort`;
    const [pid, epoch] = this.identity;
    try {
      const answer = await this.client.request("POST", path, {
        body: { producer_id: pid, producer_epoch: epoch },
        safe: true,
        final: TIMED_OUT,
      });
      this.#ended(answer); // the epoch was current after all: the transaction is aborted
    } catch (why) {
      if (why instanceof TransactionTimedOutError || why instanceof ProducerFencedError) return why;
    }
    return error;
  }

  /**
   * begin, run `work(this)`, commit; abort (and throw again) when it throws.
   * @returns the value `work` returned
   */
  async transaction(work) {
    this.begin();
    let result;
    try {
      result = await work(this);
    } catch (error) {
      if (this.open) await this.abort();
      throw error;
    }
    await this.commit();
    return result;
  }
}

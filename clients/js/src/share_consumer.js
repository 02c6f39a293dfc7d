// Share-group consumers, shaped like Kafka's KafkaShareConsumer. `subscribe(topics)`, then
// `poll(timeoutMs)` answers records acquired under time-limited locks; each is acknowledged
// with `acknowledge(record, type)` ("accept", "release", "reject", "renew"). In the implicit
// mode (the default, as Kafka's) every record of a poll not acknowledged otherwise is accepted by
// the next `poll` or `commitSync`; in the explicit mode each must be acknowledged, and a poll
// with records still unacknowledged throws. Acknowledgements ride on the next fetch
// (`commitAsync`) or go at once (`commitSync`). `close` releases what it still holds and leaves.
//
// `push: true` takes records over the WebSocket (docs/api.md, push consumption): the server
// pushes records as they arrive, never more out at once than `credits`; acknowledgements go on
// the same socket and make room for more; `autoRenew` keeps the locks alive while the socket
// lives. `poll` then answers what was pushed since.
//
// With record batches (the default wire) fetches and pushed frames carry the stored batches
// that hold the records acquired, with the acquired ranges (docs/api.md, share fetch as
// batches): the consumer takes the records inside its ranges, each with its range's delivery
// count, and leaves the others a batch holds (before a range, or another member's).
//
// `for await (const record of consumer)` polls in a loop. A record counts as processed when the
// loop asks for the next one (implicit mode: it is accepted then). Leaving the loop (break,
// return, an exception) releases the record in hand and those not yet handed out, and closes
// the consumer; acknowledge a record before leaving to keep it from coming back.

import { openEnvelope } from "./codec.js";
import { CorruptMessageError, InvalidRequestError, SluiceError, ConnectionError, UnknownMemberIdError, errorFrom, throwFirst } from "./errors.js";
import { Record } from "./records.js";
import { openSocket } from "./websocket.js";

const enc = encodeURIComponent;
const TYPES = new Set(["accept", "release", "reject", "renew"]);
const keyOf = (r) => `${r.topic}\0${r.partition}\0${r.offset}`;

/** The wire acknowledgements of `pairs` ([record, type]): ranges of one type each. */
export function ranges(pairs) {
  const last = new Map();
  for (const [r, type] of pairs) last.set(keyOf(r), [r, type]); // the last one of a record wins
  const sorted = [...last.values()].sort(
    ([a], [b]) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition || a.offset - b.offset),
  );
  const acks = [];
  for (const [r, type] of sorted) {
    const prev = acks[acks.length - 1];
    if (prev && prev.topic === r.topic && prev.partition === r.partition && prev.last_offset === r.offset - 1 && prev.type === type) {
      prev.last_offset = r.offset;
    } else {
      acks.push({ topic: r.topic, partition: r.partition, first_offset: r.offset, last_offset: r.offset, type });
    }
  }
  return acks;
}

/**
 * The records of an answer of batches that lie inside its acquired ranges, as Record objects
 * with their delivery counts: `partitions` is the head's list ({topic, partition, batches,
 * acquired}), `batches` the decoded batches that follow it, in the same order.
 */
export function acquiredRecords(partitions, batches) {
  const out = [];
  let next = 0;
  for (const { topic, partition, batches: count, acquired } of partitions) {
    const ranges = [...acquired].sort((a, b) => a.first_offset - b.first_offset);
    let k = 0;
    for (const batch of batches.slice(next, next + count)) {
      if (batch.control) continue; // markers are no records
      for (const r of batch.records) {
        while (k < ranges.length && ranges[k].last_offset < r.offset) k += 1;
        if (k === ranges.length) break;
        if (r.offset >= ranges[k].first_offset) out.push(Record.fromBatch(topic, partition, r, ranges[k].delivery_count));
      }
    }
    next += count;
  }
  if (next !== batches.length) throw new CorruptMessageError(`the head names ${next} batches, ${batches.length} came`);
  return out;
}

export class ShareConsumer {
  constructor(
    client,
    groupId,
    {
      maxRecords = 500,
      acknowledgementMode = "implicit",
      acquireMode = "batch_optimized",
      push = false,
      credits = 100,
      autoRenew = false,
      iterationWaitMs = 5_000,
    } = {},
  ) {
    this.client = client;
    this.groupId = groupId;
    this.path = `/v1/share-groups/${enc(groupId)}`;
    this.maxRecords = maxRecords;
    this.explicit = acknowledgementMode === "explicit";
    this.strict = acquireMode === "record_limit";
    this.push = push;
    this.credits = credits;
    this.autoRenew = autoRenew;
    this.iterationWaitMs = iterationWaitMs;
    this.topics = null;
    this.memberId = null;
    this.delivered = new Map(); // handed out, not yet acknowledged
    this.pending = []; // [record, type] acknowledged, not yet sent
    this.closed = false;
    // push mode
    this.socket = null;
    this.pushed = [];
    this.wake = null;
    this.answers = new Map(); // ack frame id -> {resolve, reject}
    this.nextId = 1;
    this.failure = null;
    this.json = client.wire === "json";
  }

  subscribe(topics) {
    if (!Array.isArray(topics) || !topics.length) throw new InvalidRequestError("subscribe to at least one topic");
    this.topics = [...topics];
  }

  acknowledge(record, type = "accept") {
    if (!TYPES.has(type)) throw new InvalidRequestError(`unknown acknowledgement type ${type}`);
    const k = keyOf(record);
    if (!this.delivered.has(k)) throw new InvalidRequestError(`${record.topic}-${record.partition}@${record.offset} is not a record this consumer holds`);
    if (type !== "renew") this.delivered.delete(k);
    this.pending.push([record, type]);
  }

  /** The wire acknowledgements of `records`, for a transaction to carry; `settled` after. */
  acknowledgements(records, type = "accept") {
    return ranges(records.map((r) => [r, type]));
  }

  /** The records were acknowledged in a transaction that committed: no longer held. */
  settled(records) {
    for (const r of records) this.delivered.delete(keyOf(r));
  }

  #takeAcks(implicit) {
    if (implicit && !this.explicit) {
      for (const r of this.delivered.values()) this.pending.push([r, "accept"]);
      this.delivered.clear();
    }
    const acks = ranges(this.pending);
    this.pending = [];
    return acks;
  }

  #mustBeReady() {
    if (this.closed) throw new InvalidRequestError("the consumer is closed");
    if (this.topics === null) throw new InvalidRequestError("subscribe() first");
    if (this.explicit && this.delivered.size) {
      throw new InvalidRequestError("explicit acknowledgement: acknowledge every record of the last poll first");
    }
  }

  #handOut(records) {
    for (const r of records) this.delivered.set(keyOf(r), r);
    return records;
  }

  /** Records acquired for this member, waiting up to `timeoutMs` for some. */
  async poll(timeoutMs = 1_000) {
    this.#mustBeReady();
    return this.push ? this.#pollPushed(timeoutMs) : this.#fetch(timeoutMs);
  }

  async #fetch(timeoutMs) {
    try {
      return await this.#fetchOnce(timeoutMs);
    } catch (error) {
      if (!(error instanceof UnknownMemberIdError)) throw error;
      // forgotten by the server (its session timed out, or its gateway went away): join again
      this.#lost();
      return this.#fetchOnce(timeoutMs);
    }
  }

  /** The member is gone: what it held comes again, so what was not sent is dropped. */
  #lost() {
    this.memberId = null;
    this.delivered.clear();
    this.pending = [];
  }

  async #fetchOnce(timeoutMs) {
    const body = {
      max_records: this.maxRecords,
      acquire_mode: this.strict ? "record_limit" : "batch_optimized",
      max_wait_ms: Math.max(0, Math.round(timeoutMs)),
      acknowledgements: this.#takeAcks(true),
    };
    if (this.json) body.encoding = "base64";
    else body.format = "batches";
    if (this.memberId === null) body.subscribed_topics = this.topics;
    else body.member_id = this.memberId;
    const answer = await this.client.request("POST", `${this.path}/fetch`, { body });
    if (this.json) {
      this.memberId = answer.member_id;
      throwFirst(answer.acknowledgement_errors);
      return this.#handOut(answer.records.map((raw) => new Record(raw)));
    }
    const { head, batches } = openEnvelope(answer);
    this.memberId = head.member_id;
    throwFirst(head.acknowledgement_errors);
    return this.#handOut(acquiredRecords(head.partitions, batches));
  }

  /** Send the acknowledgements now (implicit mode: with the last poll's records accepted).
   * Throws `UnknownMemberIdError` when the server no longer knows the member: they did not
   * apply, the records come again, and the next poll joins again. */
  async commitSync() {
    const acks = this.#takeAcks(true);
    if (!acks.length || this.memberId === null) return;
    if (this.push && this.socket) {
      throwFirst(await this.#ackOnSocket(acks));
    } else {
      const body = { member_id: this.memberId, acknowledgements: acks };
      try {
        throwFirst((await this.client.request("POST", `${this.path}/acknowledge`, { body })).results);
      } catch (error) {
        // the records come again; the next poll joins again
        if (error instanceof UnknownMemberIdError) this.#lost();
        throw error;
      }
    }
  }

  /** Leave the acknowledgements for the next poll to carry (push mode: send them now). */
  commitAsync() {
    if (this.push && this.socket) {
      const acks = this.#takeAcks(true);
      if (acks.length) this.socket.send({ type: "ack", acknowledgements: acks });
    }
  }

  /** Release what this member still holds and leave the group. */
  async close() {
    if (this.closed) return;
    this.closed = true;
    this.#wakeUp();
    if (this.push) return this.#closeSocket();
    if (this.memberId === null) return;
    try {
      for (const r of [...this.delivered.values()]) this.acknowledge(r, "release");
      const acks = this.#takeAcks(false);
      if (acks.length) {
        await this.client.request("POST", `${this.path}/acknowledge`, {
          body: { member_id: this.memberId, acknowledgements: acks },
        });
      }
    } finally {
      try {
        await this.client.request("POST", `${this.path}/heartbeat`, {
          body: { member_id: this.memberId, member_epoch: -1 },
        });
      } catch (error) {
        if (!(error instanceof SluiceError)) throw error; // already gone: nothing of it is held
      }
      this.memberId = null;
    }
  }

  async *[Symbol.asyncIterator]() {
    let batch = [];
    let i = 0;
    try {
      while (!this.closed) {
        batch = await this.poll(this.iterationWaitMs);
        for (i = 0; i < batch.length; i++) {
          yield batch[i];
          if (this.closed) return;
        }
      }
    } finally {
      if (!this.closed) {
        // left the loop: what was processed is kept, the record in hand and the rest go back
        batch.forEach((r, j) => {
          if (!this.delivered.has(keyOf(r))) return;
          if (j < i && !this.explicit) this.acknowledge(r, "accept");
          else if (j >= i) this.acknowledge(r, "release");
        });
        await this.close();
      }
    }
  }

  // -- push mode -----------------------------------------------------------------------------

  async #connect() {
    this.pushed = [];
    this.failure = null;
    const subscribed = new Promise((resolve, reject) => (this.subscribing = { resolve, reject }));
    this.socket = await openSocket(this.client, `${this.path}/consume`, {
      onFrame: (frame) => this.#onFrame(frame),
      onBinary: (bytes) => this.#onBatches(bytes),
      onClose: ({ code, reason }) => this.#onClose(code, reason),
    });
    const subscribe = {
      type: "subscribe",
      topics: this.topics,
      member_id: null,
      credits: this.credits,
      auto_renew: this.autoRenew,
    };
    if (this.json) subscribe.encoding = "base64";
    else subscribe.format = "batches";
    this.socket.send(subscribe);
    const frame = await subscribed;
    this.memberId = frame.member_id;
  }

  #onFrame(frame) {
    switch (frame.type) {
      case "subscribed":
        this.subscribing?.resolve(frame);
        this.subscribing = null;
        break;
      case "records":
        for (const raw of frame.records) this.pushed.push(new Record(raw));
        this.#wakeUp();
        break;
      case "ack_result": {
        const waiting = this.answers.get(frame.id);
        this.answers.delete(frame.id);
        waiting?.resolve(frame.results);
        break;
      }
      case "error": {
        const error = errorFrom(200, frame);
        const waiting = frame.id === undefined ? undefined : this.answers.get(frame.id);
        if (waiting) {
          this.answers.delete(frame.id);
          waiting.reject(error);
        } else if (this.subscribing) {
          this.subscribing.reject(error);
          this.subscribing = null;
        } else {
          this.failure = error;
          this.#wakeUp();
        }
        break;
      }
      default:
        break;
    }
  }

  /** A binary frame: records pushed as record batches. */
  #onBatches(bytes) {
    let records;
    try {
      const { head, batches } = openEnvelope(bytes);
      if (head.type !== "records") return;
      records = acquiredRecords(head.partitions, batches);
    } catch (error) {
      // what the frame held stays acquired until the session ends; the next poll says why
      this.failure = error;
      this.#wakeUp();
      return;
    }
    for (const r of records) this.pushed.push(r);
    this.#wakeUp();
  }

  #onClose(code, reason) {
    this.socket = null;
    const error = this.failure ?? new ConnectionError(`the push session ended (${code}${reason ? `: ${reason}` : ""})`, { sent: true });
    for (const waiting of this.answers.values()) waiting.reject(error);
    this.answers.clear();
    this.subscribing?.reject(error);
    this.subscribing = null;
    // the server released what the session held: it is no longer this consumer's
    this.delivered.clear();
    this.pending = [];
    this.pushed = [];
    if (!this.closed) this.failure = error;
    this.#wakeUp();
  }

  #wakeUp() {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  async #pollPushed(timeoutMs) {
    if (this.failure) {
      const error = this.failure;
      this.failure = null;
      if (this.socket === null) this.memberId = null;
      throw error; // the next poll opens a new session
    }
    if (this.socket === null) await this.#connect();
    this.commitAsync();
    if (!this.pushed.length && timeoutMs > 0) {
      await new Promise((resolve) => {
        const timer = setTimeout(() => {
          this.wake = null;
          resolve();
        }, timeoutMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    if (this.failure && !this.pushed.length) return this.#pollPushed(0);
    return this.#handOut(this.pushed.splice(0, this.maxRecords));
  }

  #ackOnSocket(acks) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.answers.set(id, { resolve, reject });
      this.socket.send({ type: "ack", acknowledgements: acks, id });
    });
  }

  async #closeSocket() {
    if (this.socket === null) return;
    const acks = this.#takeAcks(false); // acknowledged by the user: applied before the close
    try {
      if (acks.length) throwFirst(await this.#ackOnSocket(acks));
    } finally {
      const socket = this.socket;
      this.socket = null;
      socket?.close(1000); // the server releases the rest (delivery counts lowered by one)
      this.memberId = null;
      this.delivered.clear();
    }
  }
}

// Admin: topics, consumer groups, share groups (with their dead letters) and transactions.
// Each method is one documented endpoint (docs/api.md); lists answer arrays, describes objects.

import { openEnvelope } from "./codec.js";
import { throwFirst } from "./errors.js";
import { Record, toBase64 } from "./records.js";

const enc = encodeURIComponent;
const DLQ_PREFIX = "sluice.dlq.";
const decoder = new TextDecoder();

/** A record of a dead-letter topic, with the sluice.dlq.* headers the server added. */
export class DeadLetter {
  constructor(dlqTopic, record) {
    this.dlqTopic = dlqTopic;
    this.record = record;
    const dlq = {};
    this.headers = [];
    for (const [k, v] of record.headers) {
      if (k.startsWith(DLQ_PREFIX)) dlq[k.slice(DLQ_PREFIX.length)] = v === null ? null : decoder.decode(v);
      else this.headers.push([k, v]);
    }
    this.source = {
      topic: dlq.topic ?? null,
      partition: dlq.partition === undefined ? null : Number(dlq.partition),
      offset: dlq.offset === undefined ? null : Number(dlq.offset),
    };
    this.group = dlq.group ?? null;
    this.reason = dlq.reason ?? null;
    this.deliveryCount = dlq.delivery_count === undefined ? null : Number(dlq.delivery_count);
  }
}

export class Admin {
  constructor(client) {
    this.client = client;
  }

  #get(path, query) {
    return this.client.request("GET", path, { query, safe: true });
  }

  // -- topics ------------------------------------------------------------------------------

  createTopic(name, { partitions = 1, config } = {}) {
    const body = { name, partitions };
    if (config) body.config = config;
    return this.client.request("POST", "/v1/topics", { body });
  }

  async listTopics() {
    return (await this.#get("/v1/topics")).topics;
  }

  describeTopic(name) {
    return this.#get(`/v1/topics/${enc(name)}`);
  }

  /** `partitions` (only more), and/or `config` changes (null puts a key back to its default). */
  alterTopic(name, { partitions, config } = {}) {
    const body = {};
    if (partitions !== undefined) body.partitions = partitions;
    if (config !== undefined) body.config = config;
    return this.client.request("PATCH", `/v1/topics/${enc(name)}`, { body, safe: true });
  }

  deleteTopic(name) {
    return this.client.request("DELETE", `/v1/topics/${enc(name)}`, { safe: true });
  }

  /** Records of one partition from `offset` (at most `maxRecords`), as Record objects. */
  async read(topic, partition, { offset = 0, maxRecords, maxBytes, isolationLevel } = {}) {
    const path = `/v1/topics/${enc(topic)}/partitions/${partition}/records`;
    const query = { offset, max_records: maxRecords, max_bytes: maxBytes, isolation_level: isolationLevel };
    if (this.client.wire === "json") {
      const answer = await this.#get(path, { ...query, encoding: "base64" });
      return answer.records.map((r) => new Record({ topic, partition, ...r }));
    }
    const answer = await this.client.request("GET", path, {
      query: { ...query, format: "batches" },
      safe: true,
    });
    // whole batches: the first may start below `offset`, the last run past `maxRecords`
    const limit = maxRecords ?? Infinity;
    const out = [];
    for (const batch of openEnvelope(answer).batches) {
      if (batch.control) continue;
      for (const r of batch.records) {
        if (out.length >= limit) return out;
        if (r.offset >= offset) out.push(Record.fromBatch(topic, partition, r));
      }
    }
    return out;
  }

  // -- consumer groups ---------------------------------------------------------------------

  async listGroups() {
    return (await this.#get("/v1/groups")).groups;
  }

  describeGroup(groupId) {
    return this.#get(`/v1/groups/${enc(groupId)}`);
  }

  async groupOffsets(groupId, topic) {
    const answer = await this.#get(`/v1/groups/${enc(groupId)}/offsets`, { topic });
    return answer.offsets;
  }

  /** Set an empty group's offsets ({topic, partition, offset} each), as an admin (epoch -1). */
  async commitGroupOffsets(groupId, offsets) {
    const body = { member_id: null, member_epoch: -1, offsets };
    const answer = await this.client.request("POST", `/v1/groups/${enc(groupId)}/offsets`, { body });
    throwFirst(answer.offsets);
  }

  deleteGroup(groupId) {
    return this.client.request("DELETE", `/v1/groups/${enc(groupId)}`, { safe: true });
  }

  // -- share groups ------------------------------------------------------------------------

  async listShareGroups() {
    return (await this.#get("/v1/share-groups")).share_groups;
  }

  describeShareGroup(groupId) {
    return this.#get(`/v1/share-groups/${enc(groupId)}`);
  }

  alterShareGroupConfig(groupId, changes) {
    return this.client.request("PATCH", `/v1/share-groups/${enc(groupId)}/config`, {
      body: changes,
      safe: true,
    });
  }

  /**
   * Move a share group's start offsets: `targets` are {topic, partitions (optional),
   * to: "earliest" | "latest" | {timestamp} | {offset}}; `dryRun` only answers the result.
   */
  resetShareGroupOffsets(groupId, targets, { dryRun = false } = {}) {
    return this.client.request("POST", `/v1/share-groups/${enc(groupId)}/offsets`, {
      body: { topics: targets, dry_run: dryRun },
    });
  }

  deleteShareGroupOffsets(groupId, topic) {
    return this.client.request("DELETE", `/v1/share-groups/${enc(groupId)}/offsets`, {
      query: { topic },
      safe: true,
    });
  }

  deleteShareGroup(groupId) {
    return this.client.request("DELETE", `/v1/share-groups/${enc(groupId)}`, { safe: true });
  }

  /**
   * The dead letters of a share group: the newest `perPartition` records of each partition of
   * its dead-letter topic that the server moved there for this group ([] without one).
   */
  async deadLetters(groupId, { perPartition = 200 } = {}) {
    const described = await this.describeShareGroup(groupId);
    const dlqTopic = described.config?.dead_letter_topic;
    if (!dlqTopic) return [];
    const topic = await this.describeTopic(dlqTopic);
    const out = [];
    for (const p of topic.partitions) {
      const end = p.high_watermark;
      const start = Math.max(p.log_start_offset, end - perPartition);
      let offset = start;
      while (offset < end) {
        const records = await this.read(dlqTopic, p.partition, { offset, maxRecords: end - offset });
        if (!records.length) break;
        for (const r of records) {
          const letter = new DeadLetter(dlqTopic, r);
          if (letter.group === groupId) out.push(letter);
        }
        offset = records[records.length - 1].offset + 1;
      }
    }
    return out;
  }

  /**
   * Produce a dead letter back to its source topic and partition, without the sluice.dlq.*
   * headers. Idempotent: the request carries the key redrive:<dlq topic>:<partition>:<offset>,
   * so a retry or a second redrive of the same letter appends nothing twice.
   */
  redrive(letter) {
    const r = letter.record;
    if (letter.source.topic === null) throw new TypeError("this record has no sluice.dlq.topic header");
    const b64 = (v) => (v === null ? null : toBase64(v));
    return this.client.request("POST", `/v1/topics/${enc(letter.source.topic)}/records`, {
      headers: { "Idempotency-Key": `redrive:${letter.dlqTopic}:${r.partition}:${r.offset}` },
      body: {
        encoding: "base64",
        records: [
          {
            key: b64(r.key),
            value: b64(r.value),
            headers: letter.headers.map(([k, v]) => ({ key: k, value: b64(v) })),
            partition: letter.source.partition,
          },
        ],
      },
      safe: true,
    });
  }

  // -- transactions ------------------------------------------------------------------------

  async listTransactions({ state } = {}) {
    return (await this.#get("/v1/transactions", { state })).transactions;
  }

  describeTransaction(transactionalId) {
    return this.#get(`/v1/transactions/${enc(transactionalId)}`);
  }
}

// The idempotent producer. `send` queues a record and answers a promise of its metadata
// ({topic, partition, offset}); records go out when `maxBatch` records wait, `linger` ms after
// the first one, or on `flush`: one record batch per partition, each in its own request, the
// partitions' requests at once (with the JSON wire, one POST /v1/produce for them all). The
// producer id, epoch and the sequence of every partition are handled here: a request whose
// answer was lost is sent again as it was, and the server answers it without storing anything
// twice. Keyed records go to Kafka's partition for the key; records without key or partition
// share one partition per topic and request, as Kafka's sticky partitioner.

import { Batches, Routing, outcomeUnknown } from "./batches.js";
import { batchRecord, wireRecord } from "./records.js";

export class Producer {
  constructor(client, { linger = 5, maxBatch = 500 } = {}) {
    this.client = client;
    this.linger = linger;
    this.batches = new Batches(maxBatch);
    this.routing = new Routing(client.admin);
    this.identity = null;
    this.timer = null;
    this.sending = Promise.resolve(); // one request at a time: sequences stay in order
    this.inFlight = new Set();
    this.picking = new Set(); // records waiting for their topic's partition count
    this.json = client.wire === "json";
  }

  /**
   * Queue a record. `value`, `key` and header values are strings (sent as UTF-8) or Uint8Array;
   * `headers` an object or [name, value] pairs.
   * @returns {Promise<{topic: string, partition: number, offset: number}>}
   */
  send(topic, value, { key, partition, headers, timestamp } = {}) {
    const record = this.json ? wireRecord(value, { key, headers, timestamp }) : batchRecord(value, { key, headers, timestamp });
    return new Promise((resolve, reject) => {
      const done = (meta, error) => (error ? reject(error) : resolve(meta));
      const queue = (p) => {
        const full = this.batches.add(topic, p, record, done);
        if (full || this.linger <= 0) this.#start();
        else if (this.timer === null) this.timer = setTimeout(() => this.#start(), this.linger);
      };
      if (partition !== undefined && partition !== null) return queue(partition);
      const picked = this.routing.pick(topic, key, partition).then(queue, reject);
      this.picking.add(picked);
      picked.finally(() => this.picking.delete(picked));
    });
  }

  #start() {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const task = (this.sending = this.sending.then(() => this.#sendOne()));
    this.inFlight.add(task);
    task.finally(() => this.inFlight.delete(task));
  }

  async #sendOne() {
    const batches = this.batches.take();
    this.routing.nextRequest();
    if (!batches.length) return;
    let answer;
    try {
      if (this.identity === null) {
        const got = await this.client.request("POST", "/v1/producers", { body: {} });
        this.identity = [got.producer_id, got.producer_epoch];
      }
      if (!this.json) {
        const errors = await this.batches.sendAll(this.client, batches, this.identity);
        if ([...errors.values()].some(outcomeUnknown)) this.#forget();
        return;
      }
      const body = Batches.body(this.identity[0], this.identity[1], batches);
      answer = await this.client.request("POST", "/v1/produce", { body, safe: true });
    } catch (error) {
      this.#forget();
      Batches.failed(batches, error);
      return;
    }
    this.batches.answered(batches, answer);
  }

  // whether the server stored a batch is unknown: a new producer id starts the sequences
  // again, so that the next records are not refused as out of order
  #forget() {
    this.identity = null;
    this.batches.sequences.clear();
  }

  /** Send everything queued; resolves once every record is answered. */
  async flush() {
    while (this.picking.size) await Promise.allSettled([...this.picking]);
    while (this.batches.count || this.inFlight.size) {
      if (this.batches.count) this.#start();
      await Promise.allSettled([...this.inFlight]);
    }
  }

  async close() {
    await this.flush();
  }

  get producerId() {
    return this.identity?.[0] ?? null;
  }
}

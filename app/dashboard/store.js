// What the feed has told the page: the last snapshot with every event since applied. Entities
// are kept by their key (topic name, group_id, transactional_id); an entry in an event's
// `changes` replaces the whole entry, `removed` drops it. `dirty` names the parts that changed
// since the page last drew them.

const KEYS = {
  topics: "topic",
  share_groups: "group_id",
  groups: "group_id",
  transactions: "transactional_id",
};

function keyed(list, key) {
  return new Map((list ?? []).map((e) => [e[key], e]));
}

export class Store {
  constructor() {
    this.server = null;
    this.rates = { produce: 0, consume: 0 };
    this.seconds = 300;
    this.history = { produce: [], consume: [], topics: new Map() };
    this.topics = new Map();
    this.share_groups = new Map();
    this.groups = new Map();
    this.transactions = new Map();
    this.intervalMs = 500;
    // server time minus this browser's time, from the last message: countdowns use server time
    this.skew = 0;
    this.received = false;
    this.dirty = new Set();
  }

  /** The server's time now, in epoch ms. */
  now() {
    return Date.now() + this.skew;
  }

  apply(msg) {
    if (typeof msg.at === "number") this.skew = msg.at - Date.now();
    if (msg.type === "snapshot") this.applySnapshot(msg);
    else if (msg.type === "event" && this.received) this.applyEvent(msg);
  }

  applySnapshot(msg) {
    this.received = true;
    this.server = msg.server ?? null;
    this.intervalMs = msg.interval_ms ?? 500;
    this.rates = msg.rates ?? { produce: 0, consume: 0 };
    const hist = msg.history ?? {};
    this.seconds = hist.seconds ?? 300;
    this.history = {
      produce: [...(hist.produce ?? [])],
      consume: [...(hist.consume ?? [])],
      topics: new Map(Object.entries(hist.topics ?? {}).map(([t, v]) => [t, [...v]])),
    };
    for (const [part, key] of Object.entries(KEYS)) this[part] = keyed(msg[part], key);
    for (const t of this.transactions.values()) this.stampDeadline(t, msg.at);
    this.dirty = new Set(["server", "rates", "history", ...Object.keys(KEYS)]);
  }

  applyEvent(msg) {
    if (msg.rates) {
      this.rates = msg.rates;
      this.dirty.add("rates");
    }
    // `seconds`: how many seconds closed since this socket's last event, each worth the sample
    if (msg.samples) this.addSamples(msg.samples, msg.seconds ?? 1);
    for (const [part, key] of Object.entries(KEYS)) {
      const changed = msg.changes?.[part] ?? [];
      const removed = msg.removed?.[part] ?? [];
      if (changed.length === 0 && removed.length === 0) continue;
      for (const entry of changed) {
        if (part === "transactions") this.stampDeadline(entry, msg.at);
        this[part].set(entry[key], entry);
      }
      for (const id of removed) {
        this[part].delete(id);
        if (part === "topics") this.history.topics.delete(id);
      }
      this.dirty.add(part);
    }
  }

  addSamples(samples, seconds) {
    const n = Math.max(1, Math.min(this.seconds, seconds));
    const push = (series, value) => {
      for (let i = 0; i < n; i++) series.push(value ?? 0);
      if (series.length > this.seconds) series.splice(0, series.length - this.seconds);
    };
    push(this.history.produce, samples.produce);
    push(this.history.consume, samples.consume);
    const perTopic = samples.topics ?? {};
    const names = new Set([...this.topics.keys(), ...Object.keys(perTopic)]);
    for (const name of names) {
      if (!this.history.topics.has(name)) this.history.topics.set(name, []);
      push(this.history.topics.get(name), perTopic[name] ?? 0);
    }
    this.dirty.add("history");
  }

  /** A transaction's deadline in server time, from the time left when the entry was sent. */
  stampDeadline(txn, at) {
    txn.deadline = typeof txn.time_left_ms === "number" ? at + txn.time_left_ms : null;
  }

  /** The parts changed since the last call. */
  takeDirty() {
    const d = this.dirty;
    this.dirty = new Set();
    return d;
  }

  /** A partition of a topic as the feed last described it, or undefined. */
  partition(topic, partition) {
    return this.topics.get(topic)?.partitions.find((p) => p.partition === partition);
  }
}

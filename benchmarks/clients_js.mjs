// The JavaScript client's side of benchmarks/clients.py, run in Node: W1 (one producer, 100
// records of 256 random bytes a request, each request when the previous answered) and W2 (4
// share consumers: poll up to 100, then commitSync). The spec comes as JSON in argv[2]; the
// result, shaped as the Python side's, goes to stdout as one JSON line.

import { readFileSync } from "node:fs";
import { Sluice } from "../clients/js/src/index.js";

const spec = JSON.parse(process.argv[2]);
const CLK_TCK = 100; // Linux's USER_HZ

function serverCpu() {
  const stat = readFileSync(`/proc/${spec.server_pid}/stat`, "ascii");
  const fields = stat.slice(stat.lastIndexOf(")") + 1).trim().split(/\s+/);
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

function percentile(sorted, q) {
  if (!sorted.length) return NaN;
  const k = ((sorted.length - 1) * q) / 100;
  const f = Math.floor(k);
  const c = Math.min(f + 1, sorted.length - 1);
  return sorted[f] + (sorted[c] - sorted[f]) * (k - f);
}

function summary(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const r = (x) => Math.round(x * 1000) / 1000;
  return {
    p50: r(percentile(s, 50)),
    p90: r(percentile(s, 90)),
    p99: r(percentile(s, 99)),
    max: r(s[s.length - 1] ?? NaN),
    mean: r(s.reduce((a, b) => a + b, 0) / (s.length || 1)),
  };
}

class Meter {
  begin() {
    this.cpu0 = process.cpuUsage();
    this.srv0 = serverCpu();
    this.t0 = performance.now();
  }
  end() {
    this.t1 = performance.now();
    this.cpu1 = process.cpuUsage(this.cpu0);
    this.srv1 = serverCpu();
  }
  report(records) {
    const elapsed = (this.t1 - this.t0) / 1000;
    const server = this.srv1 - this.srv0;
    const own = (this.cpu1.user + this.cpu1.system) / 1e6;
    return {
      records,
      seconds: Math.round(elapsed * 1e4) / 1e4,
      records_per_s: Math.round((records / elapsed) * 10) / 10,
      server_cpu_s: Math.round(server * 1e4) / 1e4,
      server_cpu: Math.round((server / elapsed) * 1000) / 1000,
      client_cpu: Math.round((own / elapsed) * 1000) / 1000,
      server_us_per_record: records ? Math.round((server * 1e6 * 100) / records) / 100 : null,
      runtime: `node ${process.version}`,
    };
  }
}

function values(count) {
  // random bytes of a fixed seed (a small LCG): the same sizes as the Python side
  let x = 1;
  return Array.from({ length: count }, () => {
    const v = new Uint8Array(spec.value_bytes);
    for (let i = 0; i < v.length; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      v[i] = x >>> 24;
    }
    return v;
  });
}

async function w1() {
  const pool = values(997);
  const sluice = new Sluice({ url: spec.url });
  const producer = sluice.producer({ maxBatch: spec.batch, linger: 5 });
  const latencies = [];
  const send = async (topic, start) => {
    const sends = [];
    for (let k = 0; k < spec.batch; k++) sends.push(producer.send(topic, pool[(start + k) % pool.length], { partition: 0 }));
    const metas = await Promise.all(sends);
    metas.forEach((m, k) => {
      if (m.offset !== metas[0].offset + k) throw new Error("offsets out of order");
    });
  };
  for (let i = 0; i < spec.warmup_requests; i++) await send(spec.warmup_topic, i * spec.batch);
  const meter = new Meter();
  meter.begin();
  for (let sent = 0; sent < spec.records; sent += spec.batch) {
    const t0 = performance.now();
    await send(spec.topic, sent);
    latencies.push(performance.now() - t0);
  }
  meter.end();
  await producer.close();
  return { ...meter.report(spec.records), request_ms: summary(latencies) };
}

async function w2() {
  const seen = new Set();
  const pollMs = [];
  const commitMs = [];
  const meter = new Meter();
  let done = false;
  const consumers = Array.from({ length: spec.consumers }, () =>
    new Sluice({ url: spec.url }).shareConsumer(spec.group, {
      maxRecords: spec.batch,
      acquireMode: "record_limit",
    }),
  );
  for (const c of consumers) c.subscribe([spec.topic]);
  const loop = async (consumer) => {
    while (!done) {
      const t0 = performance.now();
      const records = await consumer.poll(50);
      const took = performance.now() - t0;
      if (!records.length) continue;
      pollMs.push(took);
      for (const r of records) {
        if (r.value === null || r.value.length !== spec.value_bytes) throw new Error("a value of the wrong length");
        const key = `${r.partition}:${r.offset}`;
        if (seen.has(key)) throw new Error(`${key} delivered twice`);
        seen.add(key);
      }
      const t1 = performance.now();
      await consumer.commitSync(); // accepts the poll's records
      commitMs.push(performance.now() - t1);
      if (seen.size >= spec.records && !done) {
        meter.end();
        done = true;
      }
    }
  };
  meter.begin();
  const timer = setTimeout(() => {
    done = true;
  }, spec.max_seconds * 1000);
  await Promise.all(consumers.map(loop));
  clearTimeout(timer);
  for (const c of consumers) await c.close();
  if (!meter.t1) meter.end();
  return { ...meter.report(seen.size), accepted: seen.size, fetch_ms: summary(pollMs), ack_ms: summary(commitMs) };
}

try {
  const result = spec.workload === "w1_js" ? await w1() : await w2();
  process.stdout.write(JSON.stringify(result) + "\n");
} catch (error) {
  process.stdout.write(JSON.stringify({ error: `${error.name}: ${error.message}` }) + "\n");
  process.exitCode = 1;
}

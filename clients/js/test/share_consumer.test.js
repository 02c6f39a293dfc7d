// The share consumer against a real server: implicit and explicit acknowledgement, the async
// iterator, push consumption over the WebSocket, and the consume-transform-produce loop exactly
// once across a killed worker; fetches and pushes as record batches (the default wire) and as
// JSON. On a gateway (docs/kafka.md) the partition's start offset is the one Kafka last saved
// and the records by state are not counted: what is left to acknowledge is checked by the lag,
// current on both; and the worker's acknowledgements in its transaction are refused by name.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

import { InvalidRequestError, openEnvelope, UnknownMemberIdError } from "../src/index.js";
import { client, fresh, GATEWAY, readAll, until, URL_ } from "./helpers.js";

/** A topic of `count` records j0, j1, ... (a batch each, or all in one batch: `together`). */
async function setup(sluice, count, config = {}, { together = false } = {}) {
  const [topic, group] = [fresh("jobs"), fresh("g")];
  await sluice.admin.createTopic(topic);
  await sluice.admin.alterShareGroupConfig(group, { auto_offset_reset: "earliest", ...config });
  const producer = sluice.producer({ linger: together ? 1000 : 0 });
  if (together) {
    const sends = Array.from({ length: count }, (_, i) => producer.send(topic, `j${i}`, { partition: 0 }));
    await producer.flush();
    await Promise.all(sends);
  } else {
    for (let i = 0; i < count; i++) await producer.send(topic, `j${i}`, { partition: 0 });
  }
  return { topic, group };
}

/** The group's state of the topic's partition 0: start_offset, available, acquired, ... */
async function view(group, topic) {
  const described = await (await fetch(`${URL_}/v1/share-groups/${group}`)).json();
  return described.partitions.find((p) => p.topic === topic && p.partition === 0);
}

/** The partition's state once `lag` records are left to acknowledge, its window starting at
 * `start` with nothing acquired. The embedded engine describes it current: checked at once, or
 * (`wait`: what the server does after the client's call returns) once it gets there. A gateway
 * describes the start offset Kafka last saved, behind the acknowledgements, and no counts by
 * state (docs/kafka.md: share_start_offset): there the lag is waited for, and `acquired` is
 * null. */
async function settled(group, topic, { lag, start, wait = false }) {
  const reached = (s) =>
    GATEWAY ? s.lag === lag && s.acquired === null : s.lag === lag && s.start_offset === start && s.acquired === 0;
  if (!GATEWAY && !wait) {
    const state = await view(group, topic);
    assert.deepEqual([state.start_offset, state.acquired, state.lag], [start, 0, lag]);
    return state;
  }
  let last;
  return until(async () => reached((last = await view(group, topic))) && last, `lag ${lag} from ${start}`).catch((e) => {
    throw new Error(`${e.message}: ${JSON.stringify(last)}`);
  });
}

const texts = (records) => records.map((r) => r.text());

for (const wire of ["batches", "json"]) {
  test(`implicit mode accepts on the next poll; close releases (${wire})`, async () => {
    const sluice = client({ wire });
    const { topic, group } = await setup(sluice, 10);
    const consumer = sluice.shareConsumer(group, { maxRecords: 4, acquireMode: "record_limit" });
    consumer.subscribe([topic]);
    const first = await consumer.poll(2000);
    assert.deepEqual(texts(first), ["j0", "j1", "j2", "j3"]);
    assert.ok(first.every((r) => r.deliveryCount === 1));
    consumer.acknowledge(first[1], "reject");
    assert.deepEqual(texts(await consumer.poll(2000)), ["j4", "j5", "j6", "j7"]); // accepts j0, j2, j3
    await consumer.commitSync();
    await settled(group, topic, { lag: 2, start: 8 }); // j8 and j9 left
    assert.deepEqual(texts(await consumer.poll(2000)), ["j8", "j9"]);
    await consumer.close(); // releases j8 and j9
    const again = sluice.shareConsumer(group);
    again.subscribe([topic]);
    assert.deepEqual(texts(await again.poll(2000)), ["j8", "j9"]);
    await again.close();
  });
}

test("explicit mode needs every record acknowledged", async () => {
  const sluice = client();
  const { topic, group } = await setup(sluice, 3);
  const consumer = sluice.shareConsumer(group, { acknowledgementMode: "explicit" });
  consumer.subscribe([topic]);
  const records = await consumer.poll(2000);
  assert.equal(records.length, 3);
  consumer.acknowledge(records[0], "accept");
  await assert.rejects(consumer.poll(0), InvalidRequestError);
  consumer.acknowledge(records[1], "release");
  consumer.acknowledge(records[2], "renew");
  consumer.acknowledge(records[2], "accept");
  await consumer.commitSync();
  const again = await consumer.poll(2000);
  assert.deepEqual(again.map((r) => [r.text(), r.deliveryCount]), [["j1", 2]]);
  consumer.acknowledge(again[0]);
  await consumer.close();
  await settled(group, topic, { lag: 0, start: 3 });
});

test("for await: processed records are accepted, leaving the loop gives back the rest", async () => {
  const sluice = client();
  const { topic, group } = await setup(sluice, 6);
  const consumer = sluice.shareConsumer(group, { maxRecords: 6, iterationWaitMs: 2000 });
  consumer.subscribe([topic]);
  const seen = [];
  for await (const record of consumer) {
    seen.push(record.text());
    if (seen.length === 3) break; // j0, j1 processed; j2 in hand; j3-j5 not handed out
  }
  assert.deepEqual(seen, ["j0", "j1", "j2"]);
  await settled(group, topic, { lag: 4, start: 2 }); // j2-j5 left
  const again = sluice.shareConsumer(group, { maxRecords: 10 });
  again.subscribe([topic]);
  assert.deepEqual(texts(await again.poll(2000)), ["j2", "j3", "j4", "j5"]);
  await again.close();
});

for (const wire of ["batches", "json"]) {
  test(`push (${wire}): records arrive over the WebSocket within the credits, acknowledged on the socket`, async () => {
    const sluice = client({ wire });
    const { topic, group } = await setup(sluice, 12, {}, { together: true }); // one batch, 5 credits
    const consumer = sluice.shareConsumer(group, { push: true, credits: 5, acknowledgementMode: "explicit" });
    consumer.subscribe([topic]);
    const first = await until(async () => {
      const got = await consumer.poll(2000);
      return got.length ? got : null;
    }, "pushed records");
    assert.ok(first.length <= 5, `the credits bound what is out: ${first.length}`);
    assert.ok(consumer.memberId);
    const described = await sluice.admin.describeShareGroup(group);
    assert.equal(described.members.length, 1);
    const all = [...first];
    for (const r of first) consumer.acknowledge(r, "accept");
    await consumer.commitSync(); // the ack_result came back: room for more
    while (all.length < 12) {
      const more = await consumer.poll(2000);
      assert.ok(more.length <= 5);
      for (const r of more) consumer.acknowledge(r, r.text() === "j11" ? "release" : "accept");
      all.push(...more);
    }
    await consumer.commitSync();
    assert.deepEqual(texts(all), Array.from({ length: 12 }, (_, i) => `j${i}`));
    const redelivered = await consumer.poll(2000); // j11 was released: it comes again
    assert.deepEqual(redelivered.map((r) => [r.text(), r.deliveryCount]), [["j11", 2]]);
    await consumer.close(); // the socket closes: the server releases j11 again
    await settled(group, topic, { lag: 1, start: 11, wait: true }); // j11, released at close
    await until(async () => (await sluice.admin.describeShareGroup(group)).members.length === 0, "the member to leave");
  });
}

test("push: implicit mode and the async iterator", async () => {
  const sluice = client();
  const { topic, group } = await setup(sluice, 20);
  const consumer = sluice.shareConsumer(group, { push: true, credits: 8, iterationWaitMs: 2000 });
  consumer.subscribe([topic]);
  const seen = [];
  for await (const record of consumer) {
    seen.push(record.text());
    if (seen.length === 15) break;
  }
  assert.deepEqual(seen, Array.from({ length: 15 }, (_, i) => `j${i}`));
  await settled(group, topic, { lag: 6, start: 14, wait: true }); // j0-j13 accepted, the rest released
});

for (const wire of ["batches", "json"]) {
  test(`the records of one batch go to whoever acquired them, with their delivery counts (${wire})`, async () => {
    const sluice = client({ wire });
    const { topic, group } = await setup(sluice, 10, {}, { together: true });
    const stored = await (await fetch(`${URL_}/v1/topics/${topic}/partitions/0/records?format=batches`)).arrayBuffer();
    assert.deepEqual(openEnvelope(new Uint8Array(stored)).batches.map((b) => b.recordCount), [10]);
    const a = sluice.shareConsumer(group, { maxRecords: 3, acquireMode: "record_limit", acknowledgementMode: "explicit" });
    const b = sluice.shareConsumer(group, { maxRecords: 4, acquireMode: "record_limit", acknowledgementMode: "explicit" });
    a.subscribe([topic]);
    b.subscribe([topic]);
    const first = await a.poll(2000);
    const second = await b.poll(2000); // the same batch: only the records b acquired
    assert.deepEqual(texts(first), ["j0", "j1", "j2"]);
    assert.deepEqual(texts(second), ["j3", "j4", "j5", "j6"]);
    assert.deepEqual(second.map((r) => [r.topic, r.partition, r.offset, r.deliveryCount]), [3, 4, 5, 6].map((o) => [topic, 0, o, 1]));
    a.acknowledge(first[0], "accept");
    a.acknowledge(first[1], "release");
    a.acknowledge(first[2], "accept");
    await a.commitSync();
    const again = await a.poll(2000); // j1 again (count 2), then j7 and j8 (count 1)
    assert.deepEqual(again.map((r) => [r.text(), r.deliveryCount]), [["j1", 2], ["j7", 1], ["j8", 1]]);
    for (const r of again) a.acknowledge(r, "accept");
    for (const r of second) b.acknowledge(r, "accept");
    await a.commitSync();
    await b.commitSync();
    const pushed = sluice.shareConsumer(group, { push: true, credits: 10 });
    pushed.subscribe([topic]);
    const last = await until(async () => {
      const got = await pushed.poll(2000);
      return got.length ? got : null;
    }, "the last record, pushed");
    assert.deepEqual(last.map((r) => [r.text(), r.offset, r.deliveryCount]), [["j9", 9, 1]]);
    await pushed.commitSync();
    await Promise.all([a.close(), b.close(), pushed.close()]);
    await settled(group, topic, { lag: 0, start: 10, wait: true }); // everything accepted
  });
}

test("consume-transform-produce exactly once across a killed worker", async () => {
  const sluice = client();
  const [input, output, group] = [fresh("images"), fresh("thumbnails"), fresh("resizers")];
  await sluice.admin.createTopic(input);
  await sluice.admin.createTopic(output, { partitions: 2 });
  await sluice.admin.alterShareGroupConfig(group, { auto_offset_reset: "earliest", record_lock_duration_ms: 1000 });
  const producer = sluice.producer({ linger: 5 });
  await Promise.all(Array.from({ length: 60 }, (_, i) => producer.send(input, `img-${i}`, { partition: 0 })));
  const worker = fileURLToPath(new URL("./worker.js", import.meta.url));
  const run = (name, stopAfter) =>
    spawn(process.execPath, [worker, URL_, group, input, output, name, String(stopAfter)], {
      stdio: ["ignore", "pipe", GATEWAY ? "pipe" : "inherit"],
    });
  const first = run("a", 20);
  if (GATEWAY) {
    // Kafka cannot make share acknowledgements part of a transaction: the worker's first
    // commit is refused by name, it stops, and nothing it wrote is committed
    let stderr = "";
    first.stderr.on("data", (chunk) => (stderr += chunk));
    const [code] = await once(first, "close"); // exited, its stderr read to the end
    assert.equal(code, 1);
    assert.match(stderr, /UnsupportedOnKafkaBackendError.*\(unsupported: transactional_share_acknowledgements\)/);
    assert.deepEqual([...(await readAll(output, 0)), ...(await readAll(output, 1))], []);
    return;
  }
  // the worker's line, or its end without one (which fails the test rather than waiting)
  const [line] = await Promise.race([
    once(first.stdout, "data"),
    once(first, "exit").then(([code]) => assert.fail(`the worker exited with ${code} before the middle`)),
  ]);
  assert.equal(String(line).trim(), "in the middle");
  first.kill("SIGKILL"); // records written in its transaction, not committed; five held
  await once(first, "exit");
  const second = run("b", 1000);
  second.stdout.resume();
  const [code] = await once(second, "exit");
  assert.equal(code, 0);
  const committed = [...(await readAll(output, 0)), ...(await readAll(output, 1))].map((r) => r.value).sort();
  assert.deepEqual(committed, Array.from({ length: 60 }, (_, i) => `thumb img-${i}`).sort()); // each once
  const everything = [...(await readAll(output, 0, "read_uncommitted")), ...(await readAll(output, 1, "read_uncommitted"))];
  assert.ok(everything.length > 60); // the killed worker's records are in the log, aborted
});

test("a member the server forgot joins again at the next poll", async () => {
  const sluice = client();
  const { topic, group } = await setup(sluice, 3);
  const consumer = sluice.shareConsumer(group, { maxRecords: 3, acknowledgementMode: "explicit" });
  consumer.subscribe([topic]);
  const first = await until(async () => {
    const got = await consumer.poll(1000);
    return got.length ? got : null;
  }, "the first records");
  assert.deepEqual(texts(first), ["j0", "j1", "j2"]);
  const forgotten = consumer.memberId;
  // the member removed behind the consumer's back (as a session timeout or a gateway that
  // went away removes it): what it held is released
  const removed = await fetch(`${URL_}/v1/share-groups/${group}/members/${forgotten}`, { method: "DELETE" });
  assert.ok(removed.ok, await removed.text());
  for (const r of first) consumer.acknowledge(r);
  await assert.rejects(consumer.commitSync(), UnknownMemberIdError); // nothing of it applied
  const again = await until(async () => {
    const got = await consumer.poll(1000); // joins again, in this poll
    return got.length ? got : null;
  }, "the records again");
  assert.notEqual(consumer.memberId, forgotten);
  assert.notEqual(consumer.memberId, null);
  assert.deepEqual(texts(again).sort(), ["j0", "j1", "j2"]);
  for (const r of again) consumer.acknowledge(r);
  await consumer.commitSync();
  await settled(group, topic, { lag: 0, start: 3, wait: true });
  await consumer.close();
});

// The transactional producer against a real server: commit and abort, offsets and share
// acknowledgements inside the transaction, KIP-588 recovery after a timeout, fencing; its
// records as transactional record batches (the default wire) and as JSON. A gateway refuses
// share acknowledgements in a transaction by name (docs/kafka.md), which the test asserts there.

import assert from "node:assert/strict";
import { test } from "node:test";

import { ProducerFencedError, TransactionTimedOutError, decodeBatches } from "../src/index.js";
import { client, fresh, GATEWAY, readAll, unsupported, until, URL_ } from "./helpers.js";

const values = async (topic, partition = 0) => (await readAll(topic, partition)).map((r) => r.value);

for (const wire of ["batches", "json"]) {
  test(`commit, abort on a throw, offsets in the transaction, more than a batch (${wire})`, async () => {
    const sluice = client({ wire });
    const [input, output, group] = [fresh("in"), fresh("out"), fresh("etl")];
    await sluice.admin.createTopic(input);
    await sluice.admin.createTopic(output);
    const producer = await sluice.transactionalProducer(fresh("etl-tx"));
    const answer = await producer.transaction(async (tx) => {
      for (let i = 0; i < 3; i++) await tx.send(output, `r${i}`, { partition: 0 });
      tx.sendOffsets([{ topic: input, partition: 0, offset: 3 }], { groupId: group });
      return "done";
    });
    assert.equal(answer, "done");
    assert.deepEqual(await values(output), ["r0", "r1", "r2"]);
    const offsets = await sluice.admin.groupOffsets(group);
    assert.deepEqual(offsets.map((o) => [o.topic, o.offset]), [[input, 3]]);

    await assert.rejects(
      producer.transaction(async (tx) => {
        await tx.send(output, "never", { partition: 0 });
        throw new RangeError("the work failed");
      }),
      RangeError,
    );
    producer.begin();
    for (let i = 0; i < 1200; i++) await producer.send(output, `big${i}`, { partition: 0 }); // beyond maxBatch
    await producer.commit();
    const all = await values(output);
    assert.ok(!all.includes("never"));
    assert.equal(all.length, 3 + 1200);
  });
}

test("share acknowledgements commit with the transaction", async () => {
  const sluice = client();
  const [jobs, done, group] = [fresh("jobs"), fresh("done"), fresh("workers")];
  await sluice.admin.createTopic(jobs);
  await sluice.admin.createTopic(done);
  await sluice.admin.alterShareGroupConfig(group, { auto_offset_reset: "earliest" });
  await sluice.producer({ linger: 0 }).send(jobs, "j0", { partition: 0 });
  const consumer = sluice.shareConsumer(group, { acknowledgementMode: "explicit" });
  consumer.subscribe([jobs]);
  const records = await until(async () => {
    const got = await consumer.poll(1000);
    return got.length ? got : null;
  }, "the job");
  const producer = await sluice.transactionalProducer(fresh("worker-tx"));
  const work = producer.transaction(async (tx) => {
    await tx.send(done, `did ${records[0].text()}`, { partition: 0 });
    tx.sendAcknowledgements(group, consumer.memberId, consumer.acknowledgements(records, "accept"));
  });
  if (GATEWAY) {
    // Kafka cannot make share acknowledgements part of a transaction: the commit is refused,
    // the transaction aborted, and the per-record view is refused too
    await assert.rejects(work, unsupported("transactional_share_acknowledgements"));
    assert.deepEqual(await values(done), []);
    const refused = await fetch(`${URL_}/v1/share-groups/${group}/partitions/${jobs}/0/records`);
    assert.equal(refused.status, 400);
    assert.equal((await refused.json()).error.unsupported, "share_record_view");
    await consumer.close();
    return;
  }
  await work;
  consumer.settled(records);
  assert.deepEqual(await values(done), ["did j0"]);
  const view = await (await fetch(`${URL_}/v1/share-groups/${group}/partitions/${jobs}/0/records`)).json();
  assert.equal(view.start_offset, 1); // accepted with the commit
  await consumer.close();
});

test("KIP-588: a timed-out transaction throws, the producer has a new epoch, the loop retries", async () => {
  const sluice = client();
  const output = fresh("slow-out");
  const tid = fresh("slow");
  await sluice.admin.createTopic(output);
  const producer = await sluice.transactionalProducer(tid, { transactionTimeoutMs: 300, maxBatch: 1 });
  const firstEpoch = producer.producerEpoch;
  const attempts = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await producer.transaction(async (tx) => {
        await tx.send(output, `try${attempt}`, { partition: 0 });
        if (attempt === 0) {
          // the work takes longer than the transaction timeout: the server aborts it
          await until(async () => {
            const state = (await sluice.admin.describeTransaction(tid)).state;
            return state === "CompleteAbort" || state === "PrepareAbort";
          }, "the server to abort the transaction");
        }
      });
      attempts.push("committed");
      break;
    } catch (error) {
      if (!(error instanceof TransactionTimedOutError)) throw error;
      attempts.push("timed out");
    }
  }
  assert.deepEqual(attempts, ["timed out", "committed"]);
  assert.ok(producer.producerEpoch > firstEpoch);
  assert.deepEqual(await values(output), ["try1"]);
});

test("a newer instance fences the older one", async () => {
  const sluice = client();
  const output = fresh("fenced-out");
  const tid = fresh("tx");
  await sluice.admin.createTopic(output);
  const old = await sluice.transactionalProducer(tid);
  old.begin();
  await old.send(output, "zombie", { partition: 0 });
  await sluice.transactionalProducer(tid); // the new instance
  await assert.rejects(old.commit(), (e) => e instanceof ProducerFencedError && !e.retriable);
  assert.deepEqual(await values(output), []);
});

test("batches: transactional batches, a request per partition, all before the commit, none twice", async () => {
  const requests = [];
  const watching = async (url, init) => {
    const { pathname, searchParams } = new URL(String(url));
    requests.push({ path: pathname, tid: searchParams.get("transactional_id"), body: init.body });
    return fetch(url, init);
  };
  const sluice = client({ fetch: watching });
  const output = fresh("txn-batches");
  const tid = fresh("tx");
  await sluice.admin.createTopic(output, { partitions: 3 });
  const producer = await sluice.transactionalProducer(tid, { maxBatch: 3 });
  requests.length = 0;
  await producer.transaction(async (tx) => {
    // three partitions join the transaction (the third send fills maxBatch), then two more
    for (const p of [0, 1, 2, 0, 1]) await tx.send(output, `p${p}`, { partition: p });
  });
  const commit = requests.findIndex((r) => r.path.endsWith("/commit"));
  assert.equal(commit, requests.length - 1);
  assert.equal(JSON.parse(requests[commit].body).batches, undefined);
  // one request per batch: no partition's join was refused as concurrent with another's
  const sent = requests.slice(0, commit).map((r) => {
    assert.ok(r.path.endsWith("/batches") && r.tid === tid, r.path);
    const [b] = decodeBatches(r.body);
    assert.deepEqual([b.transactional, b.producerId, b.producerEpoch], [true, producer.producerId, producer.producerEpoch - 1]);
    return [Number(r.path.split("/").at(-2)), b.baseSequence];
  });
  assert.deepEqual(sent.sort(), [[0, 0], [0, 1], [1, 0], [1, 1], [2, 0]]);
  for (const p of [0, 1]) assert.deepEqual(await values(output, p), [`p${p}`, `p${p}`]);
});

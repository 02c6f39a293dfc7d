// Admin beyond topics: dead letters listed and redriven once, an empty group's offsets set,
// consumer groups, share groups and transactions described, against a real server. On a
// gateway (docs/kafka.md), a dead-letter topic without Kafka's prefix is refused by name and a
// share group made by its config alone is no group yet; the tests assert that there instead.

import assert from "node:assert/strict";
import { test } from "node:test";

import { GroupIdNotFoundError, UnknownMemberIdError } from "../src/index.js";
import { client, fresh, GATEWAY, readAll, unsupported } from "./helpers.js";

test("dead letters: listed with their source and reason, redriven once however often", async () => {
  const sluice = client();
  const [orders, dlq, group] = [fresh("orders"), fresh("orders-dlq"), fresh("billing")];
  await sluice.admin.createTopic(orders);
  await sluice.admin.createTopic(dlq);
  const config = { auto_offset_reset: "earliest", dead_letter_topic: dlq };
  if (GATEWAY) {
    // Kafka's dead-letter topics are named with its prefix (dlq.), and write Kafka's headers
    // rather than the ones this test reads: the name is refused, nothing set
    await assert.rejects(sluice.admin.alterShareGroupConfig(group, config), unsupported("dead_letter_topic_name"));
    return;
  }
  await sluice.admin.alterShareGroupConfig(group, config);
  const producer = sluice.producer({ linger: 0 });
  for (let i = 0; i < 3; i++) await producer.send(orders, `o${i}`, { partition: 0, headers: { trace: `t${i}` } });
  const consumer = sluice.shareConsumer(group, { acknowledgementMode: "explicit" });
  consumer.subscribe([orders]);
  const records = await consumer.poll(2000);
  assert.deepEqual(records.map((r) => r.text()), ["o0", "o1", "o2"]);
  for (const r of records) consumer.acknowledge(r, r.text() === "o1" ? "accept" : "reject");
  await consumer.commitSync();
  await consumer.close();
  const letters = await sluice.admin.deadLetters(group);
  assert.deepEqual(
    letters.map((l) => [l.source.topic, l.source.partition, l.source.offset, l.group, l.reason, l.deliveryCount]),
    [
      [orders, 0, 0, group, "rejected", 1],
      [orders, 0, 2, group, "rejected", 1],
    ],
  );
  assert.deepEqual(letters.map((l) => l.record.text()), ["o0", "o2"]);
  assert.deepEqual(letters[0].headers, [["trace", new TextEncoder().encode("t0")]]);
  const first = await sluice.admin.redrive(letters[0]);
  const again = await sluice.admin.redrive(letters[0]); // a retry, or a second click
  await sluice.admin.redrive(letters[1]);
  assert.deepEqual(first, again);
  const back = (await readAll(orders)).slice(3);
  assert.deepEqual(
    back.map((r) => [r.value, r.headers]),
    [
      ["o0", [{ key: "trace", value: "t0" }]],
      ["o2", [{ key: "trace", value: "t2" }]],
    ],
  );
  const plain = fresh("no-dlq");
  await sluice.admin.alterShareGroupConfig(plain, { auto_offset_reset: "earliest" });
  assert.deepEqual(await sluice.admin.deadLetters(plain), []);
  await assert.rejects(sluice.admin.deadLetters(fresh("unknown")), GroupIdNotFoundError);
});

test("an empty group's offsets are set by the admin; groups and transactions described", async () => {
  const sluice = client();
  const [events, group] = [fresh("events"), fresh("reporting")];
  await sluice.admin.createTopic(events, { partitions: 2 });
  await sluice.admin.commitGroupOffsets(group, [
    { topic: events, partition: 0, offset: 0 },
    { topic: events, partition: 1, offset: 0 },
  ]);
  const offsets = await sluice.admin.groupOffsets(group);
  assert.deepEqual(offsets.map((o) => [o.partition, o.offset]), [[0, 0], [1, 0]]);
  assert.ok((await sluice.admin.listGroups()).some((g) => g.group_id === group));
  assert.equal((await sluice.admin.describeGroup(group)).group_id, group);
  const heartbeat = await sluice.request("POST", `/v1/groups/${group}/heartbeat`, {
    body: { member_epoch: 0, subscribed_topics: [events] },
  });
  await assert.rejects(
    sluice.admin.commitGroupOffsets(group, [{ topic: events, partition: 0, offset: 5 }]),
    UnknownMemberIdError, // not while the group has a member
  );
  await sluice.request("POST", `/v1/groups/${group}/heartbeat`, {
    body: { member_id: heartbeat.member_id, member_epoch: -1 },
  });
  await sluice.admin.deleteGroup(group);
  assert.ok(!(await sluice.admin.listGroups()).some((g) => g.group_id === group));
  const tid = fresh("tx-admin");
  const producer = await sluice.transactionalProducer(tid);
  producer.begin();
  assert.equal((await sluice.admin.describeTransaction(tid)).state, "Empty");
  assert.ok((await sluice.admin.listTransactions()).some((t) => t.transactional_id === tid));
  const shareGroup = fresh("g");
  await sluice.admin.alterShareGroupConfig(shareGroup, { auto_offset_reset: "earliest" });
  if (GATEWAY) {
    // Kafka lists and describes a share group only once a member has joined it
    // (docs/kafka.md: share_group_by_config)
    await assert.rejects(sluice.admin.describeShareGroup(shareGroup), GroupIdNotFoundError);
    assert.ok(!(await sluice.admin.listShareGroups()).some((g) => g.group_id === shareGroup));
    return;
  }
  const preview = await sluice.admin.resetShareGroupOffsets(shareGroup, [{ topic: events, to: "latest" }], {
    dryRun: true,
  });
  assert.equal(preview.dry_run, true);
  assert.ok((await sluice.admin.listShareGroups()).some((g) => g.group_id === shareGroup));
  await sluice.admin.deleteShareGroup(shareGroup);
  await assert.rejects(sluice.admin.describeShareGroup(shareGroup), GroupIdNotFoundError);
});

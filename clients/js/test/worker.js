// A worker of the exactly-once test (share_consumer.test.js), run as its own process so that
// the test can kill it: records acquired from a share group, transformed, written by a
// transactional producer that also carries their acknowledgements.
//
//   node worker.js <url> <group> <input> <output> <name> <stop after n records>

import { Sluice, TransactionTimedOutError } from "../src/index.js";

const [url, group, input, output, name, stopAfter] = process.argv.slice(2);
const sluice = new Sluice({ url, backoffMs: 10 });
const consumer = sluice.shareConsumer(group, {
  maxRecords: 5,
  acknowledgementMode: "explicit",
  acquireMode: "record_limit",
});
consumer.subscribe([input]);
// maxBatch 1: every record is written at once, inside the open transaction
const producer = await sluice.transactionalProducer(`${group}-${name}`, {
  transactionTimeoutMs: 1500,
  maxBatch: 1,
});
let done = 0;
let idle = 0;
while (idle < 5) {
  // 2.5 s without records: longer than a dead member's locks
  const records = await consumer.poll(500);
  if (!records.length) {
    idle += 1;
    continue;
  }
  idle = 0;
  for (;;) {
    try {
      await producer.transaction(async (tx) => {
        for (const r of records) await tx.send(output, `thumb ${r.text()}`, { key: r.text() });
        if (done >= Number(stopAfter)) {
          process.stdout.write("in the middle\n");
          await new Promise(() => {}); // killed here: records written, not committed
        }
        tx.sendAcknowledgements(group, consumer.memberId, consumer.acknowledgements(records));
      });
      break;
    } catch (error) {
      if (!(error instanceof TransactionTimedOutError)) throw error;
    }
  }
  consumer.settled(records); // acknowledged by the commit
  done += records.length;
}
await consumer.close();

// Dead letters of a share group: the records its dead-letter topic holds for it, with the
// sluice.dlq.* headers the server added (docs/semantics.md, dead-letter topic), and their
// redrive: each selected record produced back to its source topic and partition, without those
// headers, after a confirmation. Each produce carries the Idempotency-Key
// redrive:<dlq topic>:<partition>:<offset>, and the body is built from the stored record alone,
// so a double click or a retry answers the first produce and appends nothing twice.

import { produce, readRecords } from "../api.js";
import { byId, h, setOptions, show } from "../dom.js";
import { count, textOf, timestamp } from "../format.js";
import { bytesCell } from "./bytes.js";
import { badge, empty, errorBox } from "./common.js";
import { confirmDialog } from "./confirm.js";

const DLQ_PREFIX = "sluice.dlq.";
// the newest records read per partition of the dead-letter topic
const PER_PARTITION = 200;

/** A dead-letter record: its sluice.dlq.* headers as text, and the headers it came with. */
export function deadLetter(record) {
  const dlq = {};
  const kept = [];
  for (const hd of record.headers ?? []) {
    if (hd.key.startsWith(DLQ_PREFIX)) dlq[hd.key.slice(DLQ_PREFIX.length)] = textOf(hd.value);
    else kept.push(hd);
  }
  return {
    record,
    source: {
      topic: dlq.topic ?? null,
      partition: dlq.partition === undefined ? null : Number(dlq.partition),
      offset: dlq.offset === undefined ? null : Number(dlq.offset),
    },
    group: dlq.group ?? null,
    reason: dlq.reason ?? null,
    deliveryCount: dlq.delivery_count ?? null,
    kept,
  };
}

/** The produce request that puts a dead letter back where it came from. */
export function redriveRequest(dlqTopic, letter) {
  const r = letter.record;
  return {
    topic: letter.source.topic,
    key: `redrive:${dlqTopic}:${r.partition}:${r.offset}`,
    body: {
      encoding: "base64",
      records: [
        {
          key: r.key,
          value: r.value,
          headers: letter.kept.map((hd) => ({ key: hd.key, value: hd.value })),
          partition: letter.source.partition,
        },
      ],
    },
  };
}

function rowId(letter) {
  return `${letter.record.partition}:${letter.record.offset}`;
}

export class DeadLettersView {
  constructor(store) {
    this.store = store;
    this.group = byId("dlq-group");
    this.meta = byId("dlq-meta");
    this.results = byId("dlq-results");
    this.redriveButton = byId("dlq-redrive");
    this.letters = [];
    this.dlqTopic = null;
    this.outcomes = new Map();
    byId("dlq-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.load();
    });
    this.redriveButton.addEventListener("click", () => this.redrive());
    this.group.addEventListener("change", () => this.clear());
    this.clear();
  }

  render(store, dirty) {
    if (!dirty.has("share_groups")) return;
    const withDlq = [...store.share_groups.values()]
      .filter((g) => g.config?.dead_letter_topic)
      .sort((a, b) => a.group_id.localeCompare(b.group_id));
    setOptions(
      this.group,
      withDlq.map((g) => ({
        value: g.group_id,
        label: `${g.group_id} → ${g.config.dead_letter_topic}`,
      })),
      withDlq.length ? null : "no group has a dead-letter topic",
    );
  }

  clear() {
    this.letters = [];
    this.meta.textContent = "";
    this.redriveButton.disabled = true;
    show(this.results, empty("Load the records a share group's dead-letter topic holds for it."));
  }

  async load() {
    const group = this.store.share_groups.get(this.group.value);
    const topicName = group?.config?.dead_letter_topic;
    const topic = topicName ? this.store.topics.get(topicName) : undefined;
    if (!group || !topic) {
      this.clear();
      show(this.results, empty("Pick a share group with a dead-letter topic."));
      return;
    }
    this.results.setAttribute("aria-busy", "true");
    try {
      const letters = [];
      for (const p of [...topic.partitions].sort((a, b) => a.partition - b.partition)) {
        const from = Math.max(p.log_start_offset, p.high_watermark - PER_PARTITION);
        if (from >= p.high_watermark) continue;
        const answer = await readRecords(topicName, p.partition, from, PER_PARTITION);
        for (const r of answer.records) {
          const letter = deadLetter(r);
          if (letter.group === group.group_id) letters.push(letter);
        }
      }
      this.dlqTopic = topicName;
      this.letters = letters;
      this.meta.textContent = `${count(letters.length)} dead letter${letters.length === 1 ? "" : "s"} of ${group.group_id} in ${topicName}`;
      this.draw();
    } catch (err) {
      show(this.results, errorBox(err));
    } finally {
      this.results.removeAttribute("aria-busy");
    }
  }

  draw() {
    if (this.letters.length === 0) {
      show(this.results, empty("No dead letters for this group."));
      this.redriveButton.disabled = true;
      return;
    }
    const selectAll = h("input", {
      type: "checkbox",
      "aria-label": "select all",
      onchange: (e) => {
        for (const box of this.results.querySelectorAll("tbody input[type=checkbox]")) {
          box.checked = e.target.checked;
        }
        this.updateButton();
      },
    });
    show(
      this.results,
      h(
        "table",
        { class: "data dead-letters" },
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            h("th", { class: "check" }, selectAll),
            h("th", { text: "Dead letter" }),
            h("th", { text: "Source" }),
            h("th", { text: "Reason" }),
            h("th", { class: "num", text: "Deliveries" }),
            h("th", { text: "Key" }),
            h("th", { text: "Value" }),
            h("th", { text: "Redrive" }),
          ),
        ),
        h(
          "tbody",
          null,
          this.letters.map((l) =>
            h(
              "tr",
              { dataset: { partition: l.record.partition, offset: l.record.offset } },
              h(
                "td",
                { class: "check" },
                h("input", {
                  type: "checkbox",
                  "aria-label": `select dead letter ${rowId(l)}`,
                  disabled: l.source.topic === null,
                  onchange: () => this.updateButton(),
                }),
              ),
              h(
                "td",
                { class: "mono", title: timestamp(l.record.timestamp) },
                `${l.record.partition}@${l.record.offset}`,
              ),
              h("td", {
                class: "mono source",
                text: `${l.source.topic ?? "?"}/${l.source.partition ?? "?"}@${l.source.offset ?? "?"}`,
              }),
              h("td", null, l.reason ? badge(l.reason) : "—"),
              h("td", { class: "num mono", text: l.deliveryCount ?? "—" }),
              h("td", { class: "key" }, bytesCell(l.record.key)),
              h("td", { class: "value" }, bytesCell(l.record.value)),
              h("td", { class: "outcome" }, this.outcome(l)),
            ),
          ),
        ),
      ),
    );
    this.updateButton();
  }

  outcome(letter) {
    const done = this.outcomes.get(`${this.dlqTopic}:${rowId(letter)}`);
    if (!done) return null;
    if (done.error) return h("span", { class: "bad", text: done.error.code });
    return h("span", { class: "good mono", text: `→ ${done.where}` });
  }

  chosen() {
    const rows = [...this.results.querySelectorAll("tbody tr")];
    return rows
      .filter((tr) => tr.querySelector("input[type=checkbox]")?.checked)
      .map((tr) => this.letters.find((l) => rowId(l) === `${tr.dataset.partition}:${tr.dataset.offset}`))
      .filter(Boolean);
  }

  updateButton() {
    const n = this.chosen().length;
    this.redriveButton.disabled = n === 0;
    this.redriveButton.textContent = n ? `Redrive ${n}…` : "Redrive…";
  }

  async redrive() {
    const letters = this.chosen();
    if (letters.length === 0) return;
    const plans = letters.map((l) => ({ letter: l, request: redriveRequest(this.dlqTopic, l) }));
    const ok = await confirmDialog({
      title: `Redrive ${letters.length} dead letter${letters.length === 1 ? "" : "s"}`,
      confirmLabel: `Produce ${letters.length} record${letters.length === 1 ? "" : "s"}`,
      body: [
        h(
          "p",
          null,
          "Each record is produced again to its source topic and partition, with its key, " +
            "value and own headers (the sluice.dlq.* headers are left out). It gets a new offset " +
            "and a fresh delivery count. A retry never produces it twice.",
        ),
        h(
          "table",
          { class: "data compact plan" },
          h(
            "thead",
            null,
            h(
              "tr",
              null,
              h("th", { text: "From" }),
              h("th", { text: "To" }),
              h("th", { text: "Key" }),
              h("th", { text: "Value" }),
              h("th", { text: "Idempotency-Key" }),
            ),
          ),
          h(
            "tbody",
            null,
            plans.map(({ letter, request }) =>
              h(
                "tr",
                { dataset: { key: request.key } },
                h("td", { class: "mono", text: `${this.dlqTopic}/${rowId(letter).replace(":", "@")}` }),
                h("td", { class: "mono", text: `${request.topic} / partition ${letter.source.partition}` }),
                h("td", { class: "key" }, bytesCell(letter.record.key)),
                h("td", { class: "value" }, bytesCell(letter.record.value)),
                h("td", { class: "mono small", text: request.key }),
              ),
            ),
          ),
        ),
      ],
    });
    if (!ok) return;
    this.redriveButton.disabled = true;
    this.meta.textContent = `redriving ${count(plans.length)}…`;
    let failed = 0;
    for (const { letter, request } of plans) {
      const id = `${this.dlqTopic}:${rowId(letter)}`;
      try {
        const answer = await produce(request.topic, request.body, request.key);
        const at = answer.offsets[0];
        this.outcomes.set(id, { where: `${request.topic}/${at.partition}@${at.offset}` });
      } catch (err) {
        failed += 1;
        this.outcomes.set(id, { error: err });
      }
    }
    this.draw();
    const done = plans.length - failed;
    this.meta.textContent = `redriven ${count(done)} of ${count(plans.length)}${failed ? ` · ${failed} failed` : ""}`;
    if (failed) {
      const first = plans.map((p) => this.outcomes.get(`${this.dlqTopic}:${rowId(p.letter)}`)).find((o) => o.error);
      this.results.prepend(errorBox(first.error));
    }
  }
}

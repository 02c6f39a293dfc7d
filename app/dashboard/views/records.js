// The record browser: pick a topic, partition and offset; read with
// GET /v1/topics/{t}/partitions/{p}/records?encoding=base64 and show offset, timestamp, key,
// value and headers.

import { readRecords } from "../api.js";
import { byId, h, setOptions, show } from "../dom.js";
import { count, timestamp } from "../format.js";
import { bytesCell, headersCell } from "./bytes.js";
import { empty, errorBox } from "./common.js";

export class RecordBrowserView {
  constructor(store) {
    this.store = store;
    this.topic = byId("rb-topic");
    this.partition = byId("rb-partition");
    this.offset = byId("rb-offset");
    this.max = byId("rb-max");
    this.meta = byId("rb-meta");
    this.results = byId("rb-results");
    this.next = null;
    byId("rb-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.read(Number(this.offset.value || 0));
    });
    byId("rb-earliest").addEventListener("click", () => {
      const p = this.selected();
      if (p) this.read(p.log_start_offset);
    });
    byId("rb-latest").addEventListener("click", () => {
      const p = this.selected();
      if (p) this.read(Math.max(p.log_start_offset, p.high_watermark - Number(this.max.value)));
    });
    this.nextButton = byId("rb-next");
    this.nextButton.addEventListener("click", () => {
      if (this.next !== null) this.read(this.next);
    });
    this.topic.addEventListener("change", () => this.fillPartitions());
    show(this.results, empty("Pick a topic, a partition and an offset, then Read."));
  }

  selected() {
    return this.store.partition(this.topic.value, Number(this.partition.value));
  }

  render(store, dirty) {
    if (!dirty.has("topics")) return;
    const names = [...store.topics.keys()].sort();
    setOptions(
      this.topic,
      names.map((n) => ({ value: n, label: n })),
      names.length ? null : "no topics",
    );
    this.fillPartitions();
  }

  fillPartitions() {
    const t = this.store.topics.get(this.topic.value);
    const parts = t ? [...t.partitions].sort((a, b) => a.partition - b.partition) : [];
    setOptions(
      this.partition,
      parts.map((p) => ({ value: String(p.partition), label: String(p.partition) })),
    );
  }

  async read(offset) {
    const topic = this.topic.value;
    const partition = Number(this.partition.value);
    if (!topic || Number.isNaN(partition)) return;
    this.offset.value = String(offset);
    this.results.setAttribute("aria-busy", "true");
    try {
      const answer = await readRecords(topic, partition, offset, Number(this.max.value));
      this.showAnswer(topic, partition, offset, answer);
    } catch (err) {
      this.next = null;
      this.nextButton.disabled = true;
      this.meta.textContent = `${topic}/${partition} from offset ${count(offset)}`;
      show(this.results, errorBox(err));
    } finally {
      this.results.removeAttribute("aria-busy");
    }
  }

  showAnswer(topic, partition, offset, answer) {
    const recs = answer.records;
    this.next = answer.next_offset < answer.high_watermark ? answer.next_offset : null;
    this.nextButton.disabled = this.next === null;
    const range = recs.length
      ? `offsets ${count(recs[0].offset)}–${count(recs[recs.length - 1].offset)}`
      : `nothing from ${count(offset)}`;
    this.meta.textContent =
      `${topic}/${partition} · ${range} · log ${count(answer.log_start_offset)}–` +
      `${count(answer.high_watermark)} · LSO ${count(answer.last_stable_offset)}`;
    if (recs.length === 0) {
      show(this.results, empty("No records at this offset yet."));
      return;
    }
    show(
      this.results,
      h(
        "table",
        { class: "data records" },
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            h("th", { class: "num", text: "Offset" }),
            h("th", { text: "Timestamp" }),
            h("th", { text: "Key" }),
            h("th", { text: "Value" }),
            h("th", { text: "Headers" }),
          ),
        ),
        h(
          "tbody",
          null,
          recs.map((r) =>
            h(
              "tr",
              { dataset: { offset: r.offset } },
              h("td", { class: "num mono offset", text: r.offset }),
              h("td", { class: "mono ts", text: timestamp(r.timestamp) }),
              h("td", { class: "key" }, bytesCell(r.key)),
              h("td", { class: "value" }, bytesCell(r.value)),
              h("td", { class: "hdrs" }, headersCell(r.headers)),
            ),
          ),
        ),
      ),
    );
  }
}

// Topics and partitions: log start, last stable offset and high watermark of each partition,
// and each topic's rate over the last five minutes.

import { sparkline } from "../charts.js";
import { byId, h, show } from "../dom.js";
import { count, rate } from "../format.js";
import { empty } from "./common.js";

export class TopicsView {
  constructor() {
    this.body = byId("topics-body");
    this.summary = byId("topics-summary");
  }

  render(store, dirty) {
    if (!dirty.has("topics") && !dirty.has("history")) return;
    const topics = [...store.topics.values()].sort((a, b) => a.topic.localeCompare(b.topic));
    const partitions = topics.reduce((n, t) => n + t.partitions.length, 0);
    this.summary.textContent = `${count(topics.length)} topics · ${count(partitions)} partitions`;
    if (topics.length === 0) {
      show(this.body, empty("No topics yet."));
      return;
    }
    const table = h(
      "table",
      { class: "data topics" },
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          h("th", { text: "Topic" }),
          h("th", { class: "num", text: "Part." }),
          h("th", { class: "num", text: "Log start" }),
          h("th", { class: "num", text: "LSO" }),
          h("th", { class: "num", text: "HW" }),
          h("th", { class: "rate-col", text: "Records/s · 5 min" }),
        ),
      ),
      topics.map((t) => this.topicRows(t, store)),
    );
    show(this.body, table);
  }

  topicRows(t, store) {
    const values = store.history.topics.get(t.topic) ?? [];
    const parts = [...t.partitions].sort((a, b) => a.partition - b.partition);
    const span = Math.max(1, parts.length);
    const rows = parts.map((p, i) =>
      h(
        "tr",
        { dataset: { partition: p.partition }, class: i === 0 ? "first" : null },
        i === 0
          ? h("td", { class: "topic-name", rowspan: span }, h("span", { text: t.topic }))
          : null,
        h("td", { class: "num mono", text: p.partition }),
        h("td", { class: "num mono log-start", text: count(p.log_start_offset) }),
        h("td", {
          class: ["num mono lso", p.last_stable_offset < p.high_watermark ? "behind" : null],
          text: count(p.last_stable_offset),
        }),
        h("td", { class: "num mono hw", text: count(p.high_watermark) }),
        i === 0
          ? h(
              "td",
              { class: "rate-col", rowspan: span },
              h(
                "div",
                { class: "rate-cell" },
                sparkline({ width: 110, height: 28, seconds: store.seconds, values, cls: "produce" }),
                h("span", { class: "mono rate-now", text: rate(t.rate) }),
              ),
            )
          : null,
      ),
    );
    return h("tbody", { dataset: { topic: t.topic } }, rows);
  }
}

// Share-group offset reset: POST /v1/share-groups/{g}/offsets with dry_run first, to show which
// start offsets would move where, then the same request for real after a confirmation. A reset
// needs an empty group; the NON_EMPTY_GROUP answer is shown with what to do about it.

import { resetShareOffsets } from "../api.js";
import { byId, h, setOptions, show } from "../dom.js";
import { count } from "../format.js";
import { empty, errorBox } from "./common.js";
import { confirmDialog } from "./confirm.js";

function target(kind, value) {
  if (kind === "earliest" || kind === "latest") return kind;
  // an empty field is sent as null, not 0: the server refuses it and the page shows why
  if (kind === "offset") return { offset: String(value).trim() === "" ? null : Number(value) };
  return { timestamp: new Date(value).getTime() };
}

function describeTarget(kind, value) {
  if (kind === "earliest") return "the log start";
  if (kind === "latest") return "the log end";
  if (kind === "offset") return `offset ${value}`;
  return `the first record at or after ${value}`;
}

export class ResetView {
  constructor(store) {
    this.store = store;
    this.group = byId("reset-group");
    this.topic = byId("reset-topic");
    this.partitions = byId("reset-partitions");
    this.to = byId("reset-to");
    this.value = byId("reset-value");
    this.results = byId("reset-results");
    this.apply = byId("reset-apply");
    this.plan = null;
    byId("reset-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.preview();
    });
    this.apply.addEventListener("click", () => this.execute());
    for (const el of [this.group, this.topic, this.partitions, this.to, this.value]) {
      el.addEventListener("input", () => this.invalidate());
    }
    this.group.addEventListener("change", () => this.fillTopics());
    this.to.addEventListener("change", () => this.fillValue());
    this.fillValue();
    show(
      this.results,
      empty("The preview shows where each start offset would move; nothing changes until you confirm."),
    );
  }

  render(store, dirty) {
    if (!dirty.has("share_groups") && !dirty.has("topics")) return;
    const names = [...store.share_groups.keys()].sort();
    setOptions(
      this.group,
      names.map((n) => ({ value: n, label: n })),
      names.length ? null : "no share groups",
    );
    this.fillTopics();
  }

  fillTopics() {
    const g = this.store.share_groups.get(this.group.value);
    const names = new Set((g?.partitions ?? []).map((p) => p.topic));
    for (const m of g?.members ?? []) for (const t of m.subscribed_topics ?? []) names.add(t);
    const known = [...names].filter((t) => this.store.topics.has(t)).sort();
    setOptions(this.topic, known.map((t) => ({ value: t, label: t })), known.length ? null : "—");
  }

  fillValue() {
    const kind = this.to.value;
    this.value.hidden = kind === "earliest" || kind === "latest";
    this.value.type = kind === "timestamp" ? "datetime-local" : "number";
    this.value.step = "1";
    this.value.min = "0";
    this.value.placeholder = kind === "offset" ? "offset" : "";
    this.value.value = "";
    this.invalidate();
  }

  /** Inputs changed since the preview: the plan no longer says what would happen. */
  invalidate() {
    this.plan = null;
    this.apply.disabled = true;
  }

  request(dryRun) {
    const raw = this.partitions.value.trim();
    const partitions = raw
      ? raw.split(/[\s,]+/).filter(Boolean).map((x) => Number(x))
      : null;
    return {
      topics: [{ topic: this.topic.value, partitions, to: target(this.to.value, this.value.value) }],
      dry_run: dryRun,
    };
  }

  async preview() {
    const group = this.group.value;
    if (!group || !this.topic.value) return;
    this.invalidate();
    const body = this.request(true);
    try {
      const answer = await resetShareOffsets(group, body);
      const before = this.startOffsets(group);
      this.plan = { group, body, answer, before, kind: this.to.value, value: this.value.value };
      show(this.results, this.planTable(group, answer, before));
      this.apply.disabled = false;
    } catch (err) {
      show(this.results, this.error(group, err));
    }
  }

  /** The group's share-partition start offsets now, by "topic/partition". */
  startOffsets(group) {
    const g = this.store.share_groups.get(group);
    return new Map((g?.partitions ?? []).map((sp) => [`${sp.topic}/${sp.partition}`, sp.start_offset]));
  }

  planTable(group, answer, starts) {
    const rows = [];
    for (const t of answer.topics) {
      for (const p of t.partitions) {
        const before = starts.get(`${t.topic}/${p.partition}`) ?? null;
        const delta = before === null ? null : p.start_offset - before;
        rows.push(
          h(
            "tr",
            { dataset: { topic: t.topic, partition: p.partition } },
            h("td", { class: "mono", text: `${t.topic}/${p.partition}` }),
            h("td", { class: "num mono before", text: before === null ? "—" : count(before) }),
            h("td", { class: "num mono after", text: count(p.start_offset) }),
            h("td", {
              class: ["num mono delta", delta > 0 ? "fwd" : delta < 0 ? "back" : null],
              text: delta === null ? "new" : delta === 0 ? "±0" : `${delta > 0 ? "+" : "−"}${count(Math.abs(delta))}`,
            }),
          ),
        );
      }
    }
    return h(
      "div",
      { class: ["plan", answer.dry_run ? "dry-run" : "done"] },
      h("p", {
        class: "plan-title",
        text: answer.dry_run
          ? `Dry run: the start offsets of ${group} would move as below. Nothing has changed yet.`
          : `Done: the start offsets of ${group} moved; in-flight state was discarded.`,
      }),
      rows.length
        ? h(
            "table",
            { class: "data compact" },
            h(
              "thead",
              null,
              h(
                "tr",
                null,
                h("th", { text: "Partition" }),
                h("th", { class: "num", text: "Start now" }),
                h("th", { class: "num", text: answer.dry_run ? "Start after" : "Start" }),
                h("th", { class: "num", text: "Change" }),
              ),
            ),
            h("tbody", null, rows),
          )
        : empty("No partitions."),
    );
  }

  error(group, err) {
    if (err.code !== "NON_EMPTY_GROUP") return errorBox(err);
    const g = this.store.share_groups.get(group);
    const members = (g?.members ?? []).map((m) => m.member_id);
    const who = members.length
      ? `It has ${members.length} member${members.length === 1 ? "" : "s"} (${members.join(", ")}).`
      : "Records are still held by an open transaction.";
    return errorBox(
      err,
      `A reset needs an empty group. ${who} Stop its consumers (or remove them), then preview again.`,
    );
  }

  async execute() {
    const plan = this.plan;
    if (!plan) return;
    const ok = await confirmDialog({
      title: `Reset the start offsets of ${plan.group}`,
      confirmLabel: "Reset offsets",
      danger: true,
      body: [
        h("p", {
          text:
            `Move the share-partition start offsets of ${plan.group} to ` +
            `${describeTarget(plan.kind, plan.value)}. In-flight records are forgotten: ` +
            "records before the new start are never delivered, records after it are delivered again.",
        }),
        this.planTable(plan.group, plan.answer, plan.before),
      ],
    });
    if (!ok) return;
    this.apply.disabled = true;
    try {
      const answer = await resetShareOffsets(plan.group, { ...plan.body, dry_run: false });
      show(this.results, this.planTable(plan.group, answer, plan.before));
    } catch (err) {
      show(this.results, this.error(plan.group, err));
    }
    this.plan = null;
  }
}

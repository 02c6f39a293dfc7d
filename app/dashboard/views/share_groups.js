// Share groups: members, config, and each share partition's in-flight window drawn as in
// KIP-932: a bar from the start offset (SPSO) to the end offset (SPEO), each run of records
// coloured by state, then the records of the partition not fetched yet. Hovering a run shows its
// delivery count, owner and the time left on its lock.

import { byId, h, s, show } from "../dom.js";
import { count, countdown, duration } from "../format.js";
import { badge, empty, stat } from "./common.js";

const RUN_STATES = ["available", "acquired", "acknowledged", "archived"];

// share of the bar given to the records after SPEO when there are any
const TAIL_SHARE = 0.2;

function offsets(first, last) {
  return first === last ? `offset ${count(first)}` : `offsets ${count(first)}–${count(last)}`;
}

export function registerTips(tooltip, store) {
  tooltip.register("run", (el) => {
    const d = el.dataset;
    const first = Number(d.first);
    const last = Number(d.last);
    const rows = [
      ["state", d.state],
      ["records", count(last - first + 1)],
      ["delivery count", d.deliveryCount],
    ];
    if (d.member) rows.push(["member", d.member]);
    if (d.lockExpiresAt) {
      const left = Number(d.lockExpiresAt) - store.now();
      rows.push(["lock", left > 0 ? `expires in ${countdown(left)}` : "expiring"]);
    } else if (d.state === "acquired") {
      // held by a transactional acknowledgement: the lock waits for the transaction's end
      rows.push(["lock", "suspended until its transaction ends"]);
    }
    return { title: `${d.partitionName} · ${offsets(first, last)}`, rows };
  });
  tooltip.register("tail", (el) => {
    const d = el.dataset;
    return {
      title: `${d.partitionName} · ${offsets(Number(d.first), Number(d.last))}`,
      rows: [
        ["state", "not fetched yet"],
        ["records", count(Number(d.last) - Number(d.first) + 1)],
      ],
    };
  });
  tooltip.register("truncated", (el) => ({
    title: `${el.dataset.partitionName} · from offset ${count(Number(el.dataset.first))}`,
    rows: [["runs", "not sent by the feed (too many runs)"]],
  }));
}

function windowBar(group, sp, store) {
  const name = `${sp.topic}/${sp.partition}`;
  const log = store.partition(sp.topic, sp.partition);
  const readCommitted = group.config?.isolation_level === "read_committed";
  // null on the Kafka backend, which does not show where a share partition's window ends: the
  // bar then runs from the start offset to the log's end
  const known = sp.end_offset !== null && sp.end_offset !== undefined;
  const start = sp.start_offset;
  const end = known ? sp.end_offset : start;
  const logEnd = log ? (readCommitted ? log.last_stable_offset : log.high_watermark) : end;
  const span = Math.max(0, end - start);
  const tail = Math.max(0, logEnd - end);
  const tailUnits = tail > 0 ? (span > 0 ? (span * TAIL_SHARE) / (1 - TAIL_SHARE) : 1) : 0;
  const total = span + tailUnits || 1;
  const minUnits = total / 450; // a run of one record stays visible (about 2 px)
  const bar = s("svg", {
    class: "window-bar",
    viewBox: `0 0 ${total} 10`,
    preserveAspectRatio: "none",
    role: "img",
    "aria-label": `in-flight window of ${name}: offsets ${start} to ${end}`,
  });
  if (span > 0) {
    bar.append(s("rect", { class: "window-bg", x: 0, y: 0, width: span, height: 10 }));
  }
  let covered = start;
  for (const run of sp.runs ?? []) {
    const x = run.first - start;
    const width = Math.max(minUnits, run.last - run.first + 1);
    covered = Math.max(covered, run.last + 1);
    bar.append(
      s("rect", {
        class: ["run", run.state],
        x,
        y: 0,
        width,
        height: 10,
        dataset: {
          tip: "run",
          partitionName: name,
          first: run.first,
          last: run.last,
          state: run.state,
          deliveryCount: run.delivery_count,
          member: run.member_id,
          lockExpiresAt: run.lock_expires_at,
        },
      }),
    );
  }
  if (sp.runs_truncated && covered < end) {
    bar.append(
      s("rect", {
        class: "truncated",
        x: covered - start,
        y: 0,
        width: end - covered,
        height: 10,
        dataset: { tip: "truncated", partitionName: name, first: covered },
      }),
    );
  }
  if (tail > 0) {
    bar.append(
      s("rect", {
        class: "tail",
        x: span,
        y: 0,
        width: tailUnits,
        height: 10,
        dataset: { tip: "tail", partitionName: name, first: end, last: logEnd - 1 },
      }),
    );
  }
  const boundary = `${((span / total) * 100).toFixed(2)}%`;
  const marks = h(
    "div",
    { class: "window-marks mono" },
    span > 0
      ? [
          h("span", { class: "mark spso", text: `SPSO ${count(start)}` }),
          h("span", {
            class: ["mark speo", tail > 0 ? "inner" : null],
            style: tail > 0 ? { left: boundary } : null,
            text: `SPEO ${count(end)}`,
          }),
        ]
      : h("span", {
          class: "mark spso",
          text: known ? `SPSO = SPEO ${count(start)}` : `SPSO ${count(start)}`,
        }),
    tail > 0
      ? h("span", { class: "mark log-end", text: `+${count(tail)} to ${count(logEnd)}` })
      : null,
  );
  return h("div", { class: "window" }, bar, marks);
}

function partitionRow(group, sp, store) {
  return h(
    "div",
    {
      class: "share-partition",
      dataset: {
        topic: sp.topic,
        partition: sp.partition,
        start: sp.start_offset,
        end: sp.end_offset,
      },
    },
    h(
      "div",
      { class: "sp-head" },
      h("span", { class: "sp-name mono", text: `${sp.topic}/${sp.partition}` }),
      h(
        "span",
        { class: "sp-counts" },
        RUN_STATES.map((st) => stat(st, count(sp[st]), st)),
        sp.delivery_limit_archived > 0
          ? stat("at delivery limit", count(sp.delivery_limit_archived), "at-limit")
          : null,
        stat("lag", count(sp.lag), "lag"),
      ),
    ),
    windowBar(group, sp, store),
  );
}

function configChips(config) {
  if (!config) return null;
  return h(
    "div",
    { class: "chips" },
    h("span", { class: "chip", text: `lock ${duration(config.record_lock_duration_ms)}` }),
    h("span", { class: "chip", text: `delivery limit ${config.delivery_count_limit}` }),
    h("span", {
      class: ["chip", config.dead_letter_topic ? "dlq" : "muted"],
      text: config.dead_letter_topic ? `DLQ ${config.dead_letter_topic}` : "no DLQ",
    }),
    h("span", { class: "chip", text: config.isolation_level }),
  );
}

function memberList(group, store) {
  const members = [...(group.members ?? [])].sort((a, b) => a.member_id.localeCompare(b.member_id));
  if (members.length === 0) return h("div", { class: "members none", text: "no members" });
  return h(
    "ul",
    { class: "members" },
    members.map((m) =>
      h(
        "li",
        { class: "member", dataset: { member: m.member_id } },
        h("span", { class: "member-id mono", text: m.member_id }),
        h("span", { class: "member-topics", text: (m.subscribed_topics ?? []).join(", ") }),
        // -1 on the Kafka backend, which keeps no time a member was last seen
        m.last_seen_ms >= 0
          ? h("span", {
              class: "member-seen",
              dataset: { lastSeen: m.last_seen_ms },
              text: `seen ${countdown(store.now() - m.last_seen_ms)} ago`,
            })
          : null,
      ),
    ),
  );
}

export class ShareGroupsView {
  constructor() {
    this.body = byId("share-groups-body");
    this.summary = byId("share-groups-summary");
  }

  render(store, dirty) {
    if (!dirty.has("share_groups") && !dirty.has("topics")) return;
    const groups = [...store.share_groups.values()].sort((a, b) =>
      a.group_id.localeCompare(b.group_id),
    );
    this.summary.textContent = `${count(groups.length)} group${groups.length === 1 ? "" : "s"}`;
    if (groups.length === 0) {
      show(this.body, empty("No share groups yet."));
      return;
    }
    show(
      this.body,
      groups.map((g) => {
        const parts = [...(g.partitions ?? [])].sort(
          (a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition,
        );
        return h(
          "article",
          { class: "share-group", dataset: { group: g.group_id } },
          h(
            "header",
            { class: "card-head" },
            h("h3", { class: "mono", text: g.group_id }),
            badge(g.state),
            h("span", { class: "muted", text: `epoch ${g.group_epoch}` }),
            configChips(g.config),
          ),
          memberList(g, store),
          parts.length
            ? h("div", { class: "share-partitions" }, parts.map((sp) => partitionRow(g, sp, store)))
            : empty("Nothing fetched yet."),
        );
      }),
    );
  }

  tick(store) {
    for (const el of this.body.querySelectorAll(".member-seen")) {
      const seen = Number(el.dataset.lastSeen);
      el.textContent = `seen ${countdown(store.now() - seen)} ago`;
    }
  }
}

// Consumer groups: state, epoch, members, and the committed offset and lag of each partition.

import { byId, h, show } from "../dom.js";
import { count } from "../format.js";
import { badge, empty } from "./common.js";

export class GroupsView {
  constructor() {
    this.body = byId("groups-body");
    this.summary = byId("groups-summary");
  }

  render(store, dirty) {
    if (!dirty.has("groups")) return;
    const groups = [...store.groups.values()].sort((a, b) => a.group_id.localeCompare(b.group_id));
    const totalLag = groups.reduce(
      (n, g) => n + (g.offsets ?? []).reduce((m, o) => m + Math.max(0, o.lag), 0),
      0,
    );
    this.summary.textContent = groups.length
      ? `${count(groups.length)} · lag ${count(totalLag)}`
      : "";
    if (groups.length === 0) {
      show(this.body, empty("No consumer groups yet."));
      return;
    }
    show(this.body, groups.map((g) => this.group(g)));
  }

  group(g) {
    const offsets = [...(g.offsets ?? [])].sort(
      (a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition,
    );
    const maxLag = Math.max(1, ...offsets.map((o) => o.lag));
    const lag = offsets.reduce((n, o) => n + Math.max(0, o.lag), 0);
    return h(
      "article",
      { class: "group", dataset: { group: g.group_id } },
      h(
        "header",
        { class: "card-head" },
        h("h3", { class: "mono", text: g.group_id }),
        badge(g.state),
        h("span", { class: "muted", text: `epoch ${g.group_epoch}` }),
        h("span", { class: "muted", text: `${count(g.members)} member${g.members === 1 ? "" : "s"}` }),
        h("span", { class: "group-lag", text: `lag ${count(lag)}` }),
      ),
      offsets.length
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
                h("th", { class: "num", text: "Committed" }),
                h("th", { class: "num", text: "Lag" }),
                h("th", { class: "bar-col" }),
              ),
            ),
            h(
              "tbody",
              null,
              offsets.map((o) =>
                h(
                  "tr",
                  { dataset: { topic: o.topic, partition: o.partition } },
                  h("td", { class: "mono", text: `${o.topic}/${o.partition}` }),
                  h("td", { class: "num mono offset", text: count(o.offset) }),
                  h("td", { class: ["num mono lag", o.lag > 0 ? "lagging" : null], text: count(o.lag) }),
                  h(
                    "td",
                    { class: "bar-col" },
                    h(
                      "div",
                      { class: "lag-bar" },
                      h("i", { style: { width: `${(Math.max(0, o.lag) / maxLag) * 100}%` } }),
                    ),
                  ),
                ),
              ),
            ),
          )
        : empty("No committed offsets."),
    );
  }
}

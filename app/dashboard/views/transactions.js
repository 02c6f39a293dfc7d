// Open transactions: producer id and epoch, state, partitions written, and the time left before
// the server aborts them, counting down between messages of the feed.

import { byId, h, show } from "../dom.js";
import { count, countdown } from "../format.js";
import { badge, empty } from "./common.js";

// a transactional id with no transaction under way: nothing to watch
const IDLE = new Set(["Empty", "CompleteCommit", "CompleteAbort", "Dead"]);

export class TransactionsView {
  constructor() {
    this.body = byId("transactions-body");
    this.summary = byId("transactions-summary");
  }

  render(store, dirty) {
    if (!dirty.has("transactions")) return;
    const open = [...store.transactions.values()]
      .filter((t) => !IDLE.has(t.state))
      .sort((a, b) => (a.deadline ?? Infinity) - (b.deadline ?? Infinity));
    this.summary.textContent = open.length ? `${count(open.length)} open` : "";
    if (open.length === 0) {
      show(this.body, empty("No open transactions."));
      return;
    }
    show(
      this.body,
      h(
        "table",
        { class: "data compact transactions" },
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            h("th", { text: "Transactional id" }),
            h("th", { text: "Producer" }),
            h("th", { text: "State" }),
            h("th", { class: "num", text: "Part." }),
            h("th", { class: "time-col", text: "Time left" }),
          ),
        ),
        h(
          "tbody",
          null,
          open.map((t) =>
            h(
              "tr",
              { dataset: { tid: t.transactional_id } },
              h("td", { class: "mono tid", text: t.transactional_id }),
              h("td", { class: "mono muted", text: `${t.producer_id} · e${t.producer_epoch}` }),
              h("td", null, badge(t.state)),
              h("td", { class: "num mono", text: count(t.partitions) }),
              h(
                "td",
                {
                  class: "time-col",
                  dataset: { deadline: t.deadline, timeout: t.timeout_ms },
                },
                h("span", { class: "mono time-left" }),
                h("div", { class: "time-bar" }, h("i")),
              ),
            ),
          ),
        ),
      ),
    );
    this.tick(store);
  }

  /** Count down: each row's time left from its deadline in server time. */
  tick(store) {
    const now = store.now();
    for (const cell of this.body.querySelectorAll("td.time-col[data-deadline]")) {
      const left = Math.max(0, Number(cell.dataset.deadline) - now);
      const timeout = Number(cell.dataset.timeout) || 1;
      cell.querySelector(".time-left").textContent = countdown(left);
      cell.dataset.left = String(Math.round(left));
      cell.classList.toggle("urgent", left < Math.min(10_000, timeout * 0.2));
      cell.querySelector(".time-bar i").style.setProperty("width", `${Math.min(100, (left / timeout) * 100)}%`);
    }
  }
}

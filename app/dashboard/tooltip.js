// One floating tooltip for the page. Elements carry data-tip="<kind>" and data attributes; the
// describer registered for the kind turns them into a title and rows. The content is redrawn
// while the pointer rests, so countdowns in it keep counting and a redrawn panel keeps it.

import { h, show } from "./dom.js";

export class Tooltip {
  constructor(el) {
    this.el = el;
    this.pointer = null;
    this.describers = new Map();
  }

  /** describe(el) → {title, rows: [[label, value], …]} */
  register(kind, describe) {
    this.describers.set(kind, describe);
  }

  bind(root) {
    root.addEventListener("mousemove", (e) => {
      this.pointer = { x: e.clientX, y: e.clientY };
      this.update(e.target);
    });
    root.addEventListener("mouseleave", () => {
      this.pointer = null;
      this.hide();
    });
  }

  /** Redraw for whatever is under the pointer now (after a panel was redrawn, or each tick). */
  refresh() {
    if (this.pointer === null) return;
    this.update(document.elementFromPoint(this.pointer.x, this.pointer.y));
  }

  update(target) {
    const el = target instanceof Element ? target.closest("[data-tip]") : null;
    const describe = el ? this.describers.get(el.dataset.tip) : undefined;
    if (!describe) {
      this.hide();
      return;
    }
    const { title, rows } = describe(el);
    show(
      this.el,
      h("div", { class: "tip-title", text: title }),
      h(
        "dl",
        { class: "tip-rows" },
        rows.map(([label, value]) => [h("dt", { text: label }), h("dd", { text: value })]),
      ),
    );
    this.el.hidden = false;
    const pad = 14;
    const { innerWidth: vw, innerHeight: vh } = window;
    const box = this.el.getBoundingClientRect();
    let x = this.pointer.x + pad;
    let y = this.pointer.y + pad;
    if (x + box.width > vw - 4) x = Math.max(4, this.pointer.x - pad - box.width);
    if (y + box.height > vh - 4) y = Math.max(4, this.pointer.y - pad - box.height);
    this.el.style.setProperty("left", `${x}px`);
    this.el.style.setProperty("top", `${y}px`);
  }

  hide() {
    this.el.hidden = true;
  }
}

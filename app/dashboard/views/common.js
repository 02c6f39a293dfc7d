// Pieces several panels share: state badges, empty notes, the error box, small stats.

import { h } from "../dom.js";

/** A state as a coloured badge; the state string picks the colour (see app.css). */
export function badge(state) {
  return h("span", {
    class: "badge",
    dataset: { state: String(state).toLowerCase() },
    text: state,
  });
}

export function empty(text) {
  return h("p", { class: "empty", text });
}

/** An API error (or any error) as the page shows it: its code, then its message. */
export function errorBox(err, hint) {
  return h(
    "div",
    { class: "error", role: "alert", dataset: { code: err.code ?? "ERROR" } },
    h("strong", { class: "error-code", text: err.code ?? "Error" }),
    err.status ? h("span", { class: "error-status", text: ` HTTP ${err.status}` }) : null,
    h("div", { class: "error-message", text: err.message }),
    hint ? h("div", { class: "error-hint", text: hint }) : null,
  );
}

/** A number with its label after it: "12 acquired". */
export function stat(label, value, cls) {
  return h(
    "span",
    { class: ["stat", cls], dataset: { stat: cls } },
    h("span", { class: "stat-value", text: value }),
    h("span", { class: "stat-label", text: ` ${label}` }),
  );
}

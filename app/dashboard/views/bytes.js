// Keys, values and headers as the record views show them: printable UTF-8 as text, anything
// else as hex, always as text nodes.

import { h } from "../dom.js";
import { count, showBytes } from "../format.js";

const MAX_TEXT = 2000;

export function bytesCell(b64, cls) {
  const shown = showBytes(b64);
  const text =
    shown.kind === "text" && shown.text.length > MAX_TEXT
      ? `${shown.text.slice(0, MAX_TEXT)} … (${count(shown.size)} bytes)`
      : shown.text;
  return h(
    "div",
    { class: ["bytes", shown.kind, cls], dataset: { kind: shown.kind } },
    shown.kind === "hex" ? h("span", { class: "enc", text: `hex · ${count(shown.size)} B` }) : null,
    h("span", { class: "content", text }),
  );
}

export function headersCell(headers) {
  if (!headers || headers.length === 0) return h("span", { class: "muted", text: "—" });
  return h(
    "ul",
    { class: "headers" },
    headers.map((hd) =>
      h("li", null, h("span", { class: "header-key", text: hd.key }), bytesCell(hd.value, "header-value")),
    ),
  );
}

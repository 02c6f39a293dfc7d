// The confirmation step before a change: a modal dialog saying exactly what will happen.

import { byId, show } from "../dom.js";

/** Resolves true when the operator confirms, false on cancel or Escape. */
export function confirmDialog({ title, body, confirmLabel, danger = false }) {
  const dialog = byId("confirm");
  const ok = byId("confirm-ok");
  const cancel = byId("confirm-cancel");
  byId("confirm-title").textContent = title;
  show(byId("confirm-body"), body);
  ok.textContent = confirmLabel;
  ok.classList.toggle("danger", danger);
  return new Promise((resolve) => {
    const done = (answer) => {
      ok.onclick = null;
      cancel.onclick = null;
      dialog.oncancel = null;
      dialog.close();
      resolve(answer);
    };
    ok.onclick = () => done(true);
    cancel.onclick = () => done(false);
    dialog.oncancel = (e) => {
      e.preventDefault();
      done(false);
    };
    dialog.showModal();
    cancel.focus();
  });
}

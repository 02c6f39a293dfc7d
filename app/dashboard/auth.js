// The API key, when the server requires one (docs/security.md): kept in sessionStorage (gone
// when the tab closes), sent as "Authorization: Bearer" on fetches and as the subprotocol
// "sluice.bearer.<key>" (next to "sluice") on the feed's WebSocket. A small form asks for it
// when GET v1/auth/whoami or any call answers 401.

const STORAGE_KEY = "sluice.apiKey";

export function apiKey() {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

function storeKey(key) {
  try {
    if (key) sessionStorage.setItem(STORAGE_KEY, key);
    else sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // storage refused (private mode): the key lives as long as this page
  }
  memoryKey = key;
}

let memoryKey = null;

/** The key the page has now (null without one). */
export function currentKey() {
  return apiKey() ?? memoryKey;
}

/** Headers that carry the key, if there is one. */
export function authHeaders() {
  const key = currentKey();
  return key ? { Authorization: `Bearer ${key}` } : {};
}

/** Subprotocols of the feed's socket: the key rides in one; the server selects "sluice". */
export function feedProtocols() {
  const key = currentKey();
  return key ? ["sluice", `sluice.bearer.${key}`] : ["sluice"];
}

/** GET v1/auth/whoami with `key` (or none): {status, body}; status 0 when there is no answer. */
export async function whoami(key) {
  const headers = { Accept: "application/json" };
  if (key) headers.Authorization = `Bearer ${key}`;
  try {
    const res = await fetch(new URL("v1/auth/whoami", document.baseURI), { headers });
    return { status: res.status, body: res.ok ? await res.json() : null };
  } catch {
    return { status: 0, body: null };
  }
}

export const MESSAGES = {
  required: "This server requires an API key.",
  refused: "That key was refused: it is unknown or revoked.",
  revoked: "The key was refused (revoked?). Enter another one.",
};

/** The key form (#auth): shown until a key the server accepts is entered. */
export class KeyPrompt {
  constructor(doc = document) {
    this.root = doc.getElementById("auth");
    this.form = doc.getElementById("auth-form");
    this.input = doc.getElementById("auth-key");
    this.message = doc.getElementById("auth-message");
    this.who = doc.getElementById("auth-who");
    this.waiting = null;
    this.form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.submit();
    });
  }

  /** Resolves once a key the server accepts is stored. One form at a time. */
  ask(message) {
    this.message.textContent = message;
    this.root.hidden = false;
    document.body.dataset.auth = "required";
    this.input.focus();
    if (this.waiting === null) {
      this.waiting = new Promise((resolve) => {
        this.resolve = resolve;
      });
    }
    return this.waiting;
  }

  async submit() {
    const key = this.input.value.trim();
    if (!key) {
      this.message.textContent = MESSAGES.required;
      return;
    }
    const answer = await whoami(key);
    if (answer.status === 401) {
      this.message.textContent = MESSAGES.refused;
      this.input.select();
      return;
    }
    if (answer.status !== 200) {
      this.message.textContent = "The server did not answer; try again.";
      return;
    }
    storeKey(key);
    this.input.value = "";
    this.root.hidden = true;
    document.body.dataset.auth = "ok";
    this.showWho(answer.body);
    const resolve = this.resolve;
    this.waiting = null;
    resolve();
  }

  showWho(body) {
    this.who.textContent = body?.principal ? body.principal : "";
  }
}

/** Make sure the page holds a key the server accepts (or that none is needed). */
export async function ensureKey(prompt, message = null) {
  const key = currentKey();
  const answer = await whoami(key);
  if (answer.status === 401) {
    storeKey(null);
    await prompt.ask(message ?? (key ? MESSAGES.revoked : MESSAGES.required));
    return;
  }
  document.body.dataset.auth = answer.body?.keys_required ? "ok" : "none";
  prompt.showWho(answer.body);
}

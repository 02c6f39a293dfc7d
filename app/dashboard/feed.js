// The live feed, GET /v1/events over a WebSocket: a snapshot first, then events. A lost
// connection is retried with exponential back-off (with jitter, capped); a new snapshot starts
// the back-off again. The socket carries the API key as a subprotocol (auth.js); a socket
// refused or closed for its key (1008) asks `authorize` before trying again.

export const BASE_DELAY_MS = 500;
export const MAX_DELAY_MS = 15_000;

export function feedUrl() {
  const url = new URL("v1/events", document.baseURI);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.href;
}

export class Feed {
  /**
   * onMessage(msg) gets every parsed message; onStatus({state, retryAt, attempt}) every change of
   * state: "connecting", "live" (a snapshot arrived), "reconnecting" (retryAt: when).
   */
  constructor(url, { onMessage, onStatus, protocols = () => [], authorize = null }) {
    this.url = url;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.protocols = protocols;
    this.authorize = authorize;
    this.ws = null;
    this.timer = null;
    this.attempt = 0;
    this.status = { state: "connecting", retryAt: null, attempt: 0 };
  }

  start() {
    this.connect();
  }

  /** Try again now instead of waiting for the back-off. */
  retryNow() {
    if (this.ws !== null) return;
    clearTimeout(this.timer);
    this.connect();
  }

  connect() {
    this.timer = null;
    this.setStatus("connecting");
    let ws;
    try {
      ws = new WebSocket(this.url, this.protocols());
    } catch (e) {
      console.warn("feed: cannot open", e);
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    let opened = false;
    ws.addEventListener("open", () => {
      opened = true;
    });
    ws.addEventListener("message", (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        console.warn("feed: a message that is not JSON was ignored");
        return;
      }
      if (msg.type === "snapshot") {
        this.attempt = 0;
        this.setStatus("live");
      }
      this.onMessage(msg);
    });
    ws.addEventListener("close", (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.authorize !== null && (!opened || ev.code === 1008)) {
        // perhaps the key: once the page holds one the server accepts, try again at once
        this.setStatus("connecting");
        this.authorize(ev.reason).then((asked) => {
          if (asked) {
            this.attempt = 0;
            this.connect();
          } else {
            this.scheduleRetry();
          }
        });
        return;
      }
      this.scheduleRetry();
    });
  }

  scheduleRetry() {
    const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** this.attempt);
    const delay = ceiling * (0.75 + Math.random() * 0.25);
    this.attempt += 1;
    this.setStatus("reconnecting", Date.now() + delay);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  setStatus(state, retryAt = null) {
    this.status = { state, retryAt, attempt: this.attempt };
    this.onStatus(this.status);
  }
}

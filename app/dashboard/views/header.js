// The header: server version, uptime, whole-server rates and the state of the feed.

import { byId } from "../dom.js";
import { countdown, rate, uptime } from "../format.js";

const LABELS = { connecting: "connecting…", live: "live", reconnecting: "reconnecting" };

export class HeaderView {
  constructor(feedControl) {
    this.version = byId("server-version");
    this.uptime = byId("uptime");
    this.produce = byId("rate-produce");
    this.consume = byId("rate-consume");
    this.status = byId("feed-status");
    this.statusLabel = byId("feed-status-label");
    this.retry = byId("feed-retry");
    this.retry.addEventListener("click", () => feedControl.retryNow());
    this.feedStatus = { state: "connecting", retryAt: null };
  }

  render(store, dirty) {
    if (dirty.has("server") && store.server) {
      this.version.textContent = `v${store.server.version}`;
    }
    if (dirty.has("rates")) {
      this.produce.textContent = rate(store.rates.produce);
      this.consume.textContent = rate(store.rates.consume);
    }
    this.tick(store);
  }

  setFeedStatus(status) {
    this.feedStatus = status;
    this.status.dataset.state = status.state;
    document.body.dataset.feed = status.state;
    this.tick(null);
  }

  tick(store) {
    if (store?.server) this.uptime.textContent = uptime(store.now() - store.server.started_at);
    const st = this.feedStatus;
    let label = LABELS[st.state] ?? st.state;
    if (st.state === "reconnecting" && st.retryAt !== null) {
      label = `reconnecting in ${countdown(st.retryAt - Date.now())}`;
    }
    this.statusLabel.textContent = label;
    this.retry.hidden = st.state !== "reconnecting";
  }
}

// The dashboard: one store fed by the live feed, panels drawn from it, and the record browser,
// dead-letter redrive and offset reset calling the HTTP API.

import { setUnauthorizedHandler } from "./api.js";
import { KeyPrompt, MESSAGES, ensureKey, feedProtocols, whoami, apiKey } from "./auth.js";
import { byId } from "./dom.js";
import { Feed, feedUrl } from "./feed.js";
import { Store } from "./store.js";
import { Tooltip } from "./tooltip.js";
import { DeadLettersView } from "./views/dead_letters.js";
import { GroupsView } from "./views/groups.js";
import { HeaderView } from "./views/header.js";
import { RecordBrowserView } from "./views/records.js";
import { ResetView } from "./views/reset.js";
import { ShareGroupsView, registerTips } from "./views/share_groups.js";
import { ThroughputView } from "./views/throughput.js";
import { TopicsView } from "./views/topics.js";
import { TransactionsView } from "./views/transactions.js";

const TICK_MS = 250;

const store = new Store();
const tooltip = new Tooltip(byId("tooltip"));
registerTips(tooltip, store);
tooltip.bind(document.body);

let feed = null;
const header = new HeaderView({ retryNow: () => feed?.retryNow() });
const shareGroups = new ShareGroupsView();
const transactions = new TransactionsView();
const views = [
  header,
  new ThroughputView(),
  new TopicsView(),
  shareGroups,
  new GroupsView(),
  transactions,
  new RecordBrowserView(store),
  new DeadLettersView(store),
  new ResetView(store),
];

let drawPending = false;

function draw() {
  drawPending = false;
  const dirty = store.takeDirty();
  if (dirty.size === 0) return;
  for (const view of views) {
    try {
      view.render(store, dirty);
    } catch (err) {
      console.error("dashboard: a panel failed to draw", err);
    }
  }
  tooltip.refresh();
}

function scheduleDraw() {
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(draw);
}

const prompt = new KeyPrompt();
setUnauthorizedHandler(() => {
  prompt.ask(MESSAGES.revoked);
});

/** After the feed was refused or closed for its key: true once a (new) key was entered. */
async function authorize(reason) {
  const answer = await whoami(apiKey());
  if (answer.status !== 401) return false; // not the key: the usual back-off
  await ensureKey(prompt, reason === "key revoked" ? MESSAGES.revoked : null);
  return true;
}

feed = new Feed(feedUrl(), {
  onMessage(msg) {
    store.apply(msg);
    scheduleDraw();
  },
  onStatus(status) {
    header.setFeedStatus(status);
  },
  protocols: feedProtocols,
  authorize,
});
ensureKey(prompt).then(() => feed.start());

setInterval(() => {
  header.tick(store);
  transactions.tick(store);
  shareGroups.tick(store);
  tooltip.refresh();
}, TICK_MS);

let resizeTimer = null;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    store.dirty.add("resize");
    scheduleDraw();
  }, 100);
});

// The server-wide chart: records produced and consumed per second over the last five minutes.

import { rateChart } from "../charts.js";
import { byId, show } from "../dom.js";
import { rate } from "../format.js";

export class ThroughputView {
  constructor() {
    this.body = byId("throughput-chart");
    this.produce = byId("legend-produce");
    this.consume = byId("legend-consume");
  }

  render(store, dirty) {
    if (dirty.has("rates")) {
      this.produce.textContent = `${rate(store.rates.produce)}/s`;
      this.consume.textContent = `${rate(store.rates.consume)}/s`;
    }
    if (!dirty.has("history") && !dirty.has("resize")) return;
    const width = Math.max(200, this.body.clientWidth);
    show(
      this.body,
      rateChart({
        width,
        height: 170,
        seconds: store.seconds,
        series: [
          { name: "produce", values: store.history.produce, cls: "produce" },
          { name: "consume", values: store.history.consume, cls: "consume" },
        ],
      }),
    );
  }
}

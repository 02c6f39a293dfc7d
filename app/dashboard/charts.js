// Rate charts drawn by hand in SVG: one sample per second, the newest at the right edge, the
// x axis always the whole history (five minutes), so a short history fills only its right part.

import { s } from "./dom.js";
import { axis } from "./format.js";

/** The smallest 1, 2, 2.5 or 5 × 10^k at or above v (at least 1). */
export function niceCeil(v) {
  if (!(v > 1)) return 1;
  const k = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * k >= v) return m * k;
  return 10 * k;
}

/** The y axis's ticks of a chart whose top is `max`: bottom, middle and top, with labels. */
export function axisTicks(max) {
  return [0, 0.5, 1].map((frac) => ({ frac, value: max * frac, label: axis(max * frac) }));
}

function points(values, seconds, x0, width, y0, height, max) {
  const n = Math.min(values.length, seconds);
  const first = values.length - n;
  const step = width / Math.max(1, seconds - 1);
  const out = [];
  for (let i = 0; i < n; i++) {
    const x = x0 + (seconds - n + i) * step;
    const y = y0 + height - (Math.max(0, values[first + i]) / max) * height;
    out.push([x, y]);
  }
  return out;
}

function linePath(pts) {
  return pts.map(([x, y], i) => `${i ? "L" : "M"}${x.toFixed(1)} ${y.toFixed(1)}`).join("");
}

function areaPath(pts, baseline) {
  if (pts.length === 0) return "";
  const [x0] = pts[0];
  const [x1] = pts[pts.length - 1];
  return `${linePath(pts)}L${x1.toFixed(1)} ${baseline}L${x0.toFixed(1)} ${baseline}Z`;
}

function peak(values) {
  return values.reduce((m, v) => (v > m ? v : m), 0);
}

/**
 * A chart of several series [{name, values, cls}] over `seconds`, with a y axis of rates and a
 * time axis in minutes.
 */
export function rateChart({ width, height, seconds, series }) {
  const left = 40;
  const right = 10;
  const top = 10;
  const bottom = 22;
  const plotW = Math.max(10, width - left - right);
  const plotH = Math.max(10, height - top - bottom);
  const max = niceCeil(Math.max(...series.map((x) => peak(x.values))));
  const svg = s("svg", {
    class: "chart",
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": `records per second over the last ${seconds / 60} minutes`,
    dataset: { max, points: Math.max(0, ...series.map((x) => x.values.length)) },
  });
  for (const { frac, label } of axisTicks(max)) {
    const y = top + plotH - frac * plotH;
    svg.append(
      s("line", { class: "grid", x1: left, x2: left + plotW, y1: y, y2: y }),
      s("text", { class: "tick", x: left - 6, y: y + 4, "text-anchor": "end" }, label),
    );
  }
  const minutes = Math.floor(seconds / 60);
  for (let m = minutes; m >= 0; m--) {
    const x = left + plotW - (m * 60 * plotW) / Math.max(1, seconds - 1);
    svg.append(
      s(
        "text",
        { class: "tick", x, y: height - 6, "text-anchor": m === 0 ? "end" : "middle" },
        m === 0 ? "now" : `−${m}m`,
      ),
    );
  }
  for (const one of series) {
    const pts = points(one.values, seconds, left, plotW, top, plotH, max);
    if (pts.length === 0) continue;
    svg.append(
      s("path", { class: `area ${one.cls}`, d: areaPath(pts, top + plotH) }),
      s("path", { class: `line ${one.cls}`, d: linePath(pts), dataset: { series: one.name } }),
    );
  }
  return svg;
}

/** A small chart of one series, without axes; its peak and last value in data attributes. */
export function sparkline({ width, height, seconds, values, cls }) {
  const max = niceCeil(peak(values));
  const pts = points(values, seconds, 1, width - 2, 2, height - 3, max);
  const last = values.length ? values[values.length - 1] : 0;
  const svg = s("svg", {
    class: `spark ${cls}`,
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": "records per second, last 5 minutes",
    dataset: { peak: peak(values), last, points: values.length },
  });
  svg.append(s("line", { class: "base", x1: 1, x2: width - 1, y1: height - 1, y2: height - 1 }));
  if (pts.length) {
    svg.append(
      s("path", { class: "area", d: areaPath(pts, height - 1) }),
      s("path", { class: "line", d: linePath(pts) }),
    );
  }
  return svg;
}

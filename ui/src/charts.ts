// Charts drawn as SVG elements (presentation attributes only, so the
// Content-Security-Policy needs no inline style).
import { days, fmtDate, h, num, retrieverColor, s } from "./dom";
import type { Fact, Score, Strength } from "./types";

/**
 * scoreBreakdown draws how a result's final score came about: relevance as a
 * bar split into each retriever's contribution, then the decay weight
 * (floor + (1 − floor)·retention) that multiplies it.
 */
export function scoreBreakdown(score: Score, maxRelevance: number): HTMLElement {
  const width = 320;
  const barH = 14;
  const scale = maxRelevance > 0 ? width / maxRelevance : 0;
  const labelW = 70;
  const svg = s("svg", { class: "score-svg", width: width + 2 + labelW, height: barH * 2 + 12, viewBox: `0 0 ${width + 2 + labelW} ${barH * 2 + 12}`, role: "img" });
  svg.append(
    s("text", { x: width + 8, y: barH - 2, class: "axis" }, "relevance"),
    s("text", { x: width + 8, y: 2 * barH + 4, class: "axis" }, "× decay"),
  );
  const shares = score.sources.filter((src) => (src.contribution ?? 0) > 0);
  const summed = shares.reduce((a, src) => a + (src.contribution ?? 0), 0);
  // With a reranker the relevance is the reranker's score: draw the fusion
  // shares in proportion to it.
  const k = summed > score.relevance || score.sources.some((x) => x.retriever === "rerank") ? score.relevance / (summed || 1) : 1;
  let x = 1;
  for (const src of shares) {
    const w = (src.contribution ?? 0) * k * scale;
    svg.append(
      s("rect", { x, y: 1, width: Math.max(w, 0.5), height: barH, fill: retrieverColor[src.retriever] ?? retrieverColor.other, class: `share share-${src.retriever}` },
        s("title", {}, `${src.retriever}: rank ${src.rank}, raw score ${num(src.score)}, adds ${num(src.contribution ?? 0, 4)} to relevance`)),
    );
    x += w;
  }
  const rest = score.relevance * scale - (x - 1);
  if (rest > 0.5) {
    svg.append(s("rect", { x, y: 1, width: rest, height: barH, fill: retrieverColor.other, class: "share share-other" }, s("title", {}, `other boosts: ${num(rest / scale, 4)}`)));
  }
  // Relevance × decay weight: the final score, and the part decay took away.
  const finalW = score.final * scale;
  svg.append(
    s("rect", { x: 1, y: barH + 6, width: Math.max(finalW, 0.5), height: barH, fill: "#333", class: "final" }, s("title", {}, `final ${num(score.final, 4)}`)),
    s("rect", { x: 1 + finalW, y: barH + 6, width: Math.max(score.relevance * scale - finalW, 0), height: barH, fill: "#ddd", class: "decayed" },
      s("title", {}, `lost to decay: retention ${num(score.retention)} gives weight ${num(score.decay_weight)}`)),
  );
  const legend = h(
    "div",
    { class: "score-legend" },
    shares.map((src) => h("span", { class: `chip chip-${src.retriever}` }, `${src.retriever} #${src.rank}`)),
  );
  const formula = h(
    "div",
    { class: "score-formula" },
    `final ${num(score.final, 4)} = relevance ${num(score.relevance, 4)} × decay weight ${num(score.decay_weight)} (retention ${num(score.retention)})`,
  );
  return h("div", { class: "score" }, svg, legend, formula);
}

/**
 * curveChart draws a record's forgetting curve (retention against days since
 * its last reinforcement, on a log-like axis), its age now and the forget
 * threshold.
 */
export function curveChart(st: Strength, threshold: number, w = 420, ht = 180): SVGSVGElement {
  const pad = { l: 36, r: 10, t: 10, b: 28 };
  const maxDays = st.curve[st.curve.length - 1]?.days ?? 3650;
  const tx = (d: number) => pad.l + (Math.log10(1 + d) / Math.log10(1 + maxDays)) * (w - pad.l - pad.r);
  const ty = (r: number) => pad.t + (1 - r) * (ht - pad.t - pad.b);
  const svg = s("svg", { class: "curve-svg", width: w, height: ht, viewBox: `0 0 ${w} ${ht}`, role: "img" });
  for (const r of [0, 0.5, 1]) {
    svg.append(s("line", { x1: pad.l, x2: w - pad.r, y1: ty(r), y2: ty(r), stroke: "#eee" }), s("text", { x: 4, y: ty(r) + 4, class: "axis" }, r.toFixed(1)));
  }
  for (const d of [1, 7, 30, 365, 3650]) {
    if (d > maxDays) continue;
    svg.append(
      s("line", { x1: tx(d), x2: tx(d), y1: pad.t, y2: ht - pad.b, stroke: "#f2f2f2" }),
      s("text", { x: Math.min(tx(d), w - pad.r - 14), y: ht - 10, class: "axis", "text-anchor": "middle" }, days(d)),
    );
  }
  if (threshold > 0) {
    svg.append(
      s("line", { x1: pad.l, x2: w - pad.r, y1: ty(threshold), y2: ty(threshold), stroke: "#e15759", "stroke-dasharray": "4 3" }),
      s("text", { x: w - pad.r - 90, y: ty(threshold) - 4, class: "axis threshold" }, `forget below ${threshold}`),
    );
  }
  const pts = st.curve.map((p) => `${tx(p.days).toFixed(1)},${ty(p.retention).toFixed(1)}`).join(" ");
  svg.append(s("polyline", { points: pts, fill: "none", stroke: st.pinned ? "#59a14f" : "#4e79a7", "stroke-width": 2 }));
  const nowX = tx(Math.min(st.age_days, maxDays));
  svg.append(
    s("line", { x1: nowX, x2: nowX, y1: pad.t, y2: ht - pad.b, stroke: "#333", "stroke-dasharray": "2 2" }),
    s("circle", { cx: nowX, cy: ty(st.retention), r: 4, fill: "#333" }, s("title", {}, `now: ${num(st.retention)} after ${days(st.age_days)}`)),
    s("text", { x: Math.min(nowX + 4, w - 40), y: pad.t + 10, class: "axis" }, "now"),
  );
  return svg;
}

/** sparkline is a small forgetting curve for a table row, with a dot at now. */
export function sparkline(st: Strength): SVGSVGElement {
  const w = 120;
  const ht = 28;
  const maxDays = st.curve[st.curve.length - 1]?.days ?? 3650;
  const tx = (d: number) => 2 + (Math.log10(1 + d) / Math.log10(1 + maxDays)) * (w - 4);
  const ty = (r: number) => 2 + (1 - r) * (ht - 4);
  const pts = st.curve.map((p) => `${tx(p.days).toFixed(1)},${ty(p.retention).toFixed(1)}`).join(" ");
  return s(
    "svg",
    { class: "spark", width: w, height: ht, viewBox: `0 0 ${w} ${ht}`, role: "img" },
    s("rect", { x: 0, y: 0, width: w, height: ht, fill: "#f7f7f7" }),
    s("polyline", { points: pts, fill: "none", stroke: st.pinned ? "#59a14f" : "#4e79a7", "stroke-width": 1.5 }),
    s("circle", { cx: tx(Math.min(st.age_days, maxDays)), cy: ty(st.retention), r: 3, fill: "#333" }),
    s("title", {}, `retention ${num(st.retention)} after ${days(st.age_days)}; S = ${days(st.stability_days)}`),
  );
}

/**
 * timeline draws facts on a world-time axis: each a bar from valid_at to
 * invalid_at (open-ended to today when still true), styled by status.
 */
export function timeline(facts: Fact[], onPick: (f: Fact) => void): SVGSVGElement {
  const rowH = 26;
  const labelW = 260;
  const w = 900;
  const now = Date.now();
  const t = (x?: string) => (x ? new Date(x).getTime() : NaN);
  const starts = facts.map((f) => t(f.valid_at) || t(f.created_at));
  const ends = facts.map((f) => t(f.invalid_at) || now);
  let lo = Math.min(...starts);
  let hi = Math.max(now, ...ends);
  if (!Number.isFinite(lo)) lo = now - 86400e3;
  if (hi - lo < 86400e3) hi = lo + 86400e3;
  lo -= (hi - lo) * 0.02;
  const tx = (ms: number) => labelW + ((ms - lo) / (hi - lo)) * (w - labelW - 20);
  const ht = facts.length * rowH + 30;
  const svg = s("svg", { class: "timeline-svg", width: w, height: ht, viewBox: `0 0 ${w} ${ht}`, role: "img" });
  // Year (or month) ticks.
  const span = hi - lo;
  const step = span > 3 * 365 * 864e5 ? "year" : "month";
  const d = new Date(lo);
  const tick = new Date(Date.UTC(d.getUTCFullYear(), step === "year" ? 0 : d.getUTCMonth(), 1));
  let guard = 0;
  while (tick.getTime() <= hi && guard++ < 200) {
    if (tick.getTime() >= lo) {
      const x = tx(tick.getTime());
      svg.append(s("line", { x1: x, x2: x, y1: 0, y2: ht - 20, stroke: "#eee" }));
      // No date label where the "today" label goes.
      if (Math.abs(x - tx(now)) > 64) svg.append(s("text", { x: x + 2, y: ht - 6, class: "axis" }, fmtDate(tick.toISOString()).slice(0, step === "year" ? 4 : 7)));
    }
    if (step === "year") tick.setUTCFullYear(tick.getUTCFullYear() + 1);
    else tick.setUTCMonth(tick.getUTCMonth() + (span > 365 * 864e5 ? 3 : 1));
  }
  facts.forEach((f, i) => {
    const y = i * rowH + 4;
    const x1 = tx(starts[i]);
    const x2 = Math.max(tx(ends[i]), x1 + 3);
    const row = s("g", { class: `tl-row status-${f.status}`, "data-fact": f.id });
    row.append(
      s("text", { x: 4, y: y + 14, class: "tl-label" }, f.fact.length > 40 ? `${f.fact.slice(0, 39)}…` : f.fact),
      s("rect", { x: x1, y: y + 3, width: x2 - x1, height: rowH - 10, rx: 3, class: `tl-bar bar-${f.status}` },
        s("title", {}, `${f.fact}\n${f.status}: ${fmtDate(f.valid_at)} → ${f.invalid_at ? fmtDate(f.invalid_at) : "now"}`)),
    );
    if (!f.invalid_at) row.append(s("path", { d: `M${x2} ${y + 3} l6 ${(rowH - 10) / 2} l-6 ${(rowH - 10) / 2}z`, class: `tl-bar bar-${f.status}` }));
    row.addEventListener("click", () => onPick(f));
    svg.append(row);
  });
  const nowX = tx(now);
  svg.append(s("line", { x1: nowX, x2: nowX, y1: 0, y2: ht - 20, stroke: "#333", "stroke-dasharray": "2 2" }), s("text", { x: nowX - 24, y: ht - 6, class: "axis" }, "today"));
  return svg;
}

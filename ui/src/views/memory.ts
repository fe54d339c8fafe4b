// Memory strength: each record's retention now and its forgetting curve;
// pin and unpin, forgotten records and restore, and the forgetting sweep.
import { api, chunks } from "../api";
import type { View } from "../app";
import { curveChart, sparkline } from "../charts";
import { days, fmtTime, h, num } from "../dom";
import type { Kind, Ref, Strength } from "../types";

interface Row {
  ref: Ref;
  label: string;
  sub: string;
  strength?: Strength;
}

const pageSize = 200;

export const memoryView: View = (app, el, args) => {
  const kind: Kind = (["fact", "entity", "episode"] as Kind[]).includes(args[0] as Kind) ? (args[0] as Kind) : "fact";
  let alive = true;
  let rows: Row[] = [];
  let next: string | undefined;
  let selected: string | undefined;
  let threshold = 0;
  const onlyForgotten = h("input", { type: "checkbox", id: "only-forgotten" });
  const weakest = h("input", { type: "checkbox", id: "weakest-first", checked: true });
  const table = h("tbody", {});
  const more = h("button", { type: "button", id: "load-more", hidden: true }, "Load more");
  const sweepOut = h("span", { class: "muted", id: "sweep-result" });
  const detail = h("div", { class: "detail", id: "strength-detail" }, h("p", { class: "muted" }, "Choose a record to see its forgetting curve."));
  const kindTabs = h(
    "div",
    { class: "subtabs" },
    (["fact", "entity", "episode"] as Kind[]).map((k) =>
      h("a", { href: app.link(`memory/${k}`), class: k === kind ? "active" : "", "data-kind": k }, k === "fact" ? "Facts" : k === "entity" ? "Entities" : "Messages"),
    ),
  );

  async function loadPage(): Promise<void> {
    let batch: Row[];
    if (kind === "fact") {
      const p = await api.listFacts(app.ns, { limit: pageSize, after: next });
      batch = p.items.map((f) => ({ ref: { kind, id: f.id }, label: f.fact, sub: `${f.status} · ${f.subject} —${f.predicate}→ ${f.object}` }));
      next = p.next;
    } else if (kind === "entity") {
      const p = await api.listEntities(app.ns, { limit: pageSize, after: next });
      batch = p.items.map((e) => ({ ref: { kind, id: e.id }, label: e.name, sub: e.type }));
      next = p.next;
    } else {
      const p = await api.listEpisodes(app.ns, { limit: pageSize, after: next });
      batch = p.items.map((e) => ({ ref: { kind, id: e.id }, label: e.content, sub: `${fmtTime(e.timestamp)} · ${e.name || e.role || "?"} in ${e.thread_id}` }));
      next = p.next;
    }
    await measure(batch);
    rows.push(...batch);
  }

  async function measure(batch: Row[]): Promise<void> {
    const byId = new Map(batch.map((r) => [r.ref.id, r]));
    for (const part of chunks(batch, 500)) {
      if (!part.length) continue;
      const res = await api.strength(app.ns, part.map((r) => r.ref));
      for (const st of res.records) {
        const r = byId.get(st.id);
        if (r) r.strength = st;
      }
    }
  }

  function draw(): void {
    let shown = rows.filter((r) => !onlyForgotten.checked || r.strength?.decay.forgotten_at);
    if (weakest.checked) shown = [...shown].sort((a, b) => (a.strength?.retention ?? 1) - (b.strength?.retention ?? 1));
    table.replaceChildren(...shown.map(rowEl));
    more.hidden = !next;
    if (!shown.length) table.append(h("tr", {}, h("td", { colspan: 6, class: "muted" }, onlyForgotten.checked ? "No forgotten records among those loaded." : "No records.")));
    const sel = rows.find((r) => r.ref.id === selected);
    if (sel?.strength) showDetail(sel);
  }

  function rowEl(r: Row): HTMLTableRowElement {
    const st = r.strength;
    const forgotten = !!st?.decay.forgotten_at;
    const actions = h("td", { class: "actions" });
    if (st) {
      actions.append(
        h("button", { type: "button", class: st.decay.pinned ? "unpin" : "pin", onclick: () => void act(() => api.pin(app.ns, [r.ref], !st.decay.pinned), r) }, st.decay.pinned ? "Unpin" : "Pin"),
      );
      if (forgotten) actions.append(h("button", { type: "button", class: "restore", onclick: () => void act(() => api.restore(app.ns, [r.ref]), r) }, "Restore"));
    }
    const tr = h(
      "tr",
      { "data-id": r.ref.id, class: `${forgotten ? "forgotten" : ""} ${selected === r.ref.id ? "selected" : ""}`, onclick: ((ev: Event) => {
        if ((ev.target as Element).closest("button")) return;
        selected = r.ref.id;
        draw();
      }) as EventListener },
      h("td", { class: "label" }, h("div", {}, r.label.length > 90 ? `${r.label.slice(0, 89)}…` : r.label), h("div", { class: "muted" }, r.sub)),
      h("td", { class: "retention" }, st ? num(st.retention) : "…"),
      h("td", {}, st ? sparkline(st) : null),
      h("td", {}, st ? `S ${days(st.stability_days)} · age ${days(st.age_days)}` : ""),
      h(
        "td",
        { class: "state" },
        st?.pinned ? h("span", { class: "badge pinned" }, st.decay.pinned ? "pinned" : "evergreen") : null,
        forgotten ? h("span", { class: "badge forgotten" }, `forgotten ${fmtTime(st!.decay.forgotten_at)}`) : null,
        st?.due ? h("span", { class: "badge due" }, "next sweep forgets") : null,
      ),
      actions,
    );
    return tr;
  }

  function showDetail(r: Row): void {
    const st = r.strength!;
    detail.replaceChildren(
      h("h3", {}, r.label.length > 120 ? `${r.label.slice(0, 119)}…` : r.label),
      curveChart(st, threshold),
      h(
        "dl",
        { class: "facts-dl" },
        h("dt", {}, "retention now"), h("dd", { id: "detail-retention" }, num(st.retention, 4)),
        h("dt", {}, "search weight"), h("dd", {}, num(st.weight, 4)),
        h("dt", {}, "stability S"), h("dd", {}, `${days(st.stability_days)} (R falls to 0.9 after S)`),
        h("dt", {}, "since last reinforced"), h("dd", {}, `${days(st.age_days)} (${fmtTime(st.decay.last_reinforced_at)})`),
        h("dt", {}, "reinforcements"), h("dd", {}, String(st.decay.reinforcements ?? 0)),
        h("dt", {}, "forgotten below threshold after"), h("dd", {}, st.forget_after_days ? days(st.forget_after_days) : "never"),
      ),
    );
  }

  async function act(call: () => Promise<unknown>, r: Row): Promise<void> {
    try {
      await call();
      await measure([r]);
      if (alive) {
        selected = r.ref.id;
        draw();
      }
    } catch (err) {
      if (alive) app.fail(err);
    }
  }

  async function start(): Promise<void> {
    rows = [];
    next = undefined;
    const settings = await api.getSettings(app.ns);
    threshold = settings.decay.enabled ? settings.decay.forget_threshold : 0;
    await loadPage();
    if (alive) draw();
  }

  onlyForgotten.addEventListener("change", draw);
  weakest.addEventListener("change", draw);
  more.addEventListener("click", async () => {
    try {
      await loadPage();
      if (alive) draw();
    } catch (err) {
      if (alive) app.fail(err);
    }
  });
  const sweepBtn = h("button", { type: "button", id: "sweep" }, "Sweep now");
  sweepBtn.addEventListener("click", async () => {
    try {
      const stats = await api.sweep(app.ns);
      const parts = Object.entries(stats).map(([k, v]) => `${k}: ${(v as { forgotten?: number }).forgotten ?? 0} forgotten of ${(v as { scanned?: number }).scanned ?? 0}`);
      sweepOut.textContent = `Sweep done — ${parts.join("; ")}.`;
      await start();
    } catch (err) {
      if (alive) app.fail(err);
    }
  });

  el.append(
    h(
      "section",
      { class: "panel" },
      h("h2", {}, "Memory strength ", h("span", { class: "muted" }, app.ns)),
      h("p", { class: "muted" }, "Retention R(t) = (1 + F·t/S)^−d since the last reinforcement; search weighs relevance by floor + (1 − floor)·R. The sweep soft-forgets records below the threshold (hidden from default search, never deleted)."),
      kindTabs,
      h("div", { class: "row options" }, h("label", {}, onlyForgotten, " only forgotten"), h("label", {}, weakest, " weakest first"), sweepBtn, sweepOut),
      h(
        "div",
        { class: "memory-wrap" },
        h("div", { class: "table-wrap" }, h("table", { class: "strength" }, h("thead", {}, h("tr", {}, h("th", {}, "record"), h("th", {}, "retention"), h("th", {}, "curve"), h("th", {}, "stability · age"), h("th", {}, "state"), h("th", {}, ""))), table), more),
        detail,
      ),
    ),
  );
  start()
    .then(() => alive && app.ready("memory"))
    .catch((err) => alive && app.fail(err));
  return () => {
    alive = false;
  };
};

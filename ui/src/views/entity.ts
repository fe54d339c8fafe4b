// Entity page: the entity's facts on a validity timeline (valid_at →
// invalid_at), what superseded what, and each fact's provenance messages.
import { api, chunks, maxIdsPerCall } from "../api";
import type { App, View } from "../app";
import { timeline } from "../charts";
import { fmtDate, fmtTime, h } from "../dom";
import type { Entity, Episode, Fact } from "../types";

/** maxFacts bounds the facts listed on one page. */
const maxFacts = 2000;

export const entityView: View = (app, el, args) => {
  const id = args[0];
  let alive = true;
  if (!id) {
    app.go("graph");
    return;
  }
  el.append(h("p", { class: "muted" }, "Loading…"));
  load(app, id)
    .then((data) => {
      if (!alive) return;
      render(app, el, data);
      app.ready("entity");
    })
    .catch((err) => alive && app.fail(err));
  return () => {
    alive = false;
  };
};

interface Loaded {
  entity: Entity;
  facts: Fact[];
  truncated: boolean;
  episodes: Map<string, Episode>;
}

async function load(app: App, id: string): Promise<Loaded> {
  const entity = await api.getEntity(app.ns, id);
  const facts: Fact[] = [];
  let after: string | undefined;
  do {
    const page = await api.listFacts(app.ns, { entity: entity.id, limit: 1000, after });
    facts.push(...page.items);
    after = page.next;
  } while (after && facts.length < maxFacts);
  const ids = [...new Set(facts.flatMap((f) => f.episodes ?? []))];
  const episodes = new Map<string, Episode>();
  const pages = await Promise.all(chunks(ids, maxIdsPerCall).map((part) => api.listEpisodes(app.ns, { ids: part })));
  for (const ep of pages.flatMap((p) => p.items)) episodes.set(ep.id, ep);
  facts.sort((a, b) => (a.valid_at ?? a.created_at).localeCompare(b.valid_at ?? b.created_at));
  return { entity, facts, truncated: !!after, episodes };
}

/**
 * supersessions pairs each invalidated fact with the facts that replaced it:
 * recorded in the same write that expired it, valid from the instant it
 * ended, and sharing an entity with it. (The API reports superseded_by when
 * the change happens; the stored facts keep the instants that tie them.)
 */
export function supersessions(facts: Fact[]): Map<string, Fact[]> {
  const out = new Map<string, Fact[]>();
  const ms = (t?: string) => (t ? new Date(t).getTime() : NaN);
  for (const old of facts) {
    if (old.status !== "invalidated" || !old.invalid_at) continue;
    const by = facts.filter(
      (f) =>
        f.id !== old.id &&
        ms(f.valid_at) === ms(old.invalid_at) &&
        Math.abs(ms(f.created_at) - ms(old.expired_at)) < 5000 &&
        (f.object_id === old.object_id || f.subject_id === old.subject_id),
    );
    if (by.length) out.set(old.id, by);
  }
  return out;
}

function render(app: App, el: HTMLElement, d: Loaded): void {
  const sup = supersessions(d.facts);
  const replaced = new Map<string, Fact[]>();
  for (const [oldId, by] of sup) for (const f of by) replaced.set(f.id, [...(replaced.get(f.id) ?? []), d.facts.find((x) => x.id === oldId)!]);
  const rows = new Map<string, HTMLElement>();
  const factRow = (f: Fact) => {
    const eps = (f.episodes ?? []).map((id) => d.episodes.get(id)).filter((e): e is Episode => !!e);
    const row = h(
      "article",
      { class: `card fact status-${f.status}`, id: `fact-${f.id}`, "data-fact": f.id },
      h("header", {}, h("span", { class: `badge ${f.status}` }, f.status), " ", h("span", { class: "fact-text" }, f.fact)),
      h(
        "p",
        { class: "meta" },
        h("a", { href: app.link(`entity/${f.subject_id}`) }, f.subject),
        ` —${f.predicate}→ `,
        h("a", { href: app.link(`entity/${f.object_id}`) }, f.object),
      ),
      h(
        "p",
        { class: "meta validity" },
        `valid ${fmtDate(f.valid_at)} → ${f.invalid_at ? fmtDate(f.invalid_at) : "now"}`,
        ` · recorded ${fmtTime(f.created_at)}${f.expired_at ? ` · expired ${fmtTime(f.expired_at)}` : ""}`,
        ` · importance ${f.importance} · confidence ${f.confidence}`,
      ),
      sup.get(f.id) ? h("p", { class: "superseded" }, "superseded by: ", ...sup.get(f.id)!.map((g) => h("a", { href: `#fact-${g.id}`, class: "fact-ref", "data-target": g.id }, g.fact))) : null,
      replaced.get(f.id) ? h("p", { class: "supersedes" }, "replaced: ", ...replaced.get(f.id)!.map((g) => h("a", { href: `#fact-${g.id}`, class: "fact-ref", "data-target": g.id }, g.fact))) : null,
      eps.length
        ? h("details", { class: "provenance-box", open: true }, h("summary", {}, `provenance: ${eps.length} message${eps.length > 1 ? "s" : ""}`),
            h("ul", { class: "provenance" }, eps.map((ep) => h("li", {}, h("span", { class: "when" }, fmtTime(ep.timestamp)), " ", h("b", {}, ep.name || ep.role || "?"), ` (${ep.thread_id}): `, ep.content))))
        : h("p", { class: "muted" }, "no provenance messages (posted as a triple)"),
    );
    rows.set(f.id, row);
    return row;
  };
  const list = h("div", { class: "fact-list" }, d.facts.map(factRow));
  // In-page links scroll to the fact without touching the route.
  list.addEventListener("click", (ev) => {
    const a = (ev.target as Element).closest("a.fact-ref");
    if (!a) return;
    ev.preventDefault();
    rows.get(a.getAttribute("data-target") ?? "")?.scrollIntoView({ behavior: "smooth", block: "center" });
  });
  const e = d.entity;
  el.replaceChildren(
    h(
      "section",
      { class: "panel" },
      h("h2", { id: "entity-name" }, e.name, " ", h("span", { class: "muted" }, e.type)),
      e.aliases?.length ? h("p", { class: "muted" }, `also known as ${e.aliases.join(", ")}`) : null,
      e.summary ? h("p", {}, e.summary) : null,
      h("p", {}, h("a", { href: app.link(`graph/${e.id}`) }, "Show its neighbourhood in the graph"), " · ", h("span", { class: "muted" }, e.id)),
      h("h3", {}, `Validity timeline (${d.facts.length} fact${d.facts.length === 1 ? "" : "s"}${d.truncated ? `, the first ${maxFacts}` : ""})`),
      d.facts.length
        ? h("div", { class: "timeline", id: "timeline" }, timeline(d.facts, (f) => rows.get(f.id)?.scrollIntoView({ behavior: "smooth", block: "center" })))
        : h("p", { class: "muted" }, "No facts mention this entity."),
    ),
    h("section", { class: "panel" }, h("h3", {}, "Facts, with history and provenance"), list),
  );
}

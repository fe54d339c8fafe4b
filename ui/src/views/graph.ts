// Graph: a namespace's facts as a graph (the first few hundred), or an
// entity's neighbourhood; clicking an entity adds its own facts.
import { api, chunks, maxIdsPerCall } from "../api";
import type { App, View } from "../app";
import { h } from "../dom";
import { MemoryGraph, factEdges } from "../graph";
import type { Fact } from "../types";

/** overviewFacts bounds the facts drawn when no entity is chosen. */
const overviewFacts = 300;
/** neighbourFacts bounds the facts loaded per expanded entity. */
const neighbourFacts = 100;

export const graphView: View = (app, el, args) => {
  const seed = args[0];
  let alive = true;
  const status = h("span", { class: "muted", id: "graph-status" });
  const picked = h("div", { class: "picked" }, h("p", { class: "muted" }, "Click an entity to add its facts; double-click to open its page."));
  const hist = h("input", { type: "checkbox", id: "graph-history", checked: true });
  const find = h("input", { id: "graph-find", placeholder: "Add an entity by name…" });
  const found = h("ul", { class: "found" });
  const expanded = new Set<string>();
  const names = new Map<string, string>();

  const graph = new MemoryGraph({
    onExpand: (id) => void expand(id),
    onOpen: (id) => app.go(`entity/${id}`),
  });

  // types holds the type of every entity looked up so far.
  const types = new Map<string, string>();

  /** lookUp fetches the names and types of the entities not seen yet. */
  async function lookUp(ids: string[]): Promise<void> {
    const unknown = [...new Set(ids)].filter((id) => !types.has(id));
    const pages = await Promise.all(chunks(unknown, maxIdsPerCall).map((part) => api.listEntities(app.ns, { ids: part, limit: 1000 })));
    for (const e of pages.flatMap((p) => p.items)) {
      types.set(e.id, e.type);
      names.set(e.id, e.name);
    }
  }

  /** draw looks up the entities of facts, then adds facts and entities at once. */
  async function draw(facts: Fact[], seeds: string[] = []): Promise<number> {
    await lookUp(facts.flatMap((f) => [f.subject_id, f.object_id]));
    const { nodes, edges } = factEdges(facts);
    for (const n of nodes) n.type = types.get(n.id) ?? "";
    return graph.add(nodes, edges, seeds);
  }

  async function expand(id: string): Promise<void> {
    if (expanded.has(id)) {
      showPicked(app, picked, id, names.get(id));
      return;
    }
    expanded.add(id);
    try {
      const page = await api.listFacts(app.ns, { entity: id, limit: neighbourFacts });
      if (!alive) return;
      if (!alive) return;
      const added = await draw(page.items, [id]);
      if (!alive) return;
      if (added > 0) graph.layout();
      showPicked(app, picked, id, names.get(id), page.next ? `showing the first ${neighbourFacts} of its facts` : undefined);
      status.textContent = "";
    } catch (err) {
      expanded.delete(id);
      if (alive) app.fail(err);
    }
  }

  async function overview(): Promise<void> {
    const page = await api.listFacts(app.ns, { limit: overviewFacts });
    if (!alive) return;
    await draw(page.items);
    if (!alive) return;
    graph.layout();
    status.textContent = page.next
      ? `Showing the first ${overviewFacts} facts of the namespace (by id); click entities to explore, or add one by name.`
      : page.items.length === 0
        ? "This namespace has no facts yet."
        : "";
  }

  find.addEventListener("input", async () => {
    const term = find.value.trim();
    if (term.length < 2) {
      found.replaceChildren();
      return;
    }
    try {
      const page = await api.listEntities(app.ns, { q: term, limit: 10 });
      if (!alive || find.value.trim() !== term) return;
      found.replaceChildren(
        ...page.items.map((e) => h("li", {}, h("button", { type: "button", class: "link", onclick: () => {
          names.set(e.id, e.name);
          found.replaceChildren();
          find.value = "";
          void expand(e.id);
        } }, `${e.name} (${e.type})`))),
      );
    } catch (err) {
      if (alive) app.fail(err);
    }
  });
  hist.addEventListener("change", () => graph.setShowHistory(hist.checked));

  el.append(
    h(
      "section",
      { class: "panel graph-panel" },
      h("h2", {}, "Graph ", h("span", { class: "muted" }, app.ns)),
      h(
        "div",
        { class: "row options" },
        h("label", {}, hist, " show ended and invalidated facts"),
        h("button", { type: "button", onclick: () => graph.layout() }, "Re-layout"),
        h("span", { class: "finder" }, find, found),
        status,
      ),
      h("div", { class: "graph-wrap" }, graph.el, picked),
    ),
  );
  graph.resize();
  (seed ? expand(seed) : overview())
    .then(() => alive && app.ready("graph"))
    .catch((err) => alive && app.fail(err));
  return () => {
    alive = false;
    graph.destroy();
  };
};

function showPicked(app: App, el: HTMLElement, id: string, name: string | undefined, note?: string): void {
  el.replaceChildren(
    h("h3", {}, name ?? id),
    h("p", {}, h("a", { href: app.link(`entity/${id}`), class: "open-entity" }, "Open its page: timeline, history, provenance")),
  );
  if (note) el.append(h("p", { class: "muted" }, note));
}

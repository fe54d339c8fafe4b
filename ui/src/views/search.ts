// Search: POST /v1/search with its options; result cards with their score
// breakdown, the result subgraph, and the prompt context exactly as returned.
import { api } from "../api";
import type { App, View } from "../app";
import { scoreBreakdown } from "../charts";
import { fmtDate, fmtTime, h } from "../dom";
import { MemoryGraph } from "../graph";
import type { Episode, SearchRequest, SearchResult } from "../types";

const lastSearch = "kgmem.search";

export const searchView: View = (app, el) => {
  const saved = JSON.parse(sessionStorage.getItem(lastSearch) ?? "{}") as Partial<SearchRequest>;
  const q = h("input", { id: "q", name: "query", class: "query", placeholder: "Who leads the ML team?", value: saved.query ?? "", required: true });
  const limit = h("input", { id: "limit", type: "number", min: 1, max: 100, value: saved.limit ?? 10 });
  const asOf = h("input", { id: "as-of", type: "date", value: saved.as_of?.slice(0, 10) ?? "" });
  const hist = h("input", { id: "include-history", type: "checkbox", checked: !!saved.include_history });
  const forgotten = h("input", { id: "include-forgotten", type: "checkbox", checked: !!saved.include_forgotten });
  const reinforce = h("input", { id: "reinforce", type: "checkbox", checked: !!saved.reinforce });
  const out = h("div", { class: "results" });
  const form = h(
    "form",
    { class: "search-form", id: "search-form" },
    h("div", { class: "row" }, q, h("button", { type: "submit", id: "search-go" }, "Search")),
    h(
      "div",
      { class: "row options" },
      h("label", {}, "limit ", limit),
      h("label", { title: "What was true at this date (world and system time)" }, "as of ", asOf),
      h("label", {}, hist, " include history"),
      h("label", {}, forgotten, " include forgotten"),
      h("label", { title: "A search strengthens the memories it returns; off by default here so that looking changes nothing" }, reinforce, " reinforce results"),
    ),
  );
  el.append(h("section", { class: "panel" }, h("h2", {}, "Search ", h("span", { class: "muted" }, app.ns)), form), out);
  let graph: MemoryGraph | undefined;
  let alive = true;

  const run = async () => {
    const req: SearchRequest = {
      namespace: app.ns,
      query: q.value.trim(),
      limit: Number(limit.value) || 10,
      include_history: hist.checked,
      include_forgotten: forgotten.checked,
      reinforce: reinforce.checked,
    };
    if (asOf.value) req.as_of = `${asOf.value}T23:59:59Z`;
    if (!req.query) return;
    sessionStorage.setItem(lastSearch, JSON.stringify(req));
    app.clearNotice();
    out.replaceChildren(h("p", { class: "muted" }, "Searching…"));
    try {
      const res = await api.search(req);
      if (!alive) return;
      graph?.destroy();
      graph = renderResults(app, out, res);
      app.ready("search");
    } catch (err) {
      if (!alive) return;
      out.replaceChildren();
      app.fail(err);
    }
  };
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    void run();
  });
  if (saved.query) void run();
  else app.ready("search");
  return () => {
    alive = false;
    graph?.destroy();
  };
};

function provenanceList(eps: Episode[] | undefined): HTMLElement | null {
  if (!eps?.length) return null;
  return h(
    "ul",
    { class: "provenance" },
    eps.map((ep) => h("li", {}, h("span", { class: "when" }, fmtTime(ep.timestamp)), " ", h("b", {}, ep.name || ep.role || "?"), ": ", ep.content)),
  );
}

function renderResults(app: App, out: HTMLElement, res: SearchResult): MemoryGraph {
  const all = [...res.facts, ...res.episodes, ...res.entities];
  const maxRel = Math.max(1e-12, ...all.map((r) => r.score.relevance));
  const warnings = res.warnings?.length ? h("div", { class: "warnings" }, res.warnings.map((w) => h("p", {}, `⚠ ${w}`))) : null;
  const facts = res.facts.map((f) =>
    h(
      "article",
      { class: `card fact status-${f.status}`, "data-fact": f.id },
      h("header", {}, h("span", { class: `badge ${f.status}` }, f.status), " ", h("span", { class: "fact-text" }, f.fact)),
      h(
        "p",
        { class: "meta" },
        h("a", { href: app.link(`entity/${f.subject_id}`) }, f.subject),
        ` —${f.predicate}→ `,
        h("a", { href: app.link(`entity/${f.object_id}`) }, f.object),
        ` · valid ${fmtDate(f.valid_at)} → ${f.invalid_at ? fmtDate(f.invalid_at) : "now"}`,
      ),
      scoreBreakdown(f.score, maxRel),
      provenanceList(f.provenance),
    ),
  );
  const episodes = res.episodes.map((ep) =>
    h(
      "article",
      { class: "card episode", "data-episode": ep.id },
      h("header", {}, h("span", { class: "when" }, fmtTime(ep.timestamp)), " ", h("b", {}, ep.name || ep.role || "?"), ` in ${ep.thread_id}`),
      h("p", { class: "content" }, ep.content),
      scoreBreakdown(ep.score, maxRel),
    ),
  );
  const entities = res.entities.map((en) =>
    h(
      "article",
      { class: "card entity", "data-entity": en.id },
      h("header", {}, h("a", { href: app.link(`entity/${en.id}`) }, en.name), " ", h("span", { class: "muted" }, en.type)),
      scoreBreakdown(en.score, maxRel),
    ),
  );
  const graph = new MemoryGraph({
    onExpand: (id) => app.go(`graph/${id}`),
    onOpen: (id) => app.go(`entity/${id}`),
  });
  const ctx = h("pre", { class: "context", id: "context" });
  ctx.textContent = res.context;
  out.replaceChildren(
    ...[warnings].filter((x): x is HTMLDivElement => x !== null),
    h(
      "div",
      { class: "columns" },
      h(
        "div",
        { class: "col" },
        h("h3", {}, `Facts (${res.facts.length})`),
        ...facts,
        h("h3", {}, `Messages (${res.episodes.length})`),
        ...episodes,
        h("h3", {}, `Entities (${res.entities.length})`),
        ...entities,
      ),
      h(
        "div",
        { class: "col" },
        h("h3", {}, "Result graph ", h("span", { class: "muted" }, "(click an entity to explore its neighbourhood)")),
        graph.el,
        h("h3", {}, "Prompt context ", h("span", { class: "muted" }, "(exactly as an LLM gets it)")),
        ctx,
      ),
    ),
  );
  graph.add(res.graph.nodes, res.graph.edges);
  graph.layout();
  return graph;
}

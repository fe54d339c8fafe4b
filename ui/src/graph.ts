// MemoryGraph draws entities and facts with Cytoscape.js: facts as labelled,
// directed edges styled by status, entities coloured by type. It also keeps a
// text list of the edges beside the canvas (for screen readers and tests).
import cytoscape, { type Core, type ElementDefinition } from "cytoscape";
import fcose from "cytoscape-fcose";
import { h, typeColor } from "./dom";
import type { FactStatus, GraphEdge, GraphNode } from "./types";

cytoscape.use(fcose);

export interface GraphOptions {
  /** onExpand is called when a node is clicked (load its neighbourhood). */
  onExpand?: (id: string) => void;
  /** onOpen is called when a node is double-clicked (open its page). */
  onOpen?: (id: string) => void;
}

const statusStyle: Record<FactStatus, { color: string; line: "solid" | "dashed" | "dotted" }> = {
  current: { color: "#444", line: "solid" },
  upcoming: { color: "#1f77b4", line: "dashed" },
  ended: { color: "#999", line: "dashed" },
  invalidated: { color: "#e15759", line: "dotted" },
};

/** MemoryGraph is one Cytoscape canvas with its legend and edge list. */
export class MemoryGraph {
  readonly el: HTMLElement;
  private readonly canvas: HTMLDivElement;
  private readonly edgeList: HTMLOListElement;
  private readonly legend: HTMLDivElement;
  private readonly cy: Core;
  private nodes = new Map<string, GraphNode>();
  private edges = new Map<string, GraphEdge>();
  private showHistory = true;

  constructor(opts: GraphOptions = {}) {
    this.canvas = h("div", { class: "graph-canvas", "data-testid": "graph-canvas" });
    this.edgeList = h("ol", { class: "edge-list" });
    this.legend = h("div", { class: "graph-legend" });
    this.el = h(
      "div",
      { class: "graph" },
      this.canvas,
      this.legend,
      h("details", { class: "edges-text" }, h("summary", {}, "Facts as text"), this.edgeList),
    );
    this.cy = cytoscape({
      container: this.canvas,
      minZoom: 0.1,
      maxZoom: 4,
      style: [
        {
          selector: "node",
          style: {
            "background-color": "data(color)",
            label: "data(label)",
            "font-size": 11,
            "text-valign": "bottom",
            "text-margin-y": 3,
            color: "#222",
            width: 22,
            height: 22,
            "text-outline-color": "#fff",
            "text-outline-width": 2,
            "min-zoomed-font-size": 7,
          },
        },
        { selector: "node.seed", style: { "border-width": 3, "border-color": "#222" } },
        {
          selector: "edge",
          style: {
            label: "data(label)",
            "font-size": 9,
            "curve-style": "bezier",
            "target-arrow-shape": "triangle",
            "line-color": "data(color)",
            "target-arrow-color": "data(color)",
            "line-style": "data(line)" as never,
            width: 1.6,
            color: "#333",
            "text-rotation": "autorotate",
            "text-background-color": "#fff",
            "text-background-opacity": 0.8,
            "text-background-padding": "1px",
            "min-zoomed-font-size": 7,
          },
        },
        { selector: ":selected", style: { "overlay-opacity": 0.15 } },
      ],
      elements: [],
      layout: { name: "preset" },
    });
    this.cy.on("tap", "node", (ev) => opts.onExpand?.(ev.target.id()));
    this.cy.on("dbltap", "node", (ev) => opts.onOpen?.(ev.target.id()));
  }

  /** add merges nodes and edges; returns how many were new. */
  add(nodes: GraphNode[], edges: GraphEdge[], seeds: string[] = []): number {
    let added = 0;
    this.cy.batch(() => {
      added = this.addNow(nodes, edges, seeds);
    });
    this.refreshText();
    return added;
  }

  private addNow(nodes: GraphNode[], edges: GraphEdge[], seeds: string[]): number {
    const els: ElementDefinition[] = [];
    for (const n of nodes) {
      const known = this.nodes.get(n.id);
      if (known) {
        if (n.type && known.type !== n.type) {
          known.type = n.type;
          this.cy.getElementById(n.id).data("color", typeColor(n.type));
        }
        continue;
      }
      this.nodes.set(n.id, { ...n });
      els.push({ group: "nodes", data: { id: n.id, label: n.name, color: typeColor(n.type || "Other"), type: n.type } });
    }
    for (const e of edges) {
      if (this.edges.has(e.id)) continue;
      this.edges.set(e.id, e);
      const st = statusStyle[e.status] ?? statusStyle.current;
      els.push({ group: "edges", classes: `status-${e.status}`, data: { id: e.id, source: e.source, target: e.target, label: e.predicate, color: st.color, line: st.line, status: e.status } });
    }
    this.cy.add(els);
    for (const id of seeds) this.cy.getElementById(id).addClass("seed");
    this.applyHistory();
    return els.length;
  }

  /** nodeIds lists the entities drawn. */
  nodeIds(): string[] {
    return [...this.nodes.keys()];
  }

  /** hasNode reports whether an entity is drawn. */
  hasNode(id: string): boolean {
    return this.nodes.has(id);
  }

  /** setShowHistory shows or hides ended and invalidated facts (current and upcoming ones always show). */
  setShowHistory(on: boolean): void {
    this.showHistory = on;
    this.cy.batch(() => this.applyHistory());
  }

  private applyHistory(): void {
    this.cy.edges().forEach((e) => {
      e.style("display", this.showHistory || e.data("status") === "current" || e.data("status") === "upcoming" ? "element" : "none");
    });
  }

  /** layout arranges the graph (force-directed; a grid beyond 1500 nodes). */
  layout(): void {
    const n = this.cy.nodes().length;
    if (n === 0) return;
    const opts =
      n > 1500
        ? { name: "grid", animate: false }
        : { name: "fcose", animate: false, quality: "default", numIter: n > 300 ? 600 : 2500, uniformNodeDimensions: true, randomize: true, nodeRepulsion: 8000, idealEdgeLength: n < 40 ? 150 : 90, packComponents: true };
    this.cy.layout(opts as cytoscape.LayoutOptions).run();
    this.fit();
  }

  /** fit shows the whole graph, without blowing a small one up. */
  private fit(): void {
    this.cy.fit(undefined, 30);
    if (this.cy.zoom() > 1.6) {
      this.cy.zoom(1.6);
      this.cy.center();
    }
  }

  /** resize adapts to the container after it is shown. */
  resize(): void {
    this.cy.resize();
    this.fit();
  }

  /** destroy frees the canvas. */
  destroy(): void {
    this.cy.destroy();
  }

  private refreshText(): void {
    const byName = (id: string) => this.nodes.get(id)?.name ?? id;
    this.edgeList.replaceChildren(
      ...[...this.edges.values()].map((e) =>
        h("li", { class: `edge status-${e.status}`, "data-status": e.status, "data-fact": e.id, title: e.fact }, `${byName(e.source)} —${e.predicate}→ ${byName(e.target)}`, h("span", { class: `badge ${e.status}` }, e.status)),
      ),
    );
    this.refreshLegend();
  }

  private refreshLegend(): void {
    const types = [...new Set([...this.nodes.values()].map((n) => n.type || "Other"))].sort();
    this.legend.replaceChildren(
      h("span", { class: "legend-title" }, `${this.nodes.size} entities, ${this.edges.size} facts`),
      ...types.map((t) => h("span", { class: "legend-type" }, legendDot(typeColor(t)), t)),
      ...(["current", "upcoming", "ended", "invalidated"] as FactStatus[]).map((st) => h("span", { class: `legend-edge ${st}` }, legendLine(st), st)),
    );
  }
}

function legendDot(color: string): SVGSVGElement {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("width", "12");
  svg.setAttribute("height", "12");
  const c = document.createElementNS("http://www.w3.org/2000/svg", "circle");
  c.setAttribute("cx", "6");
  c.setAttribute("cy", "6");
  c.setAttribute("r", "5");
  c.setAttribute("fill", color);
  svg.append(c);
  return svg;
}

function legendLine(st: FactStatus): SVGSVGElement {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("width", "26");
  svg.setAttribute("height", "10");
  const l = document.createElementNS("http://www.w3.org/2000/svg", "line");
  l.setAttribute("x1", "1");
  l.setAttribute("x2", "25");
  l.setAttribute("y1", "5");
  l.setAttribute("y2", "5");
  l.setAttribute("stroke", statusStyle[st].color);
  l.setAttribute("stroke-width", "2");
  if (st !== "current") l.setAttribute("stroke-dasharray", st === "invalidated" ? "2 2" : "5 3");
  svg.append(l);
  return svg;
}

/** factEdges turns listed facts into graph nodes (names only) and edges. */
export function factEdges(facts: { id: string; subject_id: string; subject: string; object_id: string; object: string; predicate: string; fact: string; status: FactStatus }[]): { nodes: GraphNode[]; edges: GraphEdge[] } {
  const nodes = new Map<string, GraphNode>();
  const edges: GraphEdge[] = [];
  for (const f of facts) {
    if (!nodes.has(f.subject_id)) nodes.set(f.subject_id, { id: f.subject_id, name: f.subject, type: "" });
    if (!nodes.has(f.object_id)) nodes.set(f.object_id, { id: f.object_id, name: f.object, type: "" });
    edges.push({ id: f.id, source: f.subject_id, target: f.object_id, predicate: f.predicate, fact: f.fact, status: f.status });
  }
  return { nodes: [...nodes.values()], edges };
}

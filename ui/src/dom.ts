// Small DOM helpers: every piece of server data reaches the page as text
// (textContent), never as markup.

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | null | EventListener>;

/** h creates an element with attributes (on* keys become listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v as EventListener);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el: Element, children: (Child | Child[])[]): void {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === "number" ? String(c) : c);
  }
}

const svgNS = "http://www.w3.org/2000/svg";

/** s creates an SVG element with presentation attributes and children. */
export function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number | undefined> = {}, ...children: (Node | string)[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

/** fmtTime shows an RFC 3339 instant as "2024-03-01 09:30" (UTC). */
export function fmtTime(t?: string): string {
  if (!t) return "—";
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return t;
  return d.toISOString().slice(0, 16).replace("T", " ");
}

/** fmtDate shows an RFC 3339 instant as "2024-03-01" (UTC). */
export function fmtDate(t?: string): string {
  return t ? fmtTime(t).slice(0, 10) : "—";
}

/** num shows a number with a sensible precision. */
export function num(x: number, digits = 3): string {
  if (!Number.isFinite(x)) return String(x);
  if (x !== 0 && Math.abs(x) < 10 ** -digits) return x.toExponential(1);
  return x.toFixed(digits);
}

/** days shows a duration in days in the largest fitting unit. */
export function days(d: number): string {
  if (!Number.isFinite(d)) return "never";
  if (d < 1 / 24) return `${Math.round(d * 1440)} min`;
  if (d < 1) return `${(d * 24).toFixed(1)} h`;
  if (d < 60) return `${d.toFixed(1)} d`;
  if (d < 730) return `${(d / 30.44).toFixed(1)} mo`;
  return `${(d / 365.25).toFixed(1)} y`;
}

const typeColors: Record<string, string> = {
  Person: "#4e79a7",
  Organization: "#f28e2b",
  Team: "#59a14f",
  Project: "#b07aa1",
  Place: "#76b7b2",
  Event: "#edc948",
  Object: "#9c755f",
  Concept: "#ff9da7",
  Preference: "#e15759",
  Other: "#bab0ac",
};

/** typeColor is the colour of an entity type: fixed for the built-in types, hashed for others. */
export function typeColor(type: string): string {
  if (typeColors[type]) return typeColors[type];
  let hash = 0;
  for (const ch of type) hash = (hash * 31 + ch.charCodeAt(0)) | 0;
  return `hsl(${Math.abs(hash) % 360} 55% 55%)`;
}

/** retrieverColor is the colour of a retriever in score breakdowns. */
export const retrieverColor: Record<string, string> = {
  vector: "#4e79a7",
  bm25: "#f28e2b",
  thread: "#59a14f",
  speaker: "#b07aa1",
  graph: "#e15759",
  rerank: "#76b7b2",
  other: "#bab0ac",
};

// kgmem explorer: a single-page app over kgmem's public REST API, served by
// the server at /ui/. Routes live in the URL fragment (#/search?ns=…); the
// API key lives in sessionStorage only.
import "./style.css";
import { api, apiKey, setApiKey } from "./api";
import { type App, type View, noticeText, parseHash, routeHref } from "./app";
import { entityView } from "./views/entity";
import { graphView } from "./views/graph";
import { jobsView } from "./views/jobs";
import { memoryView } from "./views/memory";
import { namespacesView } from "./views/namespaces";
import { searchView } from "./views/search";

const views: Record<string, View> = {
  namespaces: namespacesView,
  search: searchView,
  graph: graphView,
  entity: entityView,
  memory: memoryView,
  jobs: jobsView,
};

const nsStorage = "kgmem.namespace";
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const viewEl = $<HTMLElement>("view");
const notice = $<HTMLDivElement>("notice");
const nsInput = $<HTMLInputElement>("ns-input");
const keyInput = $<HTMLInputElement>("key-input");
const keyState = $<HTMLSpanElement>("key-state");

let current = { ns: sessionStorage.getItem(nsStorage) ?? "" };
let cleanup: (() => void) | void;
let renderSeq = 0;

function showNotice(text: string, kind: "error" | "info"): void {
  notice.textContent = text;
  notice.className = `notice ${kind}`;
  notice.hidden = false;
}

const app: App = {
  get ns() {
    return current.ns;
  },
  go(route) {
    location.hash = routeHref(route, current.ns);
  },
  link(route) {
    return routeHref(route, current.ns);
  },
  fail(err) {
    console.info("kgmem explorer:", err instanceof Error ? err.stack : err);
    showNotice(noticeText(err, current.ns), "error");
  },
  info(msg) {
    showNotice(msg, "info");
  },
  clearNotice() {
    notice.hidden = true;
    notice.textContent = "";
  },
  ready(view) {
    // When the view was drawn, in ms since the navigation started (the first-render benchmark reads it).
    document.body.dataset.readyAt = performance.now().toFixed(1);
    document.body.dataset.ready = view;
  },
};

function updateChrome(view: string): void {
  nsInput.value = current.ns;
  for (const a of document.querySelectorAll<HTMLAnchorElement>("#tabs a")) {
    const v = a.dataset.view ?? "";
    a.href = routeHref(v, current.ns);
    a.classList.toggle("active", v === view);
  }
  keyState.textContent = apiKey() ? "key set for this tab" : "no key";
}

function render(): void {
  const { parts, ns } = parseHash(location.hash);
  if (ns && ns !== current.ns) {
    current = { ns };
    sessionStorage.setItem(nsStorage, ns);
  }
  let name = parts[0] ?? "";
  if (!views[name]) name = current.ns ? "search" : "namespaces";
  if (cleanup) cleanup();
  cleanup = undefined;
  delete document.body.dataset.ready;
  app.clearNotice();
  updateChrome(name);
  viewEl.replaceChildren();
  viewEl.dataset.view = name;
  const seq = ++renderSeq;
  const needsNs = name !== "namespaces";
  if (needsNs && !current.ns) {
    app.info("Choose a namespace first: pick one below or type one above.");
    location.hash = routeHref("namespaces", "");
    return;
  }
  try {
    cleanup = views[name](app, viewEl, parts.slice(1));
  } catch (err) {
    if (seq === renderSeq) app.fail(err);
  }
}

$<HTMLFormElement>("ns-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const ns = nsInput.value.trim();
  if (!ns) return;
  current = { ns };
  sessionStorage.setItem(nsStorage, ns);
  const { parts } = parseHash(location.hash);
  const view = parts[0] && parts[0] !== "namespaces" && parts[0] !== "entity" ? parts[0] : "search";
  location.hash = routeHref(view, ns);
});

$<HTMLFormElement>("key-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  setApiKey(keyInput.value.trim());
  keyInput.value = "";
  render();
});

$<HTMLButtonElement>("key-forget").addEventListener("click", () => {
  setApiKey("");
  keyInput.value = "";
  render();
});

// Offer the namespaces the key can read in the namespace box.
async function fillNamespaces(): Promise<void> {
  try {
    const { namespaces } = await api.listNamespaces();
    $<HTMLDataListElement>("ns-list").replaceChildren(...namespaces.map((n) => Object.assign(document.createElement("option"), { value: n })));
  } catch {
    // the view shows errors; the suggestions are optional
  }
}

window.addEventListener("hashchange", render);
$<HTMLFormElement>("key-form").addEventListener("submit", fillNamespaces);
render();
void fillNamespaces();

// Namespaces: those that exist and that the key may read, or type one.
import { api } from "../api";
import type { View } from "../app";
import { h } from "../dom";

export const namespacesView: View = (app, el) => {
  const list = h("ul", { class: "ns-list" });
  const typed = h("input", { id: "ns-typed", placeholder: "acme/users/u42", spellcheck: "false" });
  const form = h(
    "form",
    { class: "inline-form", onsubmit: ((ev: Event) => {
      ev.preventDefault();
      const ns = typed.value.trim();
      if (ns) location.hash = `#/search?${new URLSearchParams({ ns })}`;
    }) as EventListener },
    h("label", { for: "ns-typed" }, "Or type a namespace"),
    typed,
    h("button", { type: "submit" }, "Open"),
  );
  const prefixes = h("p", { class: "muted" });
  el.append(h("section", { class: "panel" }, h("h2", {}, "Namespaces"), h("p", { class: "muted" }, "Every namespace holding records that this key may read."), list, prefixes, form));
  let alive = true;
  api
    .listNamespaces()
    .then((r) => {
      if (!alive) return;
      list.replaceChildren(
        ...r.namespaces.map((ns) => h("li", {}, h("a", { href: `#/search?${new URLSearchParams({ ns })}`, class: "ns-link", "data-ns": ns }, ns), " ", h("a", { href: `#/graph?${new URLSearchParams({ ns })}`, class: "muted" }, "graph"))),
      );
      if (r.namespaces.length === 0) list.append(h("li", { class: "muted" }, "No namespace holds anything yet that this key may read."));
      if (r.prefixes?.length) prefixes.textContent = `This key covers the namespace prefixes: ${r.prefixes.join(", ")}.`;
      app.ready("namespaces");
    })
    .catch((err) => alive && app.fail(err));
  return () => {
    alive = false;
  };
};

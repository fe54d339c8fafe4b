import { describe, expect, it } from "vitest";
import { parseHash, routeHref } from "./app";

describe("routes", () => {
  it.each([
    ["search", "acme/users/u42"],
    ["entity/ent_1", "acme/users/u42"],
    ["graph/ent with space", "a"],
    ["namespaces", ""],
  ])("%s in %s round-trips through the URL fragment", (route, ns) => {
    const { parts, ns: back } = parseHash(routeHref(route, ns));
    expect(parts).toEqual(route.split("/"));
    expect(back).toBe(ns);
  });

  it("keeps the namespace one query parameter, escaped", () => {
    expect(routeHref("search", "acme/users/u42")).toBe("#/search?ns=acme%2Fusers%2Fu42");
  });
});

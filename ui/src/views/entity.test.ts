import { describe, expect, it } from "vitest";
import type { Fact } from "../types";
import { supersessions } from "./entity";

function fact(id: string, over: Partial<Fact>): Fact {
  return {
    id,
    namespace: "ns",
    subject_id: "alice",
    subject: "Alice",
    predicate: "manages",
    object_id: "ml",
    object: "ML team",
    fact: id,
    confidence: 1,
    importance: 5,
    created_at: "2024-01-10T00:00:00Z",
    decay: {},
    status: "current",
    ...over,
  };
}

describe("supersessions", () => {
  const old = fact("alice-manages", {
    status: "invalidated",
    valid_at: "2024-01-10T00:00:00Z",
    invalid_at: "2024-03-01T00:00:00Z",
    expired_at: "2026-11-24T19:00:00.000Z",
  });
  const bob = fact("bob-leads", { subject_id: "bob", subject: "Bob", predicate: "leads", valid_at: "2024-03-01T00:00:00Z", created_at: "2026-11-24T19:00:00.200Z" });

  it("pairs an invalidated fact with the fact written with it that began when it ended", () => {
    expect(supersessions([old, bob]).get(old.id)?.map((f) => f.id)).toEqual(["bob-leads"]);
  });

  it.each([
    ["began at another instant", { valid_at: "2024-03-02T00:00:00Z" }],
    ["was written in another request", { created_at: "2026-11-25T19:00:00Z" }],
    ["shares no entity", { subject_id: "carol", object_id: "nlp" }],
  ])("leaves out a fact that %s", (_, over) => {
    expect(supersessions([old, { ...bob, ...over }]).has(old.id)).toBe(false);
  });

  it("ignores facts that ended without a contradiction", () => {
    const ended = { ...old, status: "ended" as const, expired_at: undefined };
    expect(supersessions([ended, bob]).size).toBe(0);
  });

  it("finds every fact that replaced it", () => {
    const carol = fact("carol-leads", { id: "carol-leads", subject_id: "carol", valid_at: bob.valid_at, created_at: bob.created_at });
    expect(supersessions([old, bob, carol]).get(old.id)?.map((f) => f.id)).toEqual(["bob-leads", "carol-leads"]);
  });
});

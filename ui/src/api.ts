// The explorer's only way to the server: kgmem's public REST API, with the
// API key (if any) sent as a bearer header, never in a URL.
import type { Entity, Episode, Fact, Job, Problem, Ref, SearchRequest, SearchResult, Settings, Strength, SweepStats } from "./types";

const keyStorage = "kgmem.key";

/** The API key kept for this browser tab (sessionStorage), or "". */
export function apiKey(): string {
  return sessionStorage.getItem(keyStorage) ?? "";
}

/** Keeps key for this tab; an empty key forgets it. */
export function setApiKey(key: string): void {
  if (key) sessionStorage.setItem(keyStorage, key);
  else sessionStorage.removeItem(keyStorage);
}

/** ApiError is a failed call: the HTTP status and the server's problem+json. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
    readonly retryAfter: string | null,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** describe turns an error into the sentence the page shows. */
export function describe(err: unknown, namespace?: string): string {
  if (err instanceof ApiError) {
    const detail = err.problem?.detail ? `: ${err.problem.detail}` : "";
    switch (err.status) {
      case 401:
        return apiKey()
          ? `The server refused this API key (401)${detail}. Enter a valid key above.`
          : `This server needs an API key (401). Enter one above.`;
      case 403:
        return `This API key may not do that${namespace ? ` in namespace “${namespace}”` : ""} (403)${detail}.`;
      case 429:
        return `Too many requests for this key (429); retry in ${err.retryAfter ?? "a few"} s.`;
      case 503:
        return `A backend is unavailable (503)${detail}. Retry in a moment.`;
      default: {
        const field = err.problem?.field ? ` (field ${err.problem.field})` : "";
        return `${err.problem?.title ?? "Error"} (${err.status})${detail}${field}`;
      }
    }
  }
  if (err instanceof TypeError) return `Cannot reach the kgmem server: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  const key = apiKey();
  if (key) headers.Authorization = `Bearer ${key}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const resp = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "omit",
    cache: "no-store",
  });
  const text = await resp.text();
  if (!resp.ok) {
    let problem: Problem | undefined;
    try {
      problem = JSON.parse(text) as Problem;
    } catch {
      problem = undefined;
    }
    throw new ApiError(resp.status, problem, resp.headers.get("Retry-After"), `${method} ${path}: ${resp.status}`);
  }
  return (text ? JSON.parse(text) : {}) as T;
}

function query(params: Record<string, string | number | boolean | string[] | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === "") continue;
    if (Array.isArray(v)) v.forEach((x) => q.append(k, x));
    else q.set(k, String(v));
  }
  return q.toString();
}

const seg = (ns: string) => encodeURIComponent(ns);

export interface Page<T> {
  items: T[];
  next?: string;
}

/**
 * The kgmem REST API, one method per route the explorer uses, each named by
 * its operationId (docs/reference/vocabulary.md).
 */
export const api = {
  listNamespaces: () => call<{ namespaces: string[]; prefixes?: string[] }>("GET", "/v1/namespaces"),
  search: (req: SearchRequest) => call<SearchResult>("POST", "/v1/search", req),
  listFacts: async (ns: string, opts: { entity?: string; currentOnly?: boolean; limit?: number; after?: string } = {}): Promise<Page<Fact>> => {
    const r = await call<{ facts: Fact[]; next?: string }>(
      "GET",
      `/v1/facts?${query({ namespace: ns, entity: opts.entity, current_only: opts.currentOnly || undefined, limit: opts.limit, after: opts.after })}`,
    );
    return { items: r.facts, next: r.next };
  },
  getEntity: (ns: string, id: string) => call<Entity>("GET", `/v1/entities/${encodeURIComponent(id)}?${query({ namespace: ns })}`),
  listEntities: async (ns: string, opts: { q?: string; ids?: string[]; limit?: number; after?: string } = {}): Promise<Page<Entity>> => {
    const r = await call<{ entities: Entity[]; next?: string }>(
      "GET",
      `/v1/entities?${query({ namespace: ns, q: opts.q, id: opts.ids, limit: opts.limit, after: opts.after })}`,
    );
    return { items: r.entities, next: r.next };
  },
  listEpisodes: async (ns: string, opts: { ids?: string[]; limit?: number; after?: string } = {}): Promise<Page<Episode>> => {
    const r = await call<{ episodes: Episode[]; next?: string }>(
      "GET",
      `/v1/episodes?${query({ namespace: ns, id: opts.ids, limit: opts.limit, after: opts.after })}`,
    );
    return { items: r.episodes, next: r.next };
  },
  strength: (ns: string, refs: Ref[]) => call<{ records: Strength[] }>("POST", "/v1/strength", { namespace: ns, refs }),
  pin: (ns: string, refs: Ref[], pinned: boolean) => call<unknown>("POST", "/v1/pins", { namespace: ns, refs, pinned }),
  restore: (ns: string, refs: Ref[]) => call<unknown>("POST", "/v1/restore", { namespace: ns, refs }),
  sweep: (ns: string) => call<Record<string, SweepStats>>("POST", `/v1/namespaces/${seg(ns)}/sweep`),
  getSettings: (ns: string) => call<Settings>("GET", `/v1/namespaces/${seg(ns)}/settings`),
  listJobs: (ns: string, limit = 50) => call<{ jobs: Job[] }>("GET", `/v1/jobs?${query({ namespace: ns, limit })}`),
  addMemoriesAsync: (ns: string, threadId: string, messages: unknown[], extract: boolean) =>
    call<Job>("POST", "/v1/memories", { namespace: ns, thread_id: threadId, messages, extract, mode: "async" }),
};

/**
 * maxIdsPerCall bounds the ids one GET names (?id=…&id=…), keeping its URL
 * under about 8 KB, which every proxy passes.
 */
export const maxIdsPerCall = 200;

/** chunks splits xs into slices of at most n. */
export function chunks<T>(xs: T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

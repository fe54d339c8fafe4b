// The shell every view shares: the namespace in use, navigation and the
// notice line.
import { describe } from "./api";

/** App is what a view gets from the shell. */
export interface App {
  /** The namespace in use ("" before one is chosen). */
  readonly ns: string;
  /** go navigates to a view ("graph", "entity/ent_…"), keeping the namespace. */
  go(route: string): void;
  /** link is the href of a view in the namespace in use. */
  link(route: string): string;
  /** fail shows err as the page's notice. */
  fail(err: unknown): void;
  /** info shows a transient message. */
  info(msg: string): void;
  /** clearNotice hides the notice. */
  clearNotice(): void;
  /** ready marks the view as rendered (tests and the benchmark wait for it). */
  ready(view: string): void;
}

/** View renders into el and returns a cleanup to run when the view is left. */
export type View = (app: App, el: HTMLElement, args: string[]) => void | (() => void);

/** parseHash splits "#/entity/ent_1?ns=a%2Fb" into its route parts and namespace. */
export function parseHash(hash: string): { parts: string[]; ns: string } {
  const raw = hash.replace(/^#\/?/, "");
  const [path, q = ""] = raw.split("?", 2);
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const ns = new URLSearchParams(q).get("ns") ?? "";
  return { parts, ns };
}

/** routeHref builds "#/route?ns=…". */
export function routeHref(route: string, ns: string): string {
  const path = route
    .split("/")
    .filter(Boolean)
    .map((p, i) => (i === 0 ? p : encodeURIComponent(p)))
    .join("/");
  return ns ? `#/${path}?${new URLSearchParams({ ns }).toString()}` : `#/${path}`;
}

/** noticeText is the sentence shown for err. */
export function noticeText(err: unknown, ns: string): string {
  return describe(err, ns);
}

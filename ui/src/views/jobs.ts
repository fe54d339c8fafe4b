// Jobs and imports: the namespace's background ingest jobs with their
// progress, and an import of messages (JSON Lines) as background jobs.
import { api, chunks } from "../api";
import type { View } from "../app";
import { fmtTime, h, s } from "../dom";
import type { Job } from "../types";

/** pollMs is how often the list refreshes while a job is queued or running. */
const pollMs = 1500;

export const jobsView: View = (app, el) => {
  let alive = true;
  let timer: number | undefined;
  const body = h("tbody", {});
  const file = h("input", { type: "file", id: "import-file", accept: ".jsonl,.json,.txt" });
  const text = h("textarea", { id: "import-text", rows: 5, placeholder: '{"thread_id": "chat-1", "id": "m1", "role": "user", "name": "Alice", "content": "…", "timestamp": "2024-01-10T09:00:00Z"}' });
  const thread = h("input", { id: "import-thread", value: "import", placeholder: "thread id when a line has none" });
  const extract = h("input", { type: "checkbox", id: "import-extract" });
  const importOut = h("span", { class: "muted", id: "import-result" });

  async function refresh(): Promise<void> {
    window.clearTimeout(timer);
    try {
      const { jobs } = await api.listJobs(app.ns, 100);
      if (!alive) return;
      body.replaceChildren(...jobs.map(jobRow));
      if (!jobs.length) body.append(h("tr", {}, h("td", { colspan: 7, class: "muted" }, "No background jobs in this namespace yet.")));
      if (jobs.some((j) => j.status === "queued" || j.status === "running")) timer = window.setTimeout(() => void refresh(), pollMs);
    } catch (err) {
      if (alive) app.fail(err);
    }
  }

  async function runImport(ev: Event): Promise<void> {
    ev.preventDefault();
    try {
      const raw = file.files?.[0] ? await file.files[0].text() : text.value;
      const byThread = new Map<string, unknown[]>();
      raw.split("\n").forEach((line, i) => {
        if (!line.trim()) return;
        let msg: Record<string, unknown>;
        try {
          msg = JSON.parse(line) as Record<string, unknown>;
        } catch {
          throw new Error(`line ${i + 1} is not JSON`);
        }
        const t = String(msg.thread_id ?? thread.value ?? "import");
        delete msg.thread_id;
        delete msg.namespace;
        byThread.set(t, [...(byThread.get(t) ?? []), msg]);
      });
      let n = 0;
      for (const [t, msgs] of byThread) {
        for (const part of chunks(msgs, 1000)) {
          await api.addMemoriesAsync(app.ns, t, part, extract.checked);
          n++;
        }
      }
      importOut.textContent = `${n} job${n === 1 ? "" : "s"} submitted.`;
      await refresh();
    } catch (err) {
      app.fail(err);
    }
  }

  el.append(
    h(
      "section",
      { class: "panel" },
      h("h2", {}, "Background jobs ", h("span", { class: "muted" }, app.ns)),
      h("p", { class: "muted" }, 'Ingests posted with "mode": "async" run in the background; the list refreshes while any is queued or running.'),
      h(
        "table",
        { class: "jobs" },
        h("thead", {}, h("tr", {}, ["job", "thread", "status", "progress", "accepted", "finished", "result"].map((c) => h("th", {}, c)))),
        body,
      ),
      h("button", { type: "button", onclick: () => void refresh() }, "Refresh"),
    ),
    h(
      "section",
      { class: "panel" },
      h("h2", {}, "Import messages"),
      h("p", { class: "muted" }, "JSON Lines, one message per line (thread_id, id, role, name, content, timestamp), submitted as background jobs of at most 1,000 messages per thread. For multi-GB exports use `server ingest`."),
      h(
        "form",
        { class: "import-form", onsubmit: ((ev: Event) => void runImport(ev)) as EventListener },
        text,
        h("div", { class: "row options" }, file, h("label", {}, "default thread ", thread), h("label", {}, extract, " extract facts (needs an LLM on the server)"), h("button", { type: "submit" }, "Import"), importOut),
      ),
    ),
  );
  refresh()
    .then(() => alive && app.ready("jobs"))
    .catch((err) => alive && app.fail(err));
  return () => {
    alive = false;
    window.clearTimeout(timer);
  };
};

function jobRow(j: Job): HTMLTableRowElement {
  const frac = j.progress.messages ? j.progress.stored / j.progress.messages : 0;
  const bar = s("svg", { width: 120, height: 12, class: "progress" },
    s("rect", { x: 0, y: 0, width: 120, height: 12, fill: "#eee", rx: 2 }),
    s("rect", { x: 0, y: 0, width: 120 * frac, height: 12, fill: j.status === "failed" ? "#e15759" : "#59a14f", rx: 2 }));
  const usage = j.result?.usage;
  return h(
    "tr",
    { "data-job": j.id, class: `job ${j.status}` },
    h("td", { class: "mono" }, j.id),
    h("td", {}, j.thread_id),
    h("td", {}, h("span", { class: `badge ${j.status}` }, j.status)),
    h("td", {}, bar, ` ${j.progress.stored}/${j.progress.messages} messages`),
    h("td", {}, fmtTime(j.created_at)),
    h("td", {}, fmtTime(j.finished_at)),
    h(
      "td",
      {},
      j.error ? h("span", { class: "error-text" }, j.error) : null,
      j.result ? `${j.result.facts?.length ?? 0} fact changes${usage ? `, ${usage.calls} LLM calls` : ""}` : null,
      j.coalesced_with?.length ? h("span", { class: "muted" }, ` (with ${j.coalesced_with.length} more)`) : null,
    ),
  );
}

// Screenshot of Neo4j Browser showing the demo graph with docs/neo4j/style.grass,
// taken with the system Chromium through puppeteer-core:
//
//   npm install --prefix /tmp/shot puppeteer-core@25
//   NODE_PATH=/tmp/shot/node_modules node scripts/neo4j/screenshot.mjs docs/neo4j/browser.png
//
// Needs a running server (scripts/neo4j.sh start) and the demo namespace
// (KGMEM_NEO4J_DEMO=1 go test -run TestSeedDemo ./graph/neo4j/).
import { createRequire } from "node:module";
import { readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const puppeteer = require("puppeteer-core");
const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] ?? "browser.png";
const http = process.env.KGMEM_NEO4J_HTTP_PORT ?? "7474";
const bolt = process.env.KGMEM_NEO4J_BOLT_PORT ?? "7687";
const grass = readFileSync(join(here, "../../docs/neo4j/style.grass"), "utf8").replace(/\s+/g, " ");
const query = "MATCH p = (e:Entity {namespace: 'demo/alice'})-[r]-(x) WHERE x:Entity OR x:Episode RETURN p";

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  userDataDir: mkdtempSync(join(tmpdir(), "kgmem-shot-")),
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--window-size=1280,800"],
  defaultViewport: { width: 1280, height: 800 },
});
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${http}/browser/?dbms=bolt://127.0.0.1:${bolt}&preselectAuthMethod=NO_AUTH`, { waitUntil: "networkidle2", timeout: 60000 });
  // Connect when Browser shows its form instead of connecting by itself.
  const connect = await page.$("button[data-testid='connect']");
  if (connect) await connect.click();
  await page.waitForFunction(() => !document.body.innerText.includes("Database access not available"), { timeout: 30000 });
  const run = async (text) => {
    const editor = await page.waitForSelector(".monaco-editor textarea", { timeout: 30000 });
    await editor.click();
    await page.keyboard.type(text);
    await page.keyboard.down("Control");
    await page.keyboard.press("Enter");
    await page.keyboard.up("Control");
  };
  await run(":style " + grass);
  await new Promise((r) => setTimeout(r, 1000)); // let Browser store the style before the next frame
  await run(query);
  await page.waitForSelector("svg .node", { timeout: 30000 });
  await new Promise((r) => setTimeout(r, 4000)); // the force layout settles over a few seconds
  await page.screenshot({ path: out });
  console.log("wrote", out);
} finally {
  await browser.close();
}

/**
 * What each HTTP thread of `kontor serve` loads to start: the app, not the code only a rare
 * request needs (the mail library, the PDF writer and reader with their fonts and QR codes, the
 * reminder runs, the recurring invoices' run). Each thread is a JavaScript heap of its own, so
 * whatever every thread loads at start is paid once per thread. Asserted on the modules each
 * thread loaded, as tests/cli/cli-startup.test.ts does for the CLI: a preloaded probe writes Bun's
 * module registry (`require.cache`) to a file, and has every Worker the server starts preload it
 * too. Then a request that needs the PDF code still answers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "kontor-serve-startup-"));
const probe = join(dir, "probe.ts");
const THREADS = 2;

/** The packages no thread loads to start: each is loaded by the request that needs it. */
const HEAVY_PACKAGES = ["nodemailer", "pdf-lib", "@pdf-lib/fontkit", "@pdf-lib/standard-fonts", "@pdf-lib/upng", "pako", "qrcode", "pngjs", "dejavu-fonts-ttf", "yaml"];
/** Loaded by the first thread alone, which answers /metrics: the others count their requests without it. */
const SCRAPER_PACKAGES = ["prom-client", "@opentelemetry/api", "tdigest", "bintrees"];
/** Our modules no thread loads to start. */
const RARE_MODULES = [
  "server/background.ts",
  "server/documents/pdf.ts",
  "server/documents/facturx.ts",
  "server/inbound/pdf-attachments.ts",
  "server/sending/email.ts",
  "server/sending/worker.ts",
  "server/sending/peppol/inbox.ts",
  "server/reminders/run.ts",
  "server/reminders/schedule.ts",
  "server/recurring/run.ts",
  // the readers of uploaded e-invoices and bank statements, loaded by the first import
  "server/inbound/einvoice.ts",
  "server/inbound/ubl-import.ts",
  "server/inbound/cii-import.ts",
  "server/inbound/camt053.ts",
  "server/inbound/coda.ts",
  "server/inbound/zip.ts",
  "server/inbound/xml.ts",
  // statutory interest: the first interest note or reminders read
  "server/interest/claim.ts",
  "server/interest/note.ts",
  // the OpenAPI document as YAML, written by its first request
  "server/docs/yaml.ts",
];

let proc: { kill: (signal?: NodeJS.Signals) => void; exited: Promise<number> } | null = null;
let url = "";
let token = "";
/** Each thread's modules as it started (before any request): "main" and one per worker thread. */
let atStart: Record<string, string[]> = {};

afterAll(async () => {
  if (proc) {
    proc.kill("SIGTERM");
    await proc.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

const loaded = () =>
  Object.fromEntries(
    readdirSync(dir)
      .filter((name) => name.startsWith("loaded-") && name.endsWith(".json"))
      .flatMap((name) => {
        try {
          return [[name.slice("loaded-".length, -".json".length), JSON.parse(readFileSync(join(dir, name), "utf8")) as string[]]];
        } catch {
          return []; // being written
        }
      }),
  );

beforeAll(async () => {
  // every thread writes its registry now and then; a Worker started by the server preloads the probe too
  writeFileSync(
    probe,
    `const { isMainThread, threadId } = require("node:worker_threads");
const fs = require("node:fs");
const out = process.env.LOADED_MODULES_DIR + "/loaded-" + (isMainThread ? "main" : "thread-" + threadId) + ".json";
const dump = () => { fs.writeFileSync(out + ".tmp", JSON.stringify(Object.keys(require.cache))); fs.renameSync(out + ".tmp", out); };
setInterval(dump, 100).unref();
if (isMainThread) {
  const Base = globalThis.Worker;
  globalThis.Worker = class extends Base { constructor(entry, options = {}) { super(entry, { ...options, preload: [${JSON.stringify(probe)}] }); } };
}
`,
  );
  const vars: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !name.startsWith("KONTOR_")) vars[name] = value;
  const server = Bun.spawn(["bun", "--preload", probe, join(ROOT, "cli/main.ts"), "serve", "--db", join(dir, "kontor.db"), "--port", "0", "--json", "--no-worker"], {
    cwd: ROOT,
    env: { ...vars, KONTOR_ENV: "test", KONTOR_HTTP_THREADS: String(THREADS), LOADED_MODULES_DIR: dir },
    stdout: "pipe",
    stderr: "inherit",
  });
  proc = server;
  const reader = server.stdout.getReader();
  let out = "";
  // `--json` prints {url, bootstrap: {token, …}} once the first thread listens
  while (!/"bootstrap"[\s\S]*\}\s*\}\s*$/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`kontor serve exited: ${out}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  ({ url, bootstrap: { token } } = JSON.parse(out) as { url: string; bootstrap: { token: string } });
  // the other threads start after the first listens: wait until every thread has loaded the app
  // (a thread's first registry may be written while it is still loading, on a busy machine)
  const started = () => {
    const registries = Object.values(loaded());
    return registries.length >= THREADS && registries.every((paths) => paths.some((p) => p.endsWith("/server/app.ts")));
  };
  const deadline = Date.now() + 30_000;
  while (!started() && Date.now() < deadline) await Bun.sleep(100);
  expect(await fetch(`${url}/health`).then((r) => r.status)).toBe(200);
  await Bun.sleep(300);
  atStart = loaded();
}, 60_000);

function packagesOf(paths: string[]): string[] {
  return [...new Set(paths.flatMap((p) => /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(p)?.[1] ?? []))].sort();
}

describe("kontor serve at start", () => {
  test("every HTTP thread loads the app without the rarely used packages and modules", () => {
    const threads = Object.keys(atStart).sort();
    expect(threads.length).toBe(THREADS);
    expect(threads).toContain("main");
    for (const thread of threads) {
      const paths = atStart[thread]!;
      const own = paths.filter((p) => !p.includes("node_modules/")).map((p) => relative(ROOT, p));
      // the app itself is there
      expect(own).toContain("server/app.ts");
      expect(packagesOf(paths)).toContain("elysia");
      expect({ thread, heavy: packagesOf(paths).filter((p) => HEAVY_PACKAGES.includes(p)) }).toEqual({ thread, heavy: [] });
      expect({ thread, rare: own.filter((p) => RARE_MODULES.includes(p)) }).toEqual({ thread, rare: [] });
      if (thread !== "main") expect({ thread, scraper: packagesOf(paths).filter((p) => SCRAPER_PACKAGES.includes(p)) }).toEqual({ thread, scraper: [] });
    }
  });

  test("a request that needs the PDF code still answers: an invoice's PDF", async () => {
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return response;
    };
    type Created = { data: { id: string } };
    const customer = (await (await api("POST", "/api/v1/customers", { name: "Startup Check SA", country: "BE" })).json()) as Created;
    expect(customer.data?.id, JSON.stringify(customer)).toBeString();
    const rates = ((await (await api("GET", "/api/v1/vat-rates")).json()) as { data: unknown }).data as { id: string; category: string; rate: string }[];
    const rate = rates.find((r) => r.category === "S")!;
    const invoice = (await (
      await api("POST", "/api/v1/invoices", { customer_id: customer.data.id, issue_date: "2026-03-01", lines: [{ description: "Check", quantity: 1, unit_price: "10.00", vat_rate_id: rate.id }] })
    ).json()) as Created;
    expect(invoice.data?.id, JSON.stringify(invoice)).toBeString();
    // every thread may be asked: each loads the PDF code on its first PDF
    for (let i = 0; i < 4; i++) {
      const pdf = await api("GET", `/api/v1/invoices/${invoice.data.id}/pdf`);
      expect(pdf.status).toBe(200);
      expect(pdf.headers.get("content-type")).toBe("application/pdf");
      expect(new TextDecoder().decode((await pdf.bytes()).subarray(0, 5))).toBe("%PDF-");
    }
  }, 60_000);
});

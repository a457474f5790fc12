/**
 * The floor: the least a server can do to answer "list invoices, page 1" and "show one
 * invoice" with the same JSON as Kontor — a bare Bun.serve and prepared bun:sqlite statements
 * on the same database, no framework, no validation, no auth. The benchmark reports Kontor's
 * throughput as a fraction of this.
 *
 * It does the same database work Kontor's list must do: the page of invoices in the default
 * order (`-issue_date`, tiebreak `id`), the page's customers, lines and payments, and the exact
 * total for `meta` — remembered until anything commits, as server/lib/list.ts does. It reads
 * the way Kontor reads: each answer in one read transaction, related rows unordered and put in
 * order in JavaScript, one invoice's related rows by `=`, payments only of invoices with
 * something paid. What Kontor learns about reading
 * faster, the floor does too, so the fraction measures the framework and nothing else. It
 * serves on as many threads as Kontor does (`--threads`, from KONTOR_HTTP_THREADS), each with
 * its own connection on the one port, as server/serve.ts does.
 *
 *   bun bench/floor.ts --db bench/out/run.db --org <organization id> [--port 0] [--threads N]
 */
import { openDatabase, PAGE_CACHE_KIB } from "../db/client.ts";
import { creationOrder, cursorSealer, group, json, invoice, lineOrder, listResponse, pageOf, PER_PAGE, type Row } from "./floor-answers.ts";

declare const self: Worker;

type FloorSetup = { dbPath: string; orgId: string; port?: number; threads?: number };

export function startFloor({ dbPath, orgId, port = 0, threads = 1 }: FloorSetup) {
  const floor = createFloor(dbPath, orgId, threads);
  const server = Bun.serve({ hostname: "127.0.0.1", port, reusePort: threads > 1, fetch: floor.fetch });
  return { port: server.port!, url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true).then(() => floor.close()) };
}

/** The floor's request handler on its own connection (bench/profile.ts calls it in-process). */
export function createFloor(dbPath: string, orgId: string, threads = 1) {
  // Kontor's own connection settings, and the share of the page cache a thread of it gets
  const db = openDatabase(dbPath, { cacheKiB: PAGE_CACHE_KIB / threads }).$client;

  const version = db.query<{ v: string }, []>("SELECT total_changes() || ':' || (SELECT data_version FROM pragma_data_version) AS v");
  const countAll = db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM invoices WHERE organization_id = ?");
  const page = db.query<Row, [string, number, number]>(
    "SELECT * FROM invoices WHERE organization_id = ? ORDER BY issue_date DESC, id DESC LIMIT ? OFFSET ?",
  );
  const one = db.query<Row, [string, string]>("SELECT * FROM invoices WHERE id = ? AND organization_id = ?");
  const customersIn = db.query<Row, [string]>("SELECT * FROM customers WHERE id IN (SELECT value FROM json_each(?))");
  // related rows unordered, put in order in JavaScript: cheaper than ORDER BY (as in Kontor's presentInvoices)
  const linesIn = db.query<Row, [string]>("SELECT * FROM invoice_lines WHERE invoice_id IN (SELECT value FROM json_each(?))");
  const paymentsIn = db.query<Row, [string]>("SELECT * FROM payments WHERE invoice_id IN (SELECT value FROM json_each(?))");
  const personsIn = db.query<Row, [string]>("SELECT * FROM contact_persons WHERE customer_id IN (SELECT value FROM json_each(?))");
  const customerById = db.query<Row, [string]>("SELECT * FROM customers WHERE id = ?");
  const personsOf = db.query<Row, [string]>("SELECT * FROM contact_persons WHERE customer_id = ?");
  const linesOf = db.query<Row, [string]>("SELECT * FROM invoice_lines WHERE invoice_id = ?");
  const paymentsOf = db.query<Row, [string]>("SELECT * FROM payments WHERE invoice_id = ?");
  let cachedTotal: { version: string; n: number } | null = null;
  const total = () => {
    const v = version.get()!.v;
    if (cachedTotal?.version === v) return cachedTotal.n;
    cachedTotal = { version: v, n: countAll.get(orgId)!.n };
    return cachedTotal.n;
  };

  const nextCursor = cursorSealer(Buffer.from(db.query<{ key: Uint8Array }, []>("SELECT key FROM server_keys WHERE name = 'cursor'").get()!.key), orgId);

  const list = (url: URL) => {
    const pageNo = pageOf(url);
    const n = total();
    const rows = page.all(orgId, PER_PAGE, (pageNo - 1) * PER_PAGE);
    const ids = JSON.stringify(rows.map((r) => r.id));
    const customerIds = JSON.stringify([...new Set(rows.map((r) => r.customer_id))]);
    const customers = new Map(customersIn.all(customerIds).map((c) => [c.id, c]));
    const persons = group(personsIn.all(customerIds), "customer_id", creationOrder);
    const lines = group(linesIn.all(ids), "invoice_id", lineOrder);
    const paidIds = rows.filter((r) => r.paid_cents > 0).map((r) => r.id);
    const payments = group(paidIds.length ? paymentsIn.all(JSON.stringify(paidIds)) : [], "invoice_id", creationOrder);
    return listResponse(url, pageNo, n, rows, { customers, persons, lines, payments }, nextCursor);
  };

  const show = (id: string) => {
    const row = one.get(id, orgId);
    if (!row) return json({ message: "Not found." }, 404);
    const persons = personsOf.all(row.customer_id).sort(creationOrder);
    const lines = linesOf.all(id).sort(lineOrder);
    const payments = row.paid_cents > 0 ? paymentsOf.all(id).sort(creationOrder) : [];
    // Kontor's GET also shows a draft's readiness (what finalize would refuse), which reads the
    // whole document; the floor leaves that work out, so the few drafts of the pool cost only Kontor
    return json({ data: { ...invoice(row, customerById.get(row.customer_id) ?? undefined, persons, lines, payments), readiness: null } });
  };

  const readSnapshot = db.transaction((answer: () => Response) => answer()).deferred;
  const fetch = (request: Request): Response => {
    const url = new URL(request.url);
    const path = url.pathname;
    // each answer read in one read transaction, as Kontor's snapshot() does
    if (path === "/api/v1/invoices") return readSnapshot(() => list(url));
    if (path.startsWith("/api/v1/invoices/")) return readSnapshot(() => show(path.slice("/api/v1/invoices/".length)));
    return json({ message: "Not found." }, 404);
  };
  return { fetch, close: () => db.close() };
}

if (import.meta.main) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i === -1 ? undefined : process.argv[i + 1];
  };
  const dbPath = arg("--db");
  const orgId = arg("--org");
  if (!dbPath || !orgId) {
    console.error("usage: bun bench/floor.ts --db PATH --org ORGANIZATION_ID [--port N] [--threads N]");
    process.exit(2);
  }
  const threads = Number(arg("--threads") ?? 1);
  const floor = startFloor({ dbPath, orgId, port: Number(arg("--port") ?? 0), threads });
  // the other threads join the port picked; each answers "ready" once it listens
  await Promise.all(
    Array.from({ length: threads - 1 }, () => {
      const thread = new Worker(import.meta.url);
      thread.postMessage({ dbPath, orgId, port: floor.port, threads } satisfies FloorSetup);
      return new Promise((ready) => thread.addEventListener("message", ready, { once: true }));
    }),
  );
  console.log(JSON.stringify({ url: floor.url }));
  const stop = () => floor.stop().finally(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
else if (!Bun.isMainThread) {
  self.addEventListener("message", (event: MessageEvent<FloorSetup>) => {
    startFloor(event.data);
    self.postMessage("ready");
  });
}

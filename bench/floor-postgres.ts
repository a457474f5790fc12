/**
 * The floor on PostgreSQL: bench/floor.ts's bare Bun.serve answering "list invoices, page 1" and
 * "show one invoice" with Kontor's JSON, its SQL run through Bun's PostgreSQL client read as
 * Kontor reads it (db/postgres/client.ts: 64-bit integers as numbers), each answer in one
 * REPEATABLE READ transaction as Kontor's snapshot, the same statements Kontor runs on
 * PostgreSQL. Nothing remembered between requests: Kontor on PostgreSQL cannot know whether
 * another server committed, so it counts the list's total every time, and so does the floor.
 *
 *   bun bench/floor-postgres.ts --url postgres://… --org <organization id> [--port 0] [--threads N]
 */
import { SQL } from "bun";
import { decodingClient } from "../db/postgres/client.ts";
import { POOL_SIZE } from "../db/postgres/connection.ts";
import { creationOrder, cursorSealer, group, json, lineOrder, listResponse, pageOf, PER_PAGE, showResponse, type Row } from "./floor-answers.ts";

declare const self: Worker;

type FloorSetup = { url: string; orgId: string; port?: number; threads?: number };

const IN_JSON = "IN (SELECT jsonb_array_elements_text(CAST(CAST($1 AS text) AS jsonb)))";

export async function startPostgresFloor({ url, orgId, port = 0, threads = 1 }: FloorSetup) {
  const pool = new SQL(url, { max: POOL_SIZE });
  const client = decodingClient(pool);
  const [{ key }] = (await client.unsafe("SELECT key FROM server_keys WHERE name = 'cursor'")) as [{ key: Uint8Array }];
  const nextCursor = cursorSealer(Buffer.from(key), orgId);
  type Tx = ReturnType<typeof decodingClient>;
  const rows = (tx: Tx, text: string, params: unknown[]) => tx.unsafe(text, params) as unknown as Promise<Row[]>;

  const list = async (tx: Tx, url: URL) => {
    const pageNo = pageOf(url);
    const [{ n }] = (await rows(tx, "SELECT count(*) AS n FROM invoices WHERE organization_id = $1", [orgId])) as [{ n: number }];
    const page = await rows(tx, "SELECT * FROM invoices WHERE organization_id = $1 ORDER BY issue_date DESC, id DESC LIMIT $2 OFFSET $3", [orgId, PER_PAGE, (pageNo - 1) * PER_PAGE]);
    const ids = JSON.stringify(page.map((r) => r.id));
    const customerIds = JSON.stringify([...new Set(page.map((r) => r.customer_id))]);
    const paidIds = page.filter((r) => r.paid_cents > 0).map((r) => r.id);
    const [customers, persons, lines, payments] = await Promise.all([
      rows(tx, `SELECT * FROM customers WHERE id ${IN_JSON}`, [customerIds]),
      rows(tx, `SELECT * FROM contact_persons WHERE customer_id ${IN_JSON}`, [customerIds]),
      rows(tx, `SELECT * FROM invoice_lines WHERE invoice_id ${IN_JSON}`, [ids]),
      paidIds.length ? rows(tx, `SELECT * FROM payments WHERE invoice_id ${IN_JSON}`, [JSON.stringify(paidIds)]) : Promise.resolve([]),
    ]);
    return listResponse(
      url,
      pageNo,
      n,
      page,
      {
        customers: new Map(customers.map((c) => [c.id, c])),
        persons: group(persons, "customer_id", creationOrder),
        lines: group(lines, "invoice_id", lineOrder),
        payments: group(payments, "invoice_id", creationOrder),
      },
      nextCursor,
    );
  };

  const show = async (tx: Tx, id: string) => {
    const [row] = await rows(tx, "SELECT * FROM invoices WHERE id = $1 AND organization_id = $2", [id, orgId]);
    if (!row) return json({ message: "Not found." }, 404);
    const [customer, persons, lines, payments] = await Promise.all([
      rows(tx, "SELECT * FROM customers WHERE id = $1", [row.customer_id]),
      rows(tx, "SELECT * FROM contact_persons WHERE customer_id = $1", [row.customer_id]),
      rows(tx, "SELECT * FROM invoice_lines WHERE invoice_id = $1", [id]),
      row.paid_cents > 0 ? rows(tx, "SELECT * FROM payments WHERE invoice_id = $1", [id]) : Promise.resolve([]),
    ]);
    return showResponse(row, customer[0], persons, lines, payments);
  };

  // each answer read in one transaction, as Kontor's snapshot() does
  const snapshot = (answer: (tx: Tx) => Promise<Response>) =>
    client.begin(async (tx: any) => {
      await tx.unsafe("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
      return answer(tx);
    }) as Promise<Response>;

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port,
    reusePort: threads > 1,
    fetch(request) {
      const url = new URL(request.url);
      const path = url.pathname;
      if (path === "/api/v1/invoices") return snapshot((tx) => list(tx, url));
      if (path.startsWith("/api/v1/invoices/")) return snapshot((tx) => show(tx, path.slice("/api/v1/invoices/".length)));
      return json({ message: "Not found." }, 404);
    },
  });
  return { port: server.port!, url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true).then(() => pool.close()) };
}

if (import.meta.main) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i === -1 ? undefined : process.argv[i + 1];
  };
  const url = arg("--url");
  const orgId = arg("--org");
  if (!url || !orgId) {
    console.error("usage: bun bench/floor-postgres.ts --url postgres://… --org ORGANIZATION_ID [--port N] [--threads N]");
    process.exit(2);
  }
  const threads = Number(arg("--threads") ?? 1);
  const floor = await startPostgresFloor({ url, orgId, port: Number(arg("--port") ?? 0), threads });
  await Promise.all(
    Array.from({ length: threads - 1 }, () => {
      const thread = new Worker(import.meta.url);
      thread.postMessage({ url, orgId, port: floor.port, threads } satisfies FloorSetup);
      return new Promise((ready) => thread.addEventListener("message", ready, { once: true }));
    }),
  );
  console.log(JSON.stringify({ url: floor.url }));
  const stop = () => floor.stop().finally(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
} else if (!Bun.isMainThread) {
  self.addEventListener("message", async (event: MessageEvent<FloorSetup>) => {
    try {
      await startPostgresFloor(event.data);
      self.postMessage("ready");
    } catch (error) {
      console.error(`floor thread: ${(error as Error).stack}`);
      process.exit(1);
    }
  });
}

/**
 * `kontor db copy --to postgres://…` (db/postgres/copy.ts): a SQLite database holding one of
 * everything, copied to an empty PostgreSQL database, answers every documented GET exactly as the
 * SQLite one does — lists, reports, documents, the events feed, the ledger — served by real
 * `kontor serve` processes on each; and the copy goes on where the SQLite one stopped (the next
 * invoice number, the next event id). Needs a PostgreSQL server (KONTOR_TEST_DATABASE_URL).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { dirname, join } from "node:path";
import { runCli, serveProcess } from "../helpers.ts";
import { documentedOperations, fillPath, type Fixture } from "../fixtures.ts";
import { freshPostgresDatabase, TEST_DATABASE_URL } from "../postgres-database.ts";
import type { TestEnv } from "../helpers.ts";

type Server = Awaited<ReturnType<typeof serveProcess>>;

/** A token list's body with the reading token's last_used_at blanked. */
function withoutLastUse(body: Uint8Array, token: string): Uint8Array {
  const id = token.slice(0, token.indexOf("|"));
  const json = JSON.parse(new TextDecoder().decode(body));
  for (const row of Array.isArray(json.data) ? json.data : [json.data]) if (row?.id === id) row.last_used_at = null;
  return new TextEncoder().encode(JSON.stringify(json));
}

describe.skipIf(TEST_DATABASE_URL === null)("kontor db copy", () => {
  let source: { dbPath: string; token: string; fixture: Fixture };
  let target: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let onSqlite: Server;
  let onPostgres: Server;
  const baseUrl = "https://kontor.example.test";

  beforeAll(async () => {
    // the SQLite database is made by a process of its own, on SQLite whatever this file runs on
    const env: Record<string, string | undefined> = { ...process.env, KONTOR_ENV: "test" };
    delete env.KONTOR_TEST_DATABASE_URL;
    const seeding = Bun.spawn(["bun", join(import.meta.dir, "seeded-sqlite.ts")], { env, stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(seeding.stdout).text(), new Response(seeding.stderr).text(), seeding.exited]);
    expect(code, err).toBe(0);
    source = JSON.parse(out);
    target = await freshPostgresDatabase();
  }, 120_000);
  afterAll(async () => {
    await onSqlite?.stop();
    await onPostgres?.stop();
    await target?.drop();
  });

  test("copies every row in one transaction, and refuses a database that is not empty", async () => {
    const copied = await runCli(["db", "copy", "--db", source.dbPath, "--to", target.url, "--json"]);
    expect(copied.code, copied.stderr).toBe(0);
    const report = JSON.parse(copied.stdout);
    expect(report.rows).toBeGreaterThan(100);
    expect(report.tables.find((t: { table: string }) => t.table === "journal_lines").rows).toBeGreaterThan(10);
    // a second copy into the same database: refused, nothing changed
    const again = await runCli(["db", "copy", "--db", source.dbPath, "--to", target.url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already holds 1 organisation");
  }, 120_000);

  test("every documented GET answers the same on the copy as on the SQLite database", async () => {
    const common = { KONTOR_BASE_URL: baseUrl, KONTOR_SECRET_KEY_FILE: join(dirname(source.dbPath), "kontor.key") };
    onSqlite = await serveProcess(["--db", source.dbPath, "--no-worker"], common);
    onPostgres = await serveProcess(["--no-worker"], { ...common, KONTOR_DATABASE_URL: target.url });
    const handle = (server: Server) => (request: Request) => {
      const url = new URL(request.url);
      return fetch(`${server.url}${url.pathname}${url.search}`, request);
    };
    const operations = (await documentedOperations({ app: { handle: handle(onSqlite) } } as unknown as TestEnv)).filter((o) => o.method === "GET");
    expect(operations.length).toBeGreaterThan(60);
    const differences: string[] = [];
    let compared = 0;
    for (const o of operations) {
      const path = fillPath(o.path, source.fixture);
      const read = async (server: Server) => {
        const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${source.token}` } });
        return { status: response.status, type: response.headers.get("content-type"), body: new Uint8Array(await response.arrayBuffer()) as Uint8Array };
      };
      const [a, b] = [await read(onSqlite), await read(onPostgres)];
      compared++;
      // the token reading them is marked used by each server when it first reads (at most once a minute): not the copy's
      if (/\/(org-)?tokens/.test(path) && a.type?.includes("json")) [a.body, b.body] = [a.body, b.body].map((body) => withoutLastUse(body, source.token));
      if (a.status !== b.status || a.type !== b.type || Buffer.compare(a.body, b.body) !== 0) {
        differences.push(`GET ${path}: SQLite ${a.status} ${new TextDecoder().decode(a.body).slice(0, 300)}\n  PostgreSQL ${b.status} ${new TextDecoder().decode(b.body).slice(0, 300)}`);
      }
    }
    expect(compared).toBe(operations.length);
    expect(differences.join("\n")).toBe("");
  }, 120_000);

  test("the copy goes on where the SQLite database stopped: the next invoice number, the next event id", async () => {
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${onPostgres.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${source.token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const parsed = (await response.json()) as any;
      expect(response.status, JSON.stringify(parsed)).toBeLessThan(300);
      return parsed;
    };
    const before = (await call("GET", "/api/v1/invoices?filter[type]=invoice&sort=-number&per_page=1")).data[0];
    const feed = await call("GET", "/api/v1/events?per_page=100");
    expect(feed.meta.total).toBeLessThan(100);
    const lastEvent = feed.data.at(-1);
    const vatRates = (await call("GET", "/api/v1/vat-rates")).data;
    const draft = (
      await call("POST", "/api/v1/invoices", {
        customer_id: source.fixture.customers,
        issue_date: "2026-03-10",
        buyer_reference: "After the copy",
        lines: [{ description: "After the copy", quantity: "1", unit_price: "10.00", vat_rate_id: vatRates[0].id }],
      })
    ).data;
    const issued = (await call("POST", `/api/v1/invoices/${draft.id}/finalize`)).data;
    const sequence = (number: string) => Number(/(\d+)$/.exec(number)![1]);
    expect(issued.number.replace(/\d+$/, "")).toBe(before.number.replace(/\d+$/, ""));
    expect(sequence(issued.number)).toBe(sequence(before.number) + 1);
    const events = (await call("GET", `/api/v1/events?after=${lastEvent.id}`)).data;
    expect(Number(events[0].id)).toBe(Number(lastEvent.id) + 1);
  }, 60_000);
});

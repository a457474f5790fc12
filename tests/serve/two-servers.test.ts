/**
 * Several servers on one PostgreSQL database (docs/operations.md#running-on-postgresql): two
 * `kontor serve` processes, each with its worker, and a `kontor worker` beside them, driven at
 * once through both servers. The invoice series stays gapless and in order whichever server
 * finalizes; a bank statement sent to both is imported once; each webhook is delivered once and
 * each e-mail sent once although three workers compete for them; runs of reminders and recurring
 * invoices started twice at once record each reminder and each period once. Needs a PostgreSQL
 * server (KONTOR_TEST_DATABASE_URL).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonWhenDone, runCli, serveProcess, startCli } from "../helpers.ts";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { freshPostgresDatabase, TEST_DATABASE_URL } from "../postgres-database.ts";
import { startSmtp, type TestSmtp } from "../sending/smtp.ts";

type Server = Awaited<ReturnType<typeof serveProcess>>;

const STATEMENT = readFileSync(join(import.meta.dir, "../inbound/fixtures/statement-1.camt053.xml"));

describe.skipIf(TEST_DATABASE_URL === null)("two servers and a worker on one PostgreSQL database", () => {
  let database: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let dir: string;
  let smtp: TestSmtp;
  let receiver: ReturnType<typeof Bun.serve>;
  /** webhook deliveries received, by the delivery's id (x-webhook-id): a second arrival of one is a duplicate */
  const received = new Map<string, number>();
  const servers: Server[] = [];
  const children: Bun.Subprocess[] = [];
  let env: Record<string, string>;
  let token = "";

  const call = async (server: Server, method: string, path: string, body?: unknown, expected?: number) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (expected !== undefined) expect(response.status, `${method} ${path}: ${text.slice(0, 300)}`).toBe(expected);
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    database = await freshPostgresDatabase();
    dir = mkdtempSync(join(tmpdir(), "kontor-two-servers-"));
    smtp = await startSmtp();
    receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => {
        const id = request.headers.get("x-webhook-id") ?? "?";
        received.set(id, (received.get(id) ?? 0) + 1);
        return new Response("ok");
      },
    });
    env = {
      KONTOR_DATABASE_URL: database.url,
      KONTOR_SECRET_KEY_FILE: join(dir, "kontor.key"),
      KONTOR_SMTP_URL: smtp.url,
      KONTOR_MAIL_FROM: "invoices@kontor.test",
      KONTOR_WEBHOOK_ALLOW_PRIVATE: "true",
      KONTOR_WEBHOOK_BACKOFF: "1s",
    };
    // the first server makes the organisation and its token on the empty database; the second finds it made
    const first = await serveProcess([], env);
    servers.push(first);
    token = /store it now:\s+(\S+)/.exec(first.output)![1]!;
    servers.push(await serveProcess([], env));
    const worker = startCli(["worker"], env, children);
    const reader = worker.stdout.getReader();
    let out = "";
    while (!out.includes("worker running")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`worker exited: ${out}`);
      out += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    void worker.stdout.pipeTo(new WritableStream());
  }, 60_000);

  afterAll(async () => {
    for (const child of children) child.kill("SIGTERM");
    await Promise.all(children.map((c) => c.exited));
    for (const server of servers) await server.stop();
    await smtp?.close();
    receiver?.stop(true);
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("finalizes, payments, a statement, webhooks, e-mails, reminders and recurring invoices through both servers at once: each once, the series gapless", async () => {
    const [a, b] = servers as [Server, Server];
    await call(a, "PUT", "/api/v1/organization", { ...SELLER_IDENTITY, iban: undefined }, 200);
    // the bank account the statement is of (the CLI adds one)
    const orgId = (await call(a, "GET", "/api/v1/organization", undefined, 200)).body.data.id;
    const added = await runCli(["bank-account", "add", "--org", orgId, "--name", "Current account", "--iban", "BE71096123456769", "--json"], env);
    expect(added.code, added.stderr).toBe(0);
    const bank = (await call(a, "GET", "/api/v1/bank-accounts", undefined, 200)).body.data.find((x: { iban: string }) => x.iban === "BE71096123456769");
    const webhook = (await call(b, "POST", "/api/v1/webhooks", { url: `http://127.0.0.1:${receiver.port}/hook`, events: ["invoice.finalized", "invoice.payment_recorded"] }, 201)).body.data;
    const customer = (await call(a, "POST", "/api/v1/customers", { name: "Klant BV", email: "billing@klant.example", country: "BE", address: "Markt 1", city: "Brugge", postal_code: "8000" }, 201)).body.data;
    const vat21 = (await call(b, "GET", "/api/v1/vat-rates", undefined, 200)).body.data.find((r: { rate: string }) => r.rate === "21.00").id;
    const line = { description: "Consulting", quantity: "1", unit_price: "100.00", vat_rate_id: vat21 };

    // 30 drafts, finalized at once, alternately through each server
    const drafts: string[] = [];
    for (let i = 0; i < 30; i++) drafts.push((await call(i % 2 ? a : b, "POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-02", lines: [line] }, 201)).body.data.id);
    const finalized = await Promise.all(drafts.map((id, i) => call(i % 2 ? b : a, "POST", `/api/v1/invoices/${id}/finalize`, undefined, 200)));
    const numbers = finalized.map((r) => r.body.data.number as string);
    const positions = numbers.map((n) => Number(/(\d+)$/.exec(n)![1])).sort((x, y) => x - y);
    expect(positions).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(new Set(numbers.map((n) => n.replace(/\d+$/, ""))).size).toBe(1);

    // a payment on each, recorded at once through both servers
    await Promise.all(drafts.map((id, i) => call(i % 2 ? a : b, "POST", `/api/v1/invoices/${id}/record-payment`, { amount: "121.00", payment_date: "2026-03-05" }, 201)));
    for (const server of [a, b]) expect((await call(server, "GET", "/api/v1/invoices?filter[status]=paid&per_page=100", undefined, 200)).body.meta.total).toBe(30);

    // one statement sent to both servers at once: imported once, the other refused
    const imports = await Promise.all(
      [a, b].map((server) =>
        fetch(`${server.url}/api/v1/bank-accounts/${bank.id}/statements`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/xml" }, body: STATEMENT }),
      ),
    );
    // the second finds it imported: 200, nothing added (the statement's lines are in the books once)
    expect(imports.map((r) => r.status).sort()).toEqual([200, 201]);
    const imported = (await imports.find((r) => r.status === 201)!.json()) as { data: { transactions: unknown[] } };
    expect(imported.data.transactions.length).toBeGreaterThan(0);
    expect((await call(b, "GET", "/api/v1/bank-transactions?per_page=100", undefined, 200)).body.meta.total).toBe(imported.data.transactions.length);

    // e-mails of 10 invoices, asked for through both servers: each sent once by one of the three workers
    await Promise.all(drafts.slice(0, 10).map((id, i) => call(i % 2 ? a : b, "POST", `/api/v1/invoices/${id}/send`, { channel: "email" }, 202)));
    await smtp.received(10, 20_000);

    // every event delivered once: 30 finalized and 30 payments
    const deadline = Date.now() + 20_000;
    while ([...received.values()].reduce((s, n) => s + n, 0) < 60 && Date.now() < deadline) await Bun.sleep(100);
    expect(received.size).toBe(60);
    expect([...received.values()].every((n) => n === 1)).toBe(true);
    const deliveries = (await call(a, "GET", `/api/v1/webhooks/${webhook.id}/deliveries?per_page=100`, undefined, 200)).body.data;
    expect(deliveries.length).toBe(60);
    expect(deliveries.every((d: { status: string }) => d.status === "delivered")).toBe(true);

    // reminders: overdue invoices, two runs at once through two processes: each reminder once
    await call(b, "PUT", "/api/v1/reminder-policy", { enabled: true, channel: "manual", levels: [{ days_after_due: 7, charge_interest: false, charge_compensation: false }] }, 200);
    for (let i = 0; i < 5; i++) {
      const id = (await call(a, "POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-03", due_date: "2026-03-10", lines: [line] }, 201)).body.data.id;
      await call(b, "POST", `/api/v1/invoices/${id}/finalize`, undefined, 200);
    }
    // recurring: a monthly template from January, caught up by two runs at once: three invoices, once each
    await call(a, "POST", "/api/v1/recurring-invoices", { customer_id: customer.id, lines: [line], interval: "monthly", start_date: "2026-01-01" }, 201);
    const runs = [
      startCli(["reminders", "run", "--date", "2026-04-01", "--json"], env, children),
      startCli(["reminders", "run", "--date", "2026-04-01", "--json"], env, children),
      startCli(["recurring", "run", "--date", "2026-03-15", "--json"], env, children),
      startCli(["recurring", "run", "--date", "2026-03-15", "--json"], env, children),
    ];
    await Promise.all(runs.map((r) => jsonWhenDone(r as Bun.Subprocess<"ignore", "pipe", "pipe">)));
    const reminders = (await call(a, "GET", "/api/v1/reminders?per_page=100", undefined, 200)).body.data;
    expect(reminders.length).toBe(5);
    expect(new Set(reminders.map((r: { invoice_id: string }) => r.invoice_id)).size).toBe(5);
    const generated = (await call(b, "GET", "/api/v1/invoices?per_page=100&sort=issue_date", undefined, 200)).body.data.filter((i: { recurring_invoice_id?: string | null }) => i.recurring_invoice_id);
    // January, February and March, once each (left drafts, as the template asks), whichever run made them
    expect(generated.length).toBe(3);
    // and the series: the 30, the 5, then whatever the runs finalized, with no gap
    const all = (await call(a, "GET", "/api/v1/invoices?filter[type]=invoice&per_page=100", undefined, 200)).body.data.filter((i: { number: string | null; status: string }) => i.status !== "draft");
    const series = all.map((i: { number: string }) => Number(/(\d+)$/.exec(i.number)![1])).sort((x: number, y: number) => x - y);
    expect(series).toEqual(Array.from({ length: series.length }, (_, i) => i + 1));
  }, 120_000);
});

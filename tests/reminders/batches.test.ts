/**
 * Runs at scale (docs/reminders.md#runs-at-scale): the reminder run and preview walk the open
 * invoices in keyset batches and read what a batch already has (levels recorded, open interest
 * notes) in one query per table, not one per invoice; a batch boundary changes nothing they
 * answer; and a run records, it renders nothing (a manual reminder's letter is drawn when it is
 * downloaded).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { invoices, reminders } from "../../db/schema.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { previewReminders, runReminders } from "../../server/reminders/run.ts";
import { createTestEnv } from "../helpers.ts";
import { onPostgres } from "../raw-sql.ts";
import { firstRow } from "../../db/client.ts";

const env = await createTestEnv();
const dir = mkdtempSync(join(tmpdir(), "kontor-reminder-batches-"));
afterAll(async () => {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
});

type Org = Awaited<ReturnType<typeof env.newOrg>>;
const call = async (org: Org, method: string, path: string, body?: unknown) => {
  const r = await env.api(method, path, body, org.token);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBeLessThan(300);
  return r.body;
};
const scopeOf = (org: Org) => ({ db: env.db, org: org.org, actor: CLI_ACTOR });

/** Due dates, some shared, so that a batch boundary falls between invoices of one due date (the walk's order is due date, then id). */
const DUE = ["2026-02-01", "2026-02-01", "2026-02-01", "2026-02-10", "2026-02-10", "2026-02-20", "2026-03-01", "2026-03-01", "2026-03-05", "2026-03-10", "2026-03-10"];
const RUN_DATE = "2026-03-20";

/**
 * An organisation of a business customer and `dues.length` invoices of 1000.00 + 21 % = 1210.00,
 * a policy by `manual` at 7 and 30 days after the due date that charges nothing; the three due on
 * 1 February reminded at level 0 by a run on 9 February; the second due on 10 February paused; the
 * first due on 1 March with an open interest note as of 15 March.
 */
async function organisation(name: string, dues: readonly string[] = DUE) {
  const org = await env.newOrg(name, { country: "BE" });
  const rate = (await call(org, "GET", "/api/v1/vat-rates")).data.find((r: any) => r.rate === "21.00").id;
  const customer = (await call(org, "POST", "/api/v1/customers", { name: "Brasserie Dupont SA", country: "BE", vat_number: "BE0404795549" })).data;
  const ids: string[] = [];
  for (const due of dues) {
    const draft = (await call(org, "POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-01-05", due_date: due, lines: [{ description: "Beer", quantity: "1", unit_price: "1000.00", vat_rate_id: rate }] })).data;
    ids.push((await call(org, "POST", `/api/v1/invoices/${draft.id}/finalize`)).data.id);
  }
  await call(org, "PUT", "/api/v1/reminder-policy", {
    enabled: true,
    channel: "manual",
    levels: [
      { days_after_due: 7, charge_interest: false, charge_compensation: false },
      { days_after_due: 30, charge_interest: false, charge_compensation: false },
    ],
  });
  return { org, ids };
}

async function history(o: { org: Org; ids: string[] }) {
  expect((await runReminders(env.db, { orgId: o.org.org.id, date: "2026-02-09" }))[0]!.recorded).toBe(3);
  await call(o.org, "PUT", `/api/v1/invoices/${o.ids[4]}/reminders-pause`, { paused: true, reason: "payment plan" });
  const note = (await call(o.org, "POST", `/api/v1/invoices/${o.ids[6]}/interest-note`, { as_of: "2026-03-15" })).data;
  const issued = (await call(o.org, "POST", `/api/v1/invoices/${note.id}/finalize`)).data;
  // 2 to 15 March, 14 days on 1210.00 at 10.50 %: 121000 × 1050 × 14 / 3 650 000 = 487.3 → 4.87; and the 40.00 compensation
  expect(issued.total).toBe("44.87");
}

/** What a run or preview says, by invoice number: comparable between two organisations seeded alike. */
const shape = (data: any[]) => data.map((p) => [p.invoice_number, p.level, p.skipped_levels, p.total_to_pay]);

/** By hand: the ten invoices not paused, in due-date order (the walk's), their level at 20 March and the total each letter asks. */
function expected(numbers: string[]) {
  const rows: [string, number, number[], string][] = [];
  DUE.forEach((due, i) => {
    if (i === 4) return; // paused
    // 30 days before 20 March is 18 February: due on or before it, the second level
    const level = due <= "2026-02-18" ? 1 : 0;
    // the 1 February ones had level 0 at the earlier run: nothing skipped; the 10 February one skips it
    const skipped = level === 1 && due !== "2026-02-01" ? [0] : [];
    rows.push([numbers[i]!, level, skipped, i === 6 ? "1254.87" : "1210.00"]);
  });
  return rows;
}

describe("a batch boundary changes nothing", () => {
  let whole: { org: Org; ids: string[] };
  let batched: { org: Org; ids: string[] };
  let numbers: string[];

  beforeAll(async () => {
    whole = await organisation("Whole Batch BV");
    batched = await organisation("Small Batches BV");
    await history(whole);
    await history(batched);
    numbers = await Promise.all(whole.ids.map(async (id) => (await firstRow(env.db.select({ n: invoices.number }).from(invoices).where(eq(invoices.id, id))))!.n));
  });

  test("the preview in batches of 2, in pages of 4, is the preview in one batch, as computed by hand", async () => {
    const one = await previewReminders(scopeOf(whole.org), RUN_DATE);
    expect(shape(one.data)).toEqual(expected(numbers));
    expect(one.next_after).toBeNull();
    const pages: any[] = [];
    let after: string | undefined;
    let walked = 0;
    do {
      const page = await previewReminders(scopeOf(batched.org), RUN_DATE, { limit: 4, after, batchSize: 2 });
      expect(page.data.length).toBeLessThanOrEqual(4);
      pages.push(...page.data);
      after = page.next_after ?? undefined;
      walked++;
    } while (after !== undefined && walked < 10);
    expect(shape(pages)).toEqual(expected(numbers));
    // ten reminders, four to a page: three pages
    expect(walked).toBe(3);
  });

  test("over HTTP: limit and after page the preview; an after that is not a next_after is a 422 naming it", async () => {
    const first = await call(batched.org, "GET", `/api/v1/reminders/preview?date=${RUN_DATE}&limit=6`);
    expect(first.data).toHaveLength(6);
    const rest = await call(batched.org, "GET", `/api/v1/reminders/preview?date=${RUN_DATE}&limit=6&after=${encodeURIComponent(first.next_after)}`);
    expect(rest.next_after).toBeNull();
    expect(shape([...first.data, ...rest.data])).toEqual(expected(numbers));
    const bad = await env.api("GET", `/api/v1/reminders/preview?date=${RUN_DATE}&after=not-a-position`, undefined, batched.org.token);
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(["after"]);
  });

  test("the run in batches of 3 recording 2 to a transaction records what the run in one batch records", async () => {
    const one = await runReminders(env.db, { orgId: whole.org.org.id, date: RUN_DATE });
    const small = await runReminders(env.db, { orgId: batched.org.org.id, date: RUN_DATE, batchSize: 3, recordBatch: 2 });
    expect(one[0]!.recorded).toBe(10);
    expect(small[0]!.recorded).toBe(10);
    expect(shape(small[0]!.data)).toEqual(expected(numbers));
    expect(shape(one[0]!.data)).toEqual(expected(numbers));
    // each invoice's levels as stored, skipped ones included: the same in both
    const stored = (o: { org: Org; ids: string[] }) =>
      Promise.all(o.ids.map(async (id) =>
        await env.db
          .select({ level: reminders.level, skipped: reminders.skipped })
          .from(reminders)
          .where(and(eq(reminders.organizationId, o.org.org.id), eq(reminders.invoiceId, id)))
          .orderBy(reminders.level),
      ));
    expect(await stored(batched)).toEqual(await stored(whole));
    // a second run, at any batch size, has nothing left to record
    expect((await runReminders(env.db, { orgId: batched.org.org.id, date: RUN_DATE, batchSize: 2, recordBatch: 1 }))[0]!.recorded).toBe(0);
  });
});

describe("one query per batch, not per invoice", () => {
  /**
   * The statements run while `work` runs. SQLite: the statements it compiles (drizzle compiles one
   * per query it runs). PostgreSQL: every statement sent, on the pool or on a unit's connection
   * (its transaction, its savepoints).
   */
  async function statementsDuring(work: () => Promise<unknown>): Promise<number> {
    let n = 0;
    if (onPostgres) {
      // a client counting its statements and those of the transactions and savepoints it opens
      const counting = (client: any) => {
        const [unsafe, begin, savepoint] = [client.unsafe, client.begin, client.savepoint];
        const within = (open: (...args: unknown[]) => unknown) => (...args: unknown[]) => {
          const inner = args.at(-1) as (tx: unknown) => unknown;
          return open(...args.slice(0, -1), (tx: unknown) => inner(counting(tx)));
        };
        return Object.assign(Object.create(client), {
          unsafe: (...args: unknown[]) => (n++, unsafe(...args)),
          begin: begin && within(begin),
          savepoint: savepoint && within(savepoint),
        });
      };
      const client = env.db.$client as any;
      const [unsafe, begin] = [client.unsafe, client.begin];
      const counted = counting({ unsafe, begin, savepoint: client.savepoint });
      client.unsafe = counted.unsafe;
      client.begin = counted.begin;
      try {
        await work();
      } finally {
        client.unsafe = unsafe;
        client.begin = begin;
      }
      return n;
    }
    const client = env.db.$client as any;
    const [prepare, query] = [client.prepare, client.query];
    client.prepare = function (...args: unknown[]) {
      n++;
      return prepare.apply(this, args);
    };
    client.query = function (...args: unknown[]) {
      n++;
      return query.apply(this, args);
    };
    try {
      await work();
    } finally {
      client.prepare = prepare;
      client.query = query;
    }
    return n;
  }

  test("a preview of 3 invoices and one of 12, each with an open interest note, compile as many statements", async () => {
    const counted: number[] = [];
    for (const [name, dues] of [["Three Notes BV", DUE.slice(6, 9)], ["Twelve Notes BV", [...DUE.slice(6), ...DUE.slice(6), "2026-03-01", "2026-03-05"]]] as const) {
      const { org, ids } = await organisation(name, dues);
      for (const id of ids) {
        const note = (await call(org, "POST", `/api/v1/invoices/${id}/interest-note`, { as_of: "2026-03-15" })).data;
        await call(org, "POST", `/api/v1/invoices/${note.id}/finalize`);
      }
      let preview: Awaited<ReturnType<typeof previewReminders>> | undefined;
      counted.push(await statementsDuring(async () => (preview = await previewReminders(scopeOf(org), RUN_DATE))));
      // each letter asks its invoice and its note: more than the invoice alone
      expect(preview!.data).toHaveLength(dues.length);
      for (const p of preview!.data) expect(Number(p.total_to_pay)).toBeGreaterThan(1210);
    }
    expect(counted[0]).toBeGreaterThan(0);
    expect(counted[1]).toBe(counted[0]!);
  });
});

/** What a child process needs to reach the test's database on PostgreSQL; nothing on SQLite (the --db path). */
const engineEnv = (): Record<string, string> =>
  env.config.databaseUrl === null ? {} : { KONTOR_DATABASE_URL: env.config.databaseUrl, KONTOR_SECRET_KEY_FILE: env.config.secretKeyFile! };

/** `kontor reminders run` for one organisation, and the modules the process loaded (a preloaded probe writes Bun's registry as it exits). */
async function runLoading(org: Org): Promise<{ runs: any[]; loaded: string[] }> {
  const probe = join(dir, "probe.ts");
  const out = join(dir, `loaded-${org.org.id}.json`);
  writeFileSync(probe, `process.on("exit", () => require("node:fs").writeFileSync(process.env.LOADED_MODULES_FILE, JSON.stringify(Object.keys(require.cache))));\n`);
  const root = join(import.meta.dir, "../..");
  const proc = Bun.spawn(["bun", "--preload", probe, join(root, "cli/main.ts"), "reminders", "run", "--db", env.config.dbPath, "--date", "2026-03-20", "--org", org.org.id, "--json"], {
    // on PostgreSQL, what reaches the test's database (as runCli gives it)
    env: { ...process.env, KONTOR_ENV: "test", ...engineEnv(), LOADED_MODULES_FILE: out },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = [await proc.exited, await new Response(proc.stdout).text(), await new Response(proc.stderr).text()];
  expect(code, stderr).toBe(0);
  return { runs: JSON.parse(stdout), loaded: (JSON.parse(readFileSync(out, "utf8")) as string[]).map((p) => relative(root, p)) };
}

/** The PDF writer and its library: what drawing a letter or a document loads. */
const drawing = (loaded: string[]) => loaded.filter((p) => p === "server/documents/pdf.ts" || p.includes("node_modules/pdf-lib/") || p.includes("node_modules/@pdf-lib/"));

describe("a run records, it renders nothing", () => {
  const invoiceOf = new Map<string, string>();
  const orgs: Record<"manual" | "email", Org | undefined> = { manual: undefined, email: undefined };

  beforeAll(async () => {
    for (const channel of ["manual", "email"] as const) {
      const org = await env.newOrg(`No Render ${channel} BV`, { country: "BE" });
      orgs[channel] = org;
      const rate = (await call(org, "GET", "/api/v1/vat-rates")).data.find((r: any) => r.rate === "21.00").id;
      const customer = (await call(org, "POST", "/api/v1/customers", { name: "Brasserie Dupont SA", country: "BE", vat_number: "BE0404795549", email: "ap@dupont.example" })).data;
      const draft = (await call(org, "POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-01-05", due_date: "2026-02-01", lines: [{ description: "Beer", quantity: "1", unit_price: "1000.00", vat_rate_id: rate }] })).data;
      invoiceOf.set(channel, (await call(org, "POST", `/api/v1/invoices/${draft.id}/finalize`)).data.id);
      // a level that issues an interest note: the note is recorded and finalized, neither drawn nor written out
      await call(org, "PUT", "/api/v1/reminder-policy", { enabled: true, channel, levels: [{ days_after_due: 10, charge_interest: true, charge_compensation: true }] });
    }
  });

  test("manual: kontor reminders run loads neither the PDF writer nor pdf-lib, and stores the reminder and its note, sent", async () => {
    const { runs, loaded } = await runLoading(orgs.manual!);
    expect(runs[0].recorded).toBe(1);
    expect(loaded).toContain("server/reminders/run.ts");
    expect(drawing(loaded)).toEqual([]);
    const reminder = (await firstRow(env.db.select().from(reminders).where(eq(reminders.invoiceId, invoiceOf.get("manual")!))))!;
    // 2 February to 20 March, 47 days on 1210.00 at 10.50 %: 121000 × 1050 × 47 / 3 650 000 = 1635.99 → 16.36; and 40.00
    expect(reminder).toMatchObject({ channel: "manual", interestCents: 1636, compensationCents: 4000, deliveryId: null });
    const note = (await call(orgs.manual!, "GET", `/api/v1/invoices/${reminder.interestNoteId}`)).data;
    expect(note).toMatchObject({ type: "interest_note", status: "sent", total: "56.36" });
  });

  test("manual: the letter is drawn when it is downloaded", async () => {
    const reminder = (await firstRow(env.db.select().from(reminders).where(eq(reminders.invoiceId, invoiceOf.get("manual")!))))!;
    const r = await env.api("GET", `/api/v1/reminders/${reminder.id}/pdf`, undefined, orgs.manual!.token);
    expect(r.status).toBe(200);
    expect(r.text.startsWith("%PDF-")).toBe(true);
  });

  test("email: the run queues the delivery and renders nothing (the outbox draws the letter and the note when it sends)", async () => {
    const { runs, loaded } = await runLoading(orgs.email!);
    expect(runs[0].recorded).toBe(1);
    expect(drawing(loaded)).toEqual([]);
    const reminder = (await firstRow(env.db.select().from(reminders).where(eq(reminders.invoiceId, invoiceOf.get("email")!))))!;
    expect(reminder).toMatchObject({ channel: "email", interestCents: 1636, compensationCents: 4000 });
    expect(reminder.deliveryId).not.toBeNull();
    // issued, not sent: it goes with the reminder's e-mail
    const note = (await call(orgs.email!, "GET", `/api/v1/invoices/${reminder.interestNoteId}`)).data;
    expect(note).toMatchObject({ type: "interest_note", status: "finalized", total: "56.36" });
  });
});

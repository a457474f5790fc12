/**
 * A populated organisation for the generated suites (matrices, fuzzing, crash safety): one
 * real resource of every kind, created through the API, and the map from a path's segments
 * to the id that fills its `{id}`. A route whose segment has no fixture fails the matrix
 * test, so a new route cannot escape it.
 */
import { expect } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runReminders } from "../server/reminders/run.ts";
import type { TestEnv } from "./helpers.ts";
import { openApiDocument } from "./contract.ts";
import { onPostgres, rawSql } from "./raw-sql.ts";

export type Fixture = Record<string, string>;

/** Creates one of everything in the env's first organisation; returns ids by path segment. */
/** A Belgian seller with what a Peppol e-invoice needs of it (valid enterprise number and Peppol id). */
export const SELLER_IDENTITY = {
  address: "Kerkstraat 1",
  city: "Gent",
  postal_code: "9000",
  vat_number: "BE0123456749",
  company_number: "0123456749",
  peppol_id: "0208:0123456749",
};

export async function seedFixture(env: TestEnv): Promise<Fixture> {
  const ok = async (method: string, path: string, body?: unknown, token?: string) => {
    const r = await env.api(method, path, body, token);
    expect(r.status, `${method} ${path}: ${r.text.slice(0, 300)}`).toBeLessThan(300);
    return r.body;
  };
  // what an e-invoice needs of the seller, the buyer and the invoice, so that every GET {id} answers 200
  await ok("PUT", "/api/v1/organization", SELLER_IDENTITY);
  const customer = (
    await ok("POST", "/api/v1/customers", {
      name: "Fixture Customer NV",
      country: "BE",
      vat_number: "BE0123456749",
      address: "Markt 1",
      city: "Brugge",
      postal_code: "8000",
      peppol_id: "0208:0404795549",
    })
  ).data;
  const person = (await ok("POST", `/api/v1/customers/${customer.id}/contact-persons`, { first_name: "Fix", last_name: "Ture" })).data;
  const vatRates = (await ok("GET", "/api/v1/vat-rates")).data;
  const invoice = (
    await ok("POST", "/api/v1/invoices", {
      customer_id: customer.id,
      issue_date: "2026-03-01",
      buyer_reference: "Fixture",
      lines: [{ description: "Consulting", quantity: "2", unit_price: "100.00", vat_rate_id: vatRates[0].id }],
    })
  ).data;
  await ok("POST", `/api/v1/invoices/${invoice.id}/finalize`);
  const paid = (await ok("POST", `/api/v1/invoices/${invoice.id}/record-payment`, { amount: "10.00", payment_date: "2026-03-05" })).data;
  // a reminder of it (recorded by hand: the customer has no e-mail address)
  await ok("PUT", "/api/v1/reminder-policy", { enabled: true, channel: "manual", levels: [{ days_after_due: 7, charge_interest: false, charge_compensation: false }] });
  await runReminders(env.db, { date: "2026-04-15", orgId: env.org.id });
  const reminder = (await ok("GET", "/api/v1/reminders")).data[0];
  // an expense entered by hand besides the imported one (its vendor makes the supplier list non-empty)
  await ok("POST", "/api/v1/expenses", { category: "Travel", amount: "42.00", date: "2026-03-02", vendor: "NMBS" });
  // a supplier's e-invoice, imported: the expense every {id} route of /expenses is tried on (GET …/document serves its original)
  const imported = await env.request("POST", "/api/v1/expenses/import", {
    rawBody: readFileSync(join(import.meta.dir, "einvoicing", "examples", "peppol", "base-example.xml"), "utf8"),
    token: env.token,
    headers: { "content-type": "application/xml" },
  });
  expect(imported.status, imported.text.slice(0, 300)).toBe(201);
  // a statement of the seeded bank account (its IBAN is the fixtures')
  const statement = await env.request("POST", `/api/v1/bank-accounts/${(await ok("GET", "/api/v1/bank-accounts")).data[0].id}/statements`, {
    rawBody: readFileSync(join(import.meta.dir, "inbound", "fixtures", "statement-1.camt053.xml"), "utf8"),
    token: env.token,
    headers: { "content-type": "application/xml" },
  });
  expect(statement.status, statement.text.slice(0, 300)).toBe(201);
  // a supplier's document with nothing to pay, kept as a received document (XRechnung test suite 02.04a)
  const received = await env.request("POST", "/api/v1/expenses/import", {
    rawBody: readFileSync(join(import.meta.dir, "inbound", "fixtures", "xrechnung", "02.04a-INVOICE_ubl.xml"), "utf8"),
    token: env.token,
    headers: { "content-type": "application/xml" },
  });
  expect(received.status, received.text.slice(0, 300)).toBe(201);
  // an approved expense with the supplier's IBAN and due date, paid by a payment run
  const payable = (
    await ok("POST", "/api/v1/expenses", { category: "Travel", amount: "15.00", date: "2026-03-02", vendor: "NMBS", due_date: "2026-03-20", payee_iban: "BE68539007547034" })
  ).data;
  await ok("POST", `/api/v1/expenses/${payable.id}/approve`);
  const run = (await ok("POST", "/api/v1/payment-runs", { bank_account_id: (await ok("GET", "/api/v1/bank-accounts")).data[0].id, due_by: "2026-03-31" })).data;
  const suppliers = (await ok("GET", "/api/v1/suppliers")).data;
  const accounts = (await ok("GET", "/api/v1/accounts")).data;
  const bankAccounts = (await ok("GET", "/api/v1/bank-accounts")).data;
  const capital = accounts.find((a: { code: string }) => a.code === "3100");
  const entry = (
    await ok("POST", "/api/v1/journal-entries", {
      date: "2026-03-01",
      description: "Capital paid in",
      lines: [{ account_id: bankAccounts[0].account_id, debit: "1000.00" }, { account_id: capital.id, credit: "1000.00" }],
    })
  ).data;
  const recurring = (
    await ok("POST", "/api/v1/recurring-invoices", {
      customer_id: customer.id,
      interval: "monthly",
      start_date: "2026-03-01",
      buyer_reference: "Fixture",
      lines: [{ description: "Hosting", quantity: "1", unit_price: "20.00", vat_rate_id: vatRates[0].id }],
    })
  ).data;
  const webhook = (await ok("POST", "/api/v1/webhooks", { url: "https://hooks.example.com/kontor", events: ["customer.updated"] })).data;
  await ok("PUT", `/api/v1/customers/${customer.id}`, { city: "Gent" }); // queues a delivery
  const deliveries = (await ok("GET", `/api/v1/webhooks/${webhook.id}/deliveries`)).data;
  // the newest event (customer.updated above): ids are per organisation, and another one made for a test has fewer
  const newestEvent = (await ok("GET", `/api/v1/events?filter[resource_id]=${customer.id}&filter[type]=customer.updated`)).data.at(-1);
  const owner = await env.userToken("owner");
  const personal = await ok("POST", "/api/v1/tokens", { name: "fixture personal" }, owner.token);
  const orgToken = await ok("POST", "/api/v1/org-tokens", { name: "fixture org", abilities: ["contacts.view"] });
  const ids: Fixture = {
    customers: customer.id,
    "contact-persons": person.id,
    invoices: invoice.id,
    payments: paid.payments[0].id,
    expenses: imported.body.data.id,
    "bank-transactions": statement.body.data.transactions[0].id,
    suppliers: suppliers[0].id,
    accounts: accounts[0].id,
    "bank-accounts": bankAccounts[0].id,
    webhooks: webhook.id,
    deliveries: deliveries[0].id,
    events: newestEvent.id,
    tokens: personal.id,
    "org-tokens": orgToken.id,
    "journal-entries": entry.id,
    "fiscal-years": "2025",
    "vat-returns": "2025-Q4",
    // the listings: a calendar year that has ended, and a quarter (the fixture organisation files quarterly)
    clients: "2025",
    "intra-community": "2026-Q1",
    "expense-categories": "travel",
    "received-documents": received.body.data.id,
    "payment-runs": run.id,
    "recurring-invoices": recurring.id,
    reminders: reminder.id,
  };
  for (const [segment, id] of Object.entries(ids)) expect(id, segment).toBeString();
  return ids;
}

/** `/api/v1/customers/{id}/contact-persons/{cpid}` → the concrete path, each param from the segment before it. */
export function fillPath(path: string, fixture: Fixture): string {
  const parts = path.split("/");
  return parts
    .map((part, i) => {
      if (!part.startsWith("{")) return part;
      const segment = parts[i - 1]!;
      const id = fixture[segment];
      if (!id) throw new Error(`no fixture id for the "${segment}" segment of ${path}: add one to tests/fixtures.ts`);
      return id;
    })
    .join("/");
}

/** A minimal body that satisfies an OpenAPI request schema: required fields only. */
export function sampleBody(schema: any, name = ""): unknown {
  if (!schema) return undefined;
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf || schema.oneOf) return sampleBody((schema.anyOf ?? schema.oneOf)[0], name);
  switch (schema.type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = sampleBody(schema.properties?.[key], key);
      return out;
    }
    case "array":
      return Array.from({ length: Math.max(1, schema.minItems ?? 0) }, () => sampleBody(schema.items, name));
    case "integer":
    case "number":
      return schema.minimum ?? 1;
    case "boolean":
      return true;
    case "string":
      switch (schema.format) {
        case "uuid":
          return crypto.randomUUID();
        case "date":
          return "2026-03-01";
        case "date-time":
          return "2026-03-01T00:00:00.000000Z";
        case "email":
          return "someone@example.com";
        case "uri":
          return "https://example.com/hook";
        case "iso-3166-alpha2":
          return "BE";
        case "iso-4217":
          return "EUR";
      }
      if (/amount|price|quantity/.test(name)) return "1.00";
      if (name === "url") return "https://example.com/hook";
      return "x".repeat(Math.max(1, schema.minLength ?? 1));
  }
  return "x";
}

/** Every row of every table but request logs and token bookkeeping, for "nothing changed" checks. */
export async function databaseSnapshot(env: TestEnv): Promise<string> {
  const sql = rawSql(env.db);
  const tables = await sql.all<{ name: string }>(
    onPostgres
      ? `SELECT table_name AS "name" FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'kontor_migrations' ORDER BY table_name`
      : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%_fts%' AND name NOT LIKE '__drizzle%' ORDER BY name",
  );
  const hasher = new Bun.CryptoHasher("sha256");
  for (const { name } of tables) {
    if (name === "idempotency_keys") continue; // a request log, not data
    // PostgreSQL has no rowid: its rows are hashed in the order of their serialisations
    const rows = await sql.all<Record<string, unknown>>(`SELECT * FROM "${name}"${onPostgres ? "" : " ORDER BY rowid"}`);
    const serialised: string[] = [];
    for (const row of rows) {
      if (name === "api_tokens") delete row.last_used_at;
      // a stored file (a document's original bytes) goes in as its bytes: JSON would spell out every byte as a key
      const bytes: Uint8Array[] = [];
      for (const [column, value] of Object.entries(row)) {
        if (value instanceof Uint8Array) {
          bytes.push(value);
          row[column] = value.byteLength;
        }
      }
      serialised.push(JSON.stringify(row) + bytes.map((b) => new Bun.CryptoHasher("sha256").update(b).digest("hex")).join(","));
    }
    if (onPostgres) serialised.sort();
    for (const row of serialised) hasher.update(row);
  }
  return hasher.digest("hex");
}

export const rowCount = async (env: TestEnv, table: string): Promise<number> => (await rawSql(env.db).get<{ n: number }>(`SELECT count(*) AS "n" FROM "${table}"`))!.n;

export type DocumentedOperation = {
  method: string;
  path: string;
  /** the `x-ability` of the operation; undefined for the public index and health check */
  ability: string | undefined;
  /** a minimal valid body (required fields only), when the operation takes one */
  body: unknown;
  hasBody: boolean;
  query: { name: string; schema: any }[];
};

/** `node` with every local `$ref` replaced by what it points at (the document has no cycles). */
export function inlineRefs(doc: any, node: any): any {
  if (Array.isArray(node)) return node.map((n) => inlineRefs(doc, n));
  if (!node || typeof node !== "object") return node;
  if (typeof node.$ref === "string") {
    return inlineRefs(doc, node.$ref.split("/").slice(1).reduce((at: any, key: string) => at[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc));
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inlineRefs(doc, v)]));
}

/** Every operation of the published OpenAPI document: what the generated suites iterate over. */
export async function documentedOperations(env: TestEnv): Promise<DocumentedOperation[]> {
  const doc = await openApiDocument((r) => env.app.handle(r));
  const operations: DocumentedOperation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, named] of Object.entries<any>(item)) {
      // named schemas, shared parameters and responses are components: read them in place
      const op = inlineRefs(doc, named);
      const schema = op.requestBody?.content?.["application/json"]?.schema;
      operations.push({
        method: method.toUpperCase(),
        path,
        ability: op["x-ability"],
        body: schema ? sampleBody(schema) : undefined,
        hasBody: !!schema,
        query: (op.parameters ?? []).filter((p: any) => p.in === "query").map((p: any) => ({ name: p.name, schema: p.schema })),
      });
    }
  }
  return operations;
}

/**
 * Expenses (api-spec 2.6, 4.6; contract sections 3–5): field rules, the vendor → supplier
 * match, the approval workflow and its 409s, abilities, tenant isolation, lists, the outbox
 * rows of the expense events and the audit entries.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { and, asc, eq } from "drizzle-orm";
import { auditLog, expenses, suppliers, webhookDeliveries, webhooks } from "../../db/schema.ts";
import { newId, nowIso } from "../../server/lib/time.ts";
import { listVatRates } from "../../server/vat-rates/service.ts";
import { createTestEnv, asTx } from "../helpers.ts";
import { plansOf, slowListSteps, slowSteps } from "../query-plan.ts";
import { sqliteOnly } from "../raw-sql.ts";
import { firstRow } from "../../db/client.ts";
const TESTS_ROOT = join(import.meta.dir, "..");

const env = await createTestEnv();
afterAll(() => env.close());

const valid = { category: "Travel", amount: "42.50", date: "2026-03-02" };

async function expense(body: Record<string, unknown> = {}, token?: string) {
  const r = await env.api("POST", "/api/v1/expenses", { ...valid, ...body }, token);
  expect(r.status, r.text).toBe(201);
  return r.body.data;
}

async function rejected(reason?: string) {
  const e = await expense();
  const r = await env.api("POST", `/api/v1/expenses/${e.id}/reject`, reason === undefined ? undefined : { reason });
  expect(r.status, r.text).toBe(200);
  return r.body.data;
}

async function approved() {
  const e = await expense();
  const r = await env.api("POST", `/api/v1/expenses/${e.id}/approve`);
  expect(r.status, r.text).toBe(200);
  return r.body.data;
}

const supplierNamed = async (name: string) => await env.db.select().from(suppliers).where(and(eq(suppliers.organizationId, env.org.id), eq(suppliers.name, name)));
/** read from the database: GET /api/v1/vat-rates belongs to the invoices work */
const vatRates = async (orgId = env.org.id) => listVatRates(asTx(env.db), orgId);

describe("fields (api-spec 2.6, 4.6)", () => {
  test("create with every field: 201, Location, status pending, the shape of 2.6", async () => {
    const [rate] = await vatRates();
    const body = { ...valid, description: "Train to Gent", vat_amount: "2.55", vat_rate_id: rate!.id, vendor: "NMBS Full", currency: "USD" };
    const r = await env.api("POST", "/api/v1/expenses", body);
    expect(r.status).toBe(201);
    expect(r.headers.get("location")).toBe(`/api/v1/expenses/${r.body.data.id}`);
    expect(Object.keys(r.body.data).sort()).toEqual(
      [
        "amount", "amount_due", "amount_paid", "category", "created_at", "currency", "date", "description", "document_type", "document_url", "due_date", "id",
        "external_id", "metadata", "payee_iban", "payment_reference", "payments", "prepaid_amount", "refund_due", "rejection_reason", "rounding_amount", "self_assessed_vat_rate_id", "status", "supplier_id", "supplier_invoice_number", "total", "updated_at", "vat_amount",
        "vat_rate_id", "vendor",
      ].sort(),
    );
    expect(r.body.data).toMatchObject({ ...body, status: "pending", rejection_reason: null, prepaid_amount: "0.00", rounding_amount: "0.00" });
    expect(r.body.data.supplier_id).toBeString();
    expect(r.body.data.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect((await env.api("GET", `/api/v1/expenses/${r.body.data.id}`)).body.data).toEqual(r.body.data);
  });

  test("defaults: organisation currency, vat_amount 0.00, no vendor and no supplier", async () => {
    const e = await expense();
    expect(e).toMatchObject({ currency: "EUR", vat_amount: "0.00", vat_rate_id: null, vendor: null, supplier_id: null, description: null });
    const usd = await env.newOrg("Dollar Co", { currency: "USD", country: "US" });
    expect((await expense({}, usd.token)).currency).toBe("USD");
  });

  test("money is exact: numbers and strings, two decimals out", async () => {
    expect((await expense({ amount: 12.5, vat_amount: 0 })).amount).toBe("12.50");
    expect((await expense({ amount: "0.01" })).amount).toBe("0.01");
    expect((await expense({ amount: 0.1 })).amount).toBe("0.10");
    expect((await expense({ amount: "999999999999.99" })).amount).toBe("999999999999.99");
  });

  test("every field rule: a 422 naming the field", async () => {
    const other = await env.newOrg("Foreign VAT");
    const [foreignRate] = await vatRates(other.org.id);
    const reverseCharge = (await vatRates()).find((r) => r.category === "AE");
    const cases: [Record<string, unknown>, string][] = [
      [{ category: undefined }, "category"],
      [{ category: "" }, "category"],
      [{ category: "   " }, "category"],
      [{ category: "c".repeat(101) }, "category"],
      [{ category: 7 }, "category"],
      [{ amount: undefined }, "amount"],
      [{ amount: 0 }, "amount"],
      [{ amount: "0.00" }, "amount"],
      [{ amount: "-5" }, "amount"],
      [{ amount: "1.234" }, "amount"],
      [{ amount: "abc" }, "amount"],
      [{ amount: "1000000000000.00" }, "amount"],
      [{ amount: true }, "amount"],
      [{ vat_amount: "-0.01" }, "vat_amount"],
      [{ vat_amount: "1.001" }, "vat_amount"],
      [{ date: undefined }, "date"],
      [{ date: "2026-02-30" }, "date"],
      [{ date: "02/03/2026" }, "date"],
      [{ vendor: "v".repeat(256) }, "vendor"],
      [{ currency: "EURO" }, "currency"],
      [{ currency: "XYZ" }, "currency"],
      [{ currency: "eur" }, "currency"],
      [{ vat_rate_id: "not-a-uuid" }, "vat_rate_id"],
      [{ vat_rate_id: foreignRate!.id }, "vat_rate_id"],
      [{ vat_rate_id: "01900000-0000-7000-8000-000000000000" }, "vat_rate_id"],
      [{ self_assessed_vat_rate_id: foreignRate!.id }, "self_assessed_vat_rate_id"],
      // VAT is self-assessed at a standard rate: a reverse-charge rate says nothing
      [{ self_assessed_vat_rate_id: reverseCharge!.id }, "self_assessed_vat_rate_id"],
      [{ status: "approved" }, "status"],
      [{ supplier_id: "01900000-0000-7000-8000-000000000000" }, "supplier_id"],
      [{ rejection_reason: "x" }, "rejection_reason"],
      [{ id: "01900000-0000-7000-8000-000000000000" }, "id"],
    ];
    const before = (await env.db.select().from(expenses)).length;
    for (const [override, field] of cases) {
      const r = await env.api("POST", "/api/v1/expenses", { ...valid, ...override });
      expect(r.status, JSON.stringify(override).slice(0, 80)).toBe(422);
      expect(Object.keys(r.body.errors), JSON.stringify(override).slice(0, 80)).toEqual([field]);
    }
    expect((await env.db.select().from(expenses)).length).toBe(before);
    // the limits themselves are accepted
    const edge = await env.api("POST", "/api/v1/expenses", { ...valid, category: "c".repeat(100), amount: "0.01", vat_amount: "0", vendor: "v".repeat(255) });
    expect(edge.status).toBe(201);
  });

  test("status and supplier_id are named together when both are sent", async () => {
    const r = await env.api("POST", "/api/v1/expenses", { ...valid, status: "approved", supplier_id: newId() });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors).sort()).toEqual(["status", "supplier_id"]);
  });

  test("update: partial, same rules, nulls clear the optional fields", async () => {
    const [rate] = await vatRates();
    const e = await expense({ description: "Before", vat_rate_id: rate!.id, vendor: "Clearable" });
    const r = await env.api("PUT", `/api/v1/expenses/${e.id}`, { amount: "10", description: null, vat_rate_id: null });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ amount: "10.00", category: "Travel", description: null, vat_rate_id: null, vendor: "Clearable", date: valid.date });
    expect(r.body.data.updated_at > e.updated_at).toBe(true);
    for (const [body, field] of [
      [{ amount: 0 }, "amount"],
      [{ category: "" }, "category"],
      [{ category: null }, "category"],
      [{ date: "tomorrow" }, "date"],
      [{ currency: null }, "currency"],
      [{ status: "approved" }, "status"],
      [{ supplier_id: null }, "supplier_id"],
    ] as [Record<string, unknown>, string][]) {
      const bad = await env.api("PUT", `/api/v1/expenses/${e.id}`, body);
      expect(bad.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(bad.body.errors)).toEqual([field]);
    }
  });
});

describe("vendor → supplier (contract section 3)", () => {
  test("matched case-insensitively and trimmed to an existing supplier", async () => {
    const supplier = (await env.api("POST", "/api/v1/suppliers", { name: "Acme Supplies" })).body.data;
    const e = await expense({ vendor: "  aCME supplies " });
    expect(e.supplier_id).toBe(supplier.id);
    expect(e.vendor).toBe("aCME supplies");
    expect(await supplierNamed("aCME supplies")).toHaveLength(0);
  });

  test("created when missing, with its own audit entry; reused afterwards", async () => {
    const e = await expense({ vendor: "Brand New Vendor BV" });
    const created = await supplierNamed("Brand New Vendor BV");
    expect(created.map((s) => s.id)).toEqual([e.supplier_id]);
    const shown = await env.api("GET", `/api/v1/suppliers/${e.supplier_id}`);
    expect(shown.body.data).toMatchObject({ name: "Brand New Vendor BV", type: "individual" });
    const entry = await env.db.select().from(auditLog).where(and(eq(auditLog.resourceId, e.supplier_id), eq(auditLog.action, "supplier.created")));
    expect(entry).toHaveLength(1);
    expect(entry[0]).toMatchObject({ resourceType: "supplier", actorType: "token" });
    const again = await expense({ vendor: "BRAND NEW VENDOR BV" });
    expect(again.supplier_id).toBe(e.supplier_id);
    expect(await supplierNamed("BRAND NEW VENDOR BV")).toHaveLength(0);
  });

  test("null without a vendor; a blank vendor is no vendor", async () => {
    expect((await expense({ vendor: null })).supplier_id).toBeNull();
    const blank = await expense({ vendor: "   " });
    expect(blank).toMatchObject({ vendor: null, supplier_id: null });
  });

  test("updating the vendor derives the supplier again; other updates keep it", async () => {
    const e = await expense({ vendor: "First Vendor" });
    const kept = await env.api("PUT", `/api/v1/expenses/${e.id}`, { category: "Meals" });
    expect(kept.body.data.supplier_id).toBe(e.supplier_id);
    const moved = await env.api("PUT", `/api/v1/expenses/${e.id}`, { vendor: "Second Vendor" });
    expect(moved.body.data.supplier_id).not.toBe(e.supplier_id);
    expect(moved.body.data.supplier_id).toBe((await supplierNamed("Second Vendor"))[0]!.id);
    const cleared = await env.api("PUT", `/api/v1/expenses/${e.id}`, { vendor: null });
    expect(cleared.body.data).toMatchObject({ vendor: null, supplier_id: null });
  });

  test("the match is per organisation", async () => {
    const mine = await expense({ vendor: "Shared Name NV" });
    const other = await env.newOrg("Vendor Twin");
    const theirs = await expense({ vendor: "Shared Name NV" }, other.token);
    expect(theirs.supplier_id).not.toBe(mine.supplier_id);
  });

  test("a refused expense creates no supplier (one transaction)", async () => {
    const r = await env.api("POST", "/api/v1/expenses", { ...valid, vendor: "Ghost Vendor", vat_rate_id: newId() });
    expect(r.status).toBe(422);
    expect(await supplierNamed("Ghost Vendor")).toHaveLength(0);
  });

  sqliteOnly.test("the lookup probes the suppliers_org_lower_name index", async () => {
    const plans = await plansOf(env, () => expense({ vendor: "Indexed Vendor" }));
    const lookup = plans.find((p) => /from "suppliers"/i.test(p.sql) && /lower\(trim/i.test(p.sql));
    expect(lookup, "the vendor lookup query").toBeDefined();
    expect(lookup!.plan.join("\n")).toContain("suppliers_org_lower_name");
    expect(slowSteps(lookup!.plan)).toEqual([]);
  });
});

describe("workflow (contract section 4)", () => {
  test("approve: pending → approved (200, the expense)", async () => {
    const e = await expense();
    const r = await env.api("POST", `/api/v1/expenses/${e.id}/approve`);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: e.id, status: "approved", rejection_reason: null });
    expect((await env.api("GET", `/api/v1/expenses/${e.id}`)).body.data.status).toBe("approved");
  });

  test("reject with a reason: kept and shown; without one: null", async () => {
    const e = await rejected("  No receipt attached ");
    expect(e).toMatchObject({ status: "rejected", rejection_reason: "No receipt attached" });
    expect((await env.api("GET", `/api/v1/expenses/${e.id}`)).body.data.rejection_reason).toBe("No receipt attached");
    expect(await rejected()).toMatchObject({ status: "rejected", rejection_reason: null });
    const withEmptyBody = await expense();
    expect((await env.api("POST", `/api/v1/expenses/${withEmptyBody.id}/reject`, {})).body.data.status).toBe("rejected");
  });

  test("reject and approve bodies accept nothing else", async () => {
    const e = await expense();
    const r = await env.api("POST", `/api/v1/expenses/${e.id}/reject`, { reason: "x", note: "typo" });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors)).toEqual(["note"]);
    expect((await env.api("POST", `/api/v1/expenses/${e.id}/reject`, { reason: "r".repeat(1001) })).status).toBe(422);
    const a = await env.api("POST", `/api/v1/expenses/${e.id}/approve`, { reason: "x" });
    expect(a.status).toBe(422);
    expect(Object.keys(a.body.errors)).toEqual(["reason"]);
    expect((await env.api("GET", `/api/v1/expenses/${e.id}`)).body.data.status).toBe("pending");
  });

  test("updating a rejected expense returns it to pending and clears the reason", async () => {
    const e = await rejected("Wrong amount");
    const r = await env.api("PUT", `/api/v1/expenses/${e.id}`, { amount: "40.00" });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ status: "pending", rejection_reason: null, amount: "40.00" });
    expect((await env.api("POST", `/api/v1/expenses/${e.id}/approve`)).status).toBe(200);
  });

  test("every refused transition is a 409 naming the current state, and changes nothing", async () => {
    const a = await approved();
    const r = await rejected("No");
    const cases: [string, string, string, unknown?][] = [
      ["approved", "POST", `/api/v1/expenses/${a.id}/approve`],
      ["approved", "POST", `/api/v1/expenses/${a.id}/reject`, { reason: "late" }],
      ["approved", "PUT", `/api/v1/expenses/${a.id}`, { amount: "1.00" }],
      ["approved", "DELETE", `/api/v1/expenses/${a.id}`],
      ["rejected", "POST", `/api/v1/expenses/${r.id}/approve`],
      ["rejected", "POST", `/api/v1/expenses/${r.id}/reject`],
    ];
    for (const [state, method, path, body] of cases) {
      const before = await firstRow(env.db.select().from(expenses).where(eq(expenses.id, path.split("/")[4]!)));
      const res = await env.api(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(409);
      expect(Object.keys(res.body)).toEqual(["code", "message"]);
      expect(res.body.message, `${method} ${path}`).toContain(state);
      expect(await firstRow(env.db.select().from(expenses).where(eq(expenses.id, before!.id)))).toEqual(before);
    }
  });

  test("delete: pending and rejected are 204 then 404", async () => {
    for (const e of [await expense(), await rejected()]) {
      expect((await env.api("DELETE", `/api/v1/expenses/${e.id}`)).status).toBe(204);
      expect((await env.api("GET", `/api/v1/expenses/${e.id}`)).status).toBe(404);
      expect((await env.api("DELETE", `/api/v1/expenses/${e.id}`)).status).toBe(404);
    }
  });

  test("an unknown expense is a 404 on every verb", async () => {
    const id = newId();
    for (const [method, path, body] of [
      ["GET", `/api/v1/expenses/${id}`],
      ["PUT", `/api/v1/expenses/${id}`, { category: "x" }],
      ["DELETE", `/api/v1/expenses/${id}`],
      ["POST", `/api/v1/expenses/${id}/approve`],
      ["POST", `/api/v1/expenses/${id}/reject`],
    ] as [string, string, unknown?][]) {
      expect((await env.api(method, path, body)).status, `${method} ${path}`).toBe(404);
    }
  });
});

describe("abilities (expenses.*)", () => {
  test("each operation needs its ability: 403 naming it; that ability alone is enough", async () => {
    const ops: [string, string, string, unknown?][] = [
      ["expenses.view", "GET", "/api/v1/expenses"],
      ["expenses.view", "GET", "/api/v1/expenses/:id"],
      ["expenses.create", "POST", "/api/v1/expenses", valid],
      ["expenses.edit", "PUT", "/api/v1/expenses/:id", { category: "x" }],
      ["expenses.delete", "DELETE", "/api/v1/expenses/:id"],
      ["expenses.approve", "POST", "/api/v1/expenses/:id/approve"],
      ["expenses.approve", "POST", "/api/v1/expenses/:id/reject"],
    ];
    const expenseAbilities = ["expenses.view", "expenses.create", "expenses.edit", "expenses.delete", "expenses.approve"];
    for (const [ability, method, template, body] of ops) {
      const path = template.replace(":id", (await expense()).id);
      const denied = await env.api(method, path, body, await env.orgToken(expenseAbilities.filter((a) => a !== ability)));
      expect(denied.status, `${method} ${template}`).toBe(403);
      expect(denied.body.message).toContain(ability);
      const allowed = await env.api(method, path, body, await env.orgToken([ability]));
      expect(allowed.status, `${method} ${template} with ${ability}`).toBeLessThan(300);
    }
  });

  test("a member records and edits expenses but cannot approve, reject or delete them", async () => {
    const { token } = await env.userToken("member");
    const e = await expense({}, token);
    expect((await env.api("PUT", `/api/v1/expenses/${e.id}`, { category: "Meals" }, token)).status).toBe(200);
    for (const [method, path, ability] of [
      ["POST", `/api/v1/expenses/${e.id}/approve`, "expenses.approve"],
      ["POST", `/api/v1/expenses/${e.id}/reject`, "expenses.approve"],
      ["DELETE", `/api/v1/expenses/${e.id}`, "expenses.delete"],
    ]) {
      const r = await env.api(method!, path!, undefined, token);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.message).toContain(ability!);
    }
    const accountant = (await env.userToken("accountant")).token;
    expect((await env.api("POST", `/api/v1/expenses/${e.id}/approve`, undefined, accountant)).status).toBe(200);
  });
});

describe("tenant isolation", () => {
  test("another organisation's expense is a 404 on every verb, and stays unchanged", async () => {
    const mine = await expense({ vendor: "Isolated Vendor" });
    const other = await env.newOrg("Expense Intruder");
    for (const [method, path, body] of [
      ["GET", `/api/v1/expenses/${mine.id}`],
      ["PUT", `/api/v1/expenses/${mine.id}`, { category: "Stolen" }],
      ["DELETE", `/api/v1/expenses/${mine.id}`],
      ["POST", `/api/v1/expenses/${mine.id}/approve`],
      ["POST", `/api/v1/expenses/${mine.id}/reject`, { reason: "x" }],
    ] as [string, string, unknown?][]) {
      const r = await env.api(method, path, body, other.token);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body).toEqual({ code: "not_found", message: "Not found." });
    }
    const list = await env.api("GET", `/api/v1/expenses?filter[supplier_id]=${mine.supplier_id}`, undefined, other.token);
    expect(list.body.data).toEqual([]);
    expect((await env.api("GET", `/api/v1/expenses/${mine.id}`)).body.data).toEqual(mine);
  });
});

describe("paid (contract section 4)", () => {
  const pay = (id: string, amount: string) => env.api("POST", `/api/v1/expenses/${id}/record-payment`, { amount, payment_date: "2026-03-10" });

  test("approved → paid when the payments cover the total, approved again when one is deleted; each an expense.updated", async () => {
    const org = await env.newOrg("Paying Co");
    const now = nowIso();
    const hook = newId();
    await env.db.insert(webhooks).values({ id: hook, organizationId: org.org.id, url: "https://hooks.example.com/x", events: ["expense.updated"], isActive: true, secret: "s".repeat(64), createdAt: now, updatedAt: now });
    const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, org.token);
    // 42.50 + 8.93 VAT = 51.43 owed
    const e = (await api("POST", "/api/v1/expenses", { ...valid, vat_amount: "8.93" })).body.data;
    expect((await api("POST", `/api/v1/expenses/${e.id}/approve`)).body.data).toMatchObject({ status: "approved", amount_due: "51.43" });

    const first = await api("POST", `/api/v1/expenses/${e.id}/record-payment`, { amount: "50.00", payment_date: "2026-03-10" });
    expect(first.status, first.text).toBe(201);
    expect((await api("GET", `/api/v1/expenses/${e.id}`)).body.data).toMatchObject({ status: "approved", amount_paid: "50.00", amount_due: "1.43" });
    const second = await api("POST", `/api/v1/expenses/${e.id}/record-payment`, { amount: "1.43", payment_date: "2026-03-11" });
    expect(second.status, second.text).toBe(201);
    const paid = (await api("GET", `/api/v1/expenses/${e.id}`)).body.data;
    expect(paid).toMatchObject({ status: "paid", amount_paid: "51.43", amount_due: "0.00" });
    expect(paid.payments.map((p: any) => p.amount)).toEqual(["50.00", "1.43"]);
    expect((await firstRow(env.db.select().from(expenses).where(eq(expenses.id, e.id))))!.status).toBe("paid");

    // nothing more can be paid, edited or deleted: 409s naming the state, nothing changed
    const before = await firstRow(env.db.select().from(expenses).where(eq(expenses.id, e.id)));
    for (const [method, path, body] of [
      ["POST", `/api/v1/expenses/${e.id}/record-payment`, { amount: "0.01", payment_date: "2026-03-12" }],
      ["PUT", `/api/v1/expenses/${e.id}`, { amount: "1.00" }],
      ["DELETE", `/api/v1/expenses/${e.id}`],
      ["POST", `/api/v1/expenses/${e.id}/approve`],
      ["POST", `/api/v1/expenses/${e.id}/reject`],
    ] as [string, string, unknown?][]) {
      const r = await api(method, path, body);
      expect(r.status, `${method} ${path}`).toBe(409);
      expect(r.body.message).toContain("The expense is paid");
    }
    expect(await firstRow(env.db.select().from(expenses).where(eq(expenses.id, e.id)))).toEqual(before);

    // the list filter finds it
    const list = await api("GET", "/api/v1/expenses?filter[status]=paid");
    expect(list.status).toBe(200);
    expect(list.body.data.map((x: any) => x.id)).toEqual([e.id]);

    // a payment deleted: approved again, 1.43 due
    expect((await api("DELETE", `/api/v1/expenses/${e.id}/payments/${second.body.data.payments[1].id}`)).status).toBe(204);
    expect((await api("GET", `/api/v1/expenses/${e.id}`)).body.data).toMatchObject({ status: "approved", amount_paid: "50.00", amount_due: "1.43" });
    expect((await api("GET", "/api/v1/expenses?filter[status]=paid")).body.data).toEqual([]);

    const events = await env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook)).orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id));
    expect(events.map((d) => [d.event, JSON.parse(d.payload).data.status])).toEqual([
      ["expense.updated", "approved"],
      ["expense.updated", "paid"],
      ["expense.updated", "approved"],
    ]);
  });

  test("one payment of the whole total pays it at once; a pending expense cannot be paid", async () => {
    const a = await approved();
    expect((await pay(a.id, "42.50")).body.data).toMatchObject({ status: "paid", amount_due: "0.00" });
    const p = await expense();
    const r = await pay(p.id, "1.00");
    expect(r.status).toBe(409);
    expect(r.body.message).toContain("pending");
  });
});

describe("due date, payee IBAN and payment reference", () => {
  test("created and updated: shown as stored; the IBAN in its electronic form, a structured reference canonical", async () => {
    const e = await expense({ due_date: "2026-04-01", payee_iban: "be68 5390 0754 7034", payment_reference: "123/4567/89002" });
    expect(e).toMatchObject({ date: "2026-03-02", due_date: "2026-04-01", payee_iban: "BE68539007547034", payment_reference: "+++123/4567/89002+++" });
    const u = await env.api("PUT", `/api/v1/expenses/${e.id}`, { payment_reference: "rf18 5390 0754 7034", due_date: "2026-03-02" });
    expect(u.status, u.text).toBe(200);
    expect(u.body.data).toMatchObject({ due_date: "2026-03-02", payee_iban: "BE68539007547034", payment_reference: "RF18539007547034" });
    const free = await env.api("PUT", `/api/v1/expenses/${e.id}`, { payment_reference: "  Invoice 2026/117 ", payee_iban: null, due_date: null });
    expect(free.body.data).toMatchObject({ due_date: null, payee_iban: null, payment_reference: "Invoice 2026/117" });
    expect((await env.api("GET", `/api/v1/expenses/${e.id}`)).body.data).toEqual(free.body.data);
    expect(await expense()).toMatchObject({ due_date: null, payee_iban: null, payment_reference: null });
  });

  test("refused with a 422 naming the field, nothing stored", async () => {
    const e = await expense({ due_date: "2026-03-20" });
    const cases: [string, string, Record<string, unknown>, string][] = [
      ["POST", "/api/v1/expenses", { ...valid, due_date: "2026-03-01" }, "due_date"], // the day before date
      ["POST", "/api/v1/expenses", { ...valid, due_date: "2026-02-30" }, "due_date"],
      ["POST", "/api/v1/expenses", { ...valid, payee_iban: "BE68539007547035" }, "payee_iban"], // check digits
      ["POST", "/api/v1/expenses", { ...valid, payee_iban: "not an iban" }, "payee_iban"],
      ["POST", "/api/v1/expenses", { ...valid, payment_reference: "+++123/4567/89003+++" }, "payment_reference"],
      ["POST", "/api/v1/expenses", { ...valid, payment_reference: "RF19539007547034" }, "payment_reference"],
      ["POST", "/api/v1/expenses", { ...valid, payment_reference: "x".repeat(141) }, "payment_reference"],
      ["PUT", `/api/v1/expenses/${e.id}`, { date: "2026-03-21" }, "due_date"], // moves the date past the stored due date
      ["PUT", `/api/v1/expenses/${e.id}`, { due_date: "2026-03-01" }, "due_date"],
    ];
    const count = async () => (await env.db.select().from(expenses)).length;
    for (const [method, path, body, field] of cases) {
      const before = await count();
      const r = await env.api(method, path, body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(r.body.errors), JSON.stringify(body)).toEqual([field]);
      expect(await count()).toBe(before);
    }
    expect((await env.api("GET", `/api/v1/expenses/${e.id}`)).body.data).toMatchObject({ date: "2026-03-02", due_date: "2026-03-20" });
  });

  test("an imported e-invoice fills them from its payment means (BT-9, BT-84, BT-83)", async () => {
    const { token } = await env.newOrg("Importing Co", { country: "BE", currency: "EUR" });
    for (const file of ["cen/ubl-tc434-example2.xml", "peppol/base-example.xml", "peppol/vat-category-E.xml"]) {
      const xml = readFileSync(join(TESTS_ROOT, "einvoicing", "examples", file), "utf8");
      // what the file itself says: its first DueDate, PaymentMeans' PaymentID and PayeeFinancialAccount ID
      const dueDate = /<cbc:DueDate>([^<]+)</.exec(xml)?.[1] ?? null;
      const reference = /<cbc:PaymentID>([^<]+)</.exec(xml)?.[1] ?? null;
      const account = /<cac:PayeeFinancialAccount>\s*<cbc:ID>([^<]+)</.exec(xml)![1]!.replace(/\s+/g, "");
      const r = await env.request("POST", "/api/v1/expenses/import", { rawBody: xml, token, headers: { "content-type": "application/xml" } });
      expect(r.status, r.text).toBe(201);
      // kept when it is an IBAN (ISO 13616 mod 97 = 1): the Peppol examples' "IBAN32423940" and vat-category-E's SE account are not
      const digits = (account.slice(4) + account.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
      const iban = /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(account) && BigInt(digits) % 97n === 1n ? account : null;
      expect(r.body.data, file).toMatchObject({ due_date: dueDate, payee_iban: iban, payment_reference: reference });
    }
  });
});

describe("lists (contract section 5)", async () => {
  const org = await env.newOrg("List Co");
  const list = (query: string) => env.api("GET", `/api/v1/expenses${query}`, undefined, org.token);
  const ids = (r: { body: { data: { id: string }[] } }) => r.body.data.map((e) => e.id);
  const rows: Record<string, any> = {};

  beforeAll(async () => {
    const specs: [string, Record<string, unknown>][] = [
      ["jan", { category: "Travel", amount: "9.00", date: "2026-01-15", vendor: "NMBS", description: "Train Brussels" }],
      ["feb", { category: "Meals", amount: "10.00", date: "2026-02-01", vendor: "Quick", description: "Lunch with client" }],
      ["mar", { category: "Software", amount: "120.00", date: "2026-03-31", vendor: "GitHub", currency: "USD" }],
      ["mar2", { category: "Travel", amount: "35.20", date: "2026-03-31", vendor: "nmbs" }],
      ["apr", { category: "office", amount: "1000.00", date: "2026-04-01", description: "Standing desk" }],
    ];
    for (const [key, body] of specs) rows[key] = await expense(body, org.token);
    await env.api("POST", `/api/v1/expenses/${rows.feb.id}/approve`, undefined, org.token);
    await env.api("POST", `/api/v1/expenses/${rows.mar.id}/reject`, { reason: "personal" }, org.token);
  });

  test("default: newest date first, ties broken by id", async () => {
    const r = await list("");
    expect(r.body.meta.total).toBe(5);
    const [a, b] = [rows.mar.id, rows.mar2.id].sort().reverse();
    expect(ids(r)).toEqual([rows.apr.id, a, b, rows.feb.id, rows.jan.id]);
    expect(r.body.data[0]).toEqual((await env.api("GET", `/api/v1/expenses/${rows.apr.id}`, undefined, org.token)).body.data);
  });

  test("sorts: amount numerically, category, status, date, created_at, updated_at", async () => {
    expect(ids(await list("?sort=amount"))).toEqual([rows.jan.id, rows.feb.id, rows.mar2.id, rows.mar.id, rows.apr.id]);
    expect(ids(await list("?sort=-amount"))[0]).toBe(rows.apr.id);
    expect((await list("?sort=category")).body.data.map((e: any) => e.category)).toEqual(["Meals", "Software", "Travel", "Travel", "office"]);
    expect((await list("?sort=status")).body.data.map((e: any) => e.status)).toEqual(["approved", "pending", "pending", "pending", "rejected"]);
    expect(ids(await list("?sort=date"))[0]).toBe(rows.jan.id);
    expect(ids(await list("?sort=created_at"))).toEqual([rows.jan.id, rows.feb.id, rows.mar.id, rows.mar2.id, rows.apr.id]);
    expect(ids(await list("?sort=-updated_at"))[0]).toBe(rows.mar.id);
    const bad = await list("?sort=vendor");
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(["sort"]);
  });

  test("filters: status, category, supplier_id, currency, date_from, date_to (inclusive)", async () => {
    expect(ids(await list("?filter[status]=approved"))).toEqual([rows.feb.id]);
    expect(ids(await list("?filter[status]=rejected"))).toEqual([rows.mar.id]);
    expect((await list("?filter[status]=pending")).body.meta.total).toBe(3);
    expect((await list("?filter[category]=Travel")).body.meta.total).toBe(2);
    expect(ids(await list(`?filter[supplier_id]=${rows.jan.supplier_id}`)).sort()).toEqual([rows.jan.id, rows.mar2.id].sort());
    expect(ids(await list("?filter[currency]=USD"))).toEqual([rows.mar.id]);
    expect((await list("?filter[date_from]=2026-03-31")).body.meta.total).toBe(3);
    expect((await list("?filter[date_to]=2026-02-01")).body.meta.total).toBe(2);
    expect((await list("?filter[date_from]=2026-02-01&filter[date_to]=2026-03-31&filter[category]=Travel")).body.meta.total).toBe(1);
    for (const [query, key] of [
      ["?filter[status]=settled", "filter.status"],
      ["?filter[supplier_id]=nope", "filter.supplier_id"],
      ["?filter[currency]=euro", "filter.currency"],
      ["?filter[date_from]=2026-13-01", "filter.date_from"],
      ["?filter[date_to]=yesterday", "filter.date_to"],
      ["?filter[vendor]=NMBS", "filter.vendor"],
    ]) {
      const r = await list(query!);
      expect(r.status, query).toBe(422);
      expect(Object.keys(r.body.errors), query).toEqual([key]);
    }
  });

  test("search: description, vendor and category", async () => {
    expect(ids(await list("?search=lunch"))).toEqual([rows.feb.id]);
    expect(ids(await list("?search=github"))).toEqual([rows.mar.id]);
    expect(ids(await list("?search=softw"))).toEqual([rows.mar.id]);
    expect((await list("?search=nmbs")).body.meta.total).toBe(2);
    expect(ids(await list("?search=desk&filter[status]=pending"))).toEqual([rows.apr.id]);
    await env.api("PUT", `/api/v1/expenses/${rows.apr.id}`, { description: "Ergonomic chair" }, org.token);
    expect((await list("?search=desk")).body.data).toEqual([]);
    expect((await env.api("GET", "/api/v1/expenses?search=lunch")).body.data).toEqual([]);
  });

  test("every sort and filter reads through an index in list order (EXPLAIN QUERY PLAN)", async () => {
    // [query, the columns its filters must seek on]
    const queries: [string, string[]][] = [
      ["", []], ["?sort=date", []], ["?sort=amount", []], ["?sort=-amount", []], ["?sort=category", []], ["?sort=status", []],
      ["?sort=created_at", []], ["?sort=-updated_at", []],
      ["?filter[status]=pending", ["status"]], ["?filter[category]=Travel", ["category"]],
      [`?filter[supplier_id]=${rows.jan.supplier_id}`, ["supplier_id"]], ["?filter[currency]=EUR", ["currency"]],
      ["?filter[date_from]=2026-02-01", ["date"]], ["?filter[date_to]=2026-02-01", ["date"]],
      ["?filter[date_from]=2026-01-01&filter[date_to]=2026-12-31", ["date"]],
      ["?search=travel", []], ["?filter[updated_since]=2026-01-01T00:00:00Z&sort=updated_at", ["updated_at"]],
    ];
    const slow: string[] = [];
    for (const [q, seekOn] of queries) slow.push(...(await slowListSteps(env, "expenses", `/api/v1/expenses${q}`, org.token, seekOn)));
    expect(slow).toEqual([]);
  });
});

describe("webhook outbox (contract 7.2)", () => {
  test("each change queues its event with the expense as the API shows it, in the same transaction", async () => {
    const org = await env.newOrg("Hooked Co");
    const now = nowIso();
    const hook = async (events: string[], isActive = true) => {
      const id = newId();
      await env.db.insert(webhooks).values({ id, organizationId: org.org.id, url: "https://hooks.example.com/x", events, isActive, secret: "s".repeat(64), createdAt: now, updatedAt: now });
      return id;
    };
    const all = await hook(["expense.created", "expense.updated", "expense.deleted", "expense.approved"]);
    const approvedOnly = await hook(["expense.approved"]);
    const inactive = await hook(["expense.created", "expense.updated", "expense.deleted", "expense.approved"], false);
    const deliveries = async (webhookId: string) =>
      await env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId)).orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id));

    const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, org.token);
    const created = (await api("POST", "/api/v1/expenses", { ...valid, vendor: "Webhook Vendor" })).body.data;
    const updated = (await api("PUT", `/api/v1/expenses/${created.id}`, { amount: "50.00" })).body.data;
    const approvedExpense = (await api("POST", `/api/v1/expenses/${created.id}/approve`)).body.data;
    expect((await api("DELETE", `/api/v1/expenses/${created.id}`)).status).toBe(409); // refused: queues nothing
    const second = (await api("POST", "/api/v1/expenses", valid)).body.data;
    const rejectedExpense = (await api("POST", `/api/v1/expenses/${second.id}/reject`, { reason: "dup" })).body.data;
    expect((await api("DELETE", `/api/v1/expenses/${second.id}`)).status).toBe(204);

    const rows = await deliveries(all);
    expect(rows.map((d) => d.event)).toEqual(["expense.created", "expense.updated", "expense.approved", "expense.created", "expense.updated", "expense.deleted"]);
    const payloads = rows.map((d) => JSON.parse(d.payload));
    expect(payloads.map((p) => p.data)).toEqual([created, updated, approvedExpense, second, rejectedExpense, rejectedExpense]);
    for (const [i, p] of payloads.entries()) {
      expect(p.event).toBe(rows[i]!.event);
      expect(p.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      expect(rows[i]).toMatchObject({ status: "pending", attempts: 0, organizationId: org.org.id });
    }
    expect((await deliveries(approvedOnly)).map((d) => d.event)).toEqual(["expense.approved"]);
    expect(await deliveries(inactive)).toEqual([]);
  });
});

describe("audit (contract section 5)", () => {
  test("every change is audited with its actor: organisation token and user", async () => {
    const tokenId = env.token.split("|")[0];
    const e = await expense();
    await env.api("PUT", `/api/v1/expenses/${e.id}`, { category: "Meals" });
    await env.api("POST", `/api/v1/expenses/${e.id}/reject`, { reason: "no" });
    await env.api("PUT", `/api/v1/expenses/${e.id}`, {});
    await env.api("POST", `/api/v1/expenses/${e.id}/approve`);
    await env.api("DELETE", `/api/v1/expenses/${e.id}`); // 409: not audited
    const entries = await env.db.select().from(auditLog).where(eq(auditLog.resourceId, e.id)).orderBy(asc(auditLog.createdAt));
    expect(entries.map((a) => a.action)).toEqual(["expense.created", "expense.updated", "expense.rejected", "expense.updated", "expense.approved"]);
    for (const a of entries) expect(a).toMatchObject({ resourceType: "expense", actorType: "token", actorId: tokenId, organizationId: env.org.id });

    const { token, userId } = await env.userToken("owner");
    const mine = await expense({}, token);
    expect((await env.api("DELETE", `/api/v1/expenses/${mine.id}`, undefined, token)).status).toBe(204);
    const byUser = await env.db.select().from(auditLog).where(eq(auditLog.resourceId, mine.id)).orderBy(asc(auditLog.createdAt));
    expect(byUser.map((a) => [a.action, a.actorType, a.actorId])).toEqual([
      ["expense.created", "user", userId],
      ["expense.deleted", "user", userId],
    ]);
  });
});

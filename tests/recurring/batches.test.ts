/**
 * The recurring run reads its due templates in keyset batches (docs/recurring.md#running-it): a
 * batch boundary changes nothing it generates, and a template that fails stays behind the walk,
 * reported once, not read again by the same run.
 */
import { afterAll, expect, test } from "bun:test";
import { runRecurring } from "../../server/recurring/run.ts";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { createTestEnv } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

test("five templates due, two of which cannot be finalized on the run's date, in batches of 2: three generated, two failed, each once", async () => {
  const { org, token } = await env.newOrg();
  const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
  expect((await api("PUT", "/api/v1/organization", SELLER_IDENTITY)).status).toBe(200);
  const customer = (await api("POST", "/api/v1/customers", { name: "Klant BV", address: "Markt 1", city: "Brugge", postal_code: "8000", country: "BE", vat_number: "BE0404795549" })).body.data;
  const vat21 = (await api("GET", "/api/v1/vat-rates")).body.data.find((r: { rate: string }) => r.rate === "21.00").id;
  // the run's date is tomorrow: a template that finalizes fails (an issue date not begun), a draft-only one generates its draft
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const ids: { id: string; finalize: boolean }[] = [];
  for (const finalize of [false, true, false, true, false]) {
    const r = await api("POST", "/api/v1/recurring-invoices", {
      customer_id: customer.id,
      lines: [{ description: "Hosting", quantity: "1", unit_price: "100.00", vat_rate_id: vat21 }],
      interval: "monthly",
      start_date: tomorrow,
      auto_finalize: finalize,
    });
    expect(r.status, r.text).toBe(201);
    ids.push({ id: r.body.data.id, finalize });
  }
  const report = await runRecurring(env.db, { date: tomorrow, orgId: org.id, batchSize: 2 });
  // one period each (the next starts a month later): the three draft-only templates, once each
  expect(report.generated.map((g) => g.recurring_invoice_id).sort()).toEqual(ids.filter((t) => !t.finalize).map((t) => t.id).sort());
  for (const g of report.generated) expect([g.period_start, g.issue_date, g.status]).toEqual([tomorrow, tomorrow, "draft"]);
  expect(report.failed.map((f) => f.recurring_invoice_id).sort()).toEqual(ids.filter((t) => t.finalize).map((t) => t.id).sort());
  // a second run generates nothing new and reports the two again
  const again = await runRecurring(env.db, { date: tomorrow, orgId: org.id, batchSize: 1 });
  expect(again.generated).toEqual([]);
  expect(again.failed).toHaveLength(2);
});

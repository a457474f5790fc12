/**
 * The sending routes over HTTP (POST /invoices/{id}/send, GET /invoices/{id}/deliveries): every
 * 4xx the served document lists for them, provoked and checked (status, code, the field named),
 * and that a refused send queues nothing. What the channels answer (accepted, retried, failed)
 * is tests/sending/email.test.ts and peppol.test.ts.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createTestEnv } from "../helpers.ts";
import { refusalsOf, UNKNOWN_ID } from "../refusals.ts";

// a server transport, so that an e-mail send is accepted for queuing (nothing is sent: no worker runs here)
const env = await createTestEnv({ KONTOR_SMTP_URL: "smtp://127.0.0.1:9", KONTOR_MAIL_FROM: "invoices@kontor.test" });
const SEND = { method: "POST", path: "/api/v1/invoices/{id}/send" };
const DELIVERIES = { method: "GET", path: "/api/v1/invoices/{id}/deliveries" };
const refusals = refusalsOf(env, [SEND, DELIVERIES]);
afterAll(() => {
  refusals.close();
  env.close();
});

async function books(name: string) {
  const { token } = await env.newOrg(name, { country: "BE", currency: "EUR" });
  const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
  const call = async (method: string, path: string, body?: unknown, status = 200) => {
    const r = await api(method, path, body);
    expect(r.status, `${method} ${path}: ${r.text.slice(0, 300)}`).toBe(status);
    return r.body?.data;
  };
  const customer = async (fields: Record<string, unknown> = {}) =>
    call("POST", "/api/v1/customers", { name: "Klant BV", country: "BE", address: "Markt 1", city: "Brugge", postal_code: "8000", ...fields }, 201);
  const draft = async (customerId: string) =>
    call("POST", "/api/v1/invoices", { customer_id: customerId, issue_date: "2026-03-02", lines: [{ description: "Work", quantity: "1", unit_price: "100.00" }] }, 201);
  const invoice = async (customerId: string) => call("POST", `/api/v1/invoices/${(await draft(customerId)).id}/finalize`);
  const deliveries = async (id: string) => call("GET", `/api/v1/invoices/${id}/deliveries`);
  return { token, api, call, customer, draft, invoice, deliveries };
}

describe("POST /invoices/{id}/send", () => {
  test("404: an unknown document, another organisation's", async () => {
    const b = await books("Send 404 BV");
    const inv = await b.invoice((await b.customer({ email: "ap@klant.test" })).id);
    refusals.refused(SEND, await b.api("POST", `/api/v1/invoices/${UNKNOWN_ID}/send`, { channel: "email" }), 404);
    refusals.refused(SEND, await env.api("POST", `/api/v1/invoices/${inv.id}/send`, { channel: "email" }), 404);
    expect(await b.deliveries(inv.id)).toEqual([]);
    await refusals.shared(SEND, `/api/v1/invoices/${inv.id}/send`, { channel: "email" });
  });

  test("409: a draft and a cancelled invoice, by any channel, naming the state; nothing queued, nothing marked", async () => {
    const b = await books("Send 409 BV");
    const c = await b.customer({ email: "ap@klant.test" });
    const draft = await b.draft(c.id);
    for (const body of [{ channel: "email" }, {}]) refusals.refused(SEND, await b.api("POST", `/api/v1/invoices/${draft.id}/send`, body), 409, "draft");
    const cancelled = await b.invoice(c.id);
    await b.call("POST", `/api/v1/invoices/${cancelled.id}/cancel`);
    refusals.refused(SEND, await b.api("POST", `/api/v1/invoices/${cancelled.id}/send`, { channel: "email" }), 409, "cancelled");
    for (const id of [draft.id, cancelled.id]) {
      expect(await b.deliveries(id)).toEqual([]);
      expect((await b.call("GET", `/api/v1/invoices/${id}`)).sent_at).toBeNull();
    }
  });

  test("422: no address (to), Peppol without the buyer's peppol_id (channel), an unknown channel, a malformed address, an address without a channel", async () => {
    const b = await books("Send 422 BV");
    const noMail = await b.invoice((await b.customer()).id);
    const send = (body: unknown) => b.api("POST", `/api/v1/invoices/${noMail.id}/send`, body);
    refusals.refused(SEND, await send({ channel: "email" }), 422, "to");
    const peppol = await send({ channel: "peppol" });
    refusals.refused(SEND, peppol, 422, "channel");
    expect(peppol.body.errors.channel[0]).toContain("peppol_id");
    refusals.refused(SEND, await send({ channel: "fax" }), 422, "channel");
    refusals.refused(SEND, await send({ channel: "email", to: ["not an address"] }), 422, "to.0");
    refusals.refused(SEND, await send({ to: ["ap@klant.test"] }), 422, "to");
    // nothing queued, the invoice not marked sent
    expect(await b.deliveries(noMail.id)).toEqual([]);
    expect((await b.call("GET", `/api/v1/invoices/${noMail.id}`)).status).toBe("finalized");
    // and the same invoice with an address given: queued (202)
    const queued = await send({ channel: "email", to: ["ap@klant.test"] });
    expect(queued.status, queued.text).toBe(202);
    expect(queued.body.data.status).toBe("pending");
  });

  test("the same Idempotency-Key twice at once: one delivery queued, the second answer a replay", async () => {
    const b = await books("Send twice BV");
    const inv = await b.invoice((await b.customer({ email: "ap@klant.test" })).id);
    const send = () => env.request("POST", `/api/v1/invoices/${inv.id}/send`, { body: { channel: "email" }, token: b.token, headers: { "idempotency-key": "send-1" } });
    const [first, second] = await Promise.all([send(), send()]);
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(second.body.data.id).toBe(first.body.data.id);
    expect(await b.deliveries(inv.id)).toHaveLength(1);
  });
});

describe("GET /invoices/{id}/deliveries", () => {
  test("404: an unknown document, another organisation's; 422 naming the query parameter", async () => {
    const b = await books("Deliveries BV");
    const inv = await b.invoice((await b.customer({ email: "ap@klant.test" })).id);
    refusals.refused(DELIVERIES, await b.api("GET", `/api/v1/invoices/${UNKNOWN_ID}/deliveries`), 404);
    refusals.refused(DELIVERIES, await env.api("GET", `/api/v1/invoices/${inv.id}/deliveries`), 404);
    refusals.refused(DELIVERIES, await b.api("GET", `/api/v1/invoices/${inv.id}/deliveries?sort=channel`), 422, "sort");
    refusals.refused(DELIVERIES, await b.api("GET", `/api/v1/invoices/${inv.id}/deliveries?page[size]=0`), 422, "page.size");
    await refusals.shared(DELIVERIES, `/api/v1/invoices/${inv.id}/deliveries`);
  });
});

test("every 4xx the document lists for sending was provoked", async () => {
  await refusals.expectEveryRefusalProvoked();
});

/** Customers (api-spec 2.1, 4.4), contact persons (contract 3) and tenant isolation. */
import { afterAll, describe, expect, test } from "bun:test";
import { createTestEnv } from "../helpers.ts";
import { customers, invoices, webhookDeliveries } from "../../db/schema.ts";
import { asc, eq } from "drizzle-orm";
import { newId, nowIso } from "../../server/lib/time.ts";
import { firstRow } from "../../db/client.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const full = {
  name: "Brouwerij De Koninck NV",
  email: "billing@dekoninck.be",
  phone: "+32 3 218 40 48",
  address: "Mechelsesteenweg 291",
  city: "Antwerpen",
  postal_code: "2018",
  country: "BE",
  vat_number: "BE0417497106",
  currency: "EUR",
  payment_terms: "30 days net",
  peppol_id: "0208:0404795549",
  language: "nl",
};

async function customer(body: Record<string, unknown> = { name: `C ${Math.random()}` }) {
  const r = await env.api("POST", "/api/v1/customers", body);
  expect(r.status).toBe(201);
  return r.body.data;
}

describe("customer fields", () => {
  test("create with every field; type derived from vat_number; Location", async () => {
    const r = await env.api("POST", "/api/v1/customers", full);
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ ...full, type: "organization", contact_persons: [] });
    expect(r.headers.get("location")).toBe(`/api/v1/customers/${r.body.data.id}`);
    const shown = await env.api("GET", `/api/v1/customers/${r.body.data.id}`);
    expect(shown.body.data).toEqual(r.body.data);
  });

  test("only a name: an individual, other fields null", async () => {
    const c = await customer({ name: "Jan Peeters" });
    expect(c.type).toBe("individual");
    for (const f of ["email", "phone", "address", "city", "postal_code", "country", "vat_number", "currency", "payment_terms", "peppol_id", "language"]) expect(c[f]).toBeNull();
  });

  test("every field rule of api-spec 4.4", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, "name"],
      [{ name: "" }, "name"],
      [{ name: "   " }, "name"],
      [{ name: "x".repeat(256) }, "name"],
      [{ name: 42 }, "name"],
      [{ name: "x", email: "not-an-email" }, "email"],
      [{ name: "x", phone: "1".repeat(51) }, "phone"],
      [{ name: "x", address: "a".repeat(501) }, "address"],
      [{ name: "x", city: "c".repeat(101) }, "city"],
      [{ name: "x", postal_code: "12345678901" }, "postal_code"],
      [{ name: "x", country: "XX" }, "country"],
      [{ name: "x", country: "be" }, "country"],
      [{ name: "x", country: "BEL" }, "country"],
      [{ name: "x", vat_number: "v".repeat(51) }, "vat_number"],
      [{ name: "x", currency: "EURO" }, "currency"],
      [{ name: "x", currency: "XYZ" }, "currency"],
      [{ name: "x", payment_terms: "p".repeat(256) }, "payment_terms"],
      [{ name: "x", peppol_id: "0208" }, "peppol_id"],
      [{ name: "x", peppol_id: "208:0123456749" }, "peppol_id"],
      [{ name: "x", peppol_id: "1234:0123456749" }, "peppol_id"],
      [{ name: "x", peppol_id: "0208:0123456748" }, "peppol_id"],
      [{ name: "x", peppol_id: "9925:BE 0123456749" }, "peppol_id"],
      [{ name: "x", peppol_id: `0088:${"1".repeat(61)}` }, "peppol_id"],
      [{ name: "x", language: "es" }, "language"],
      [{ name: "x", language: "NL" }, "language"],
      [{ name: "x", contact_persons: [] }, "contact_persons"],
    ];
    for (const [body, field] of cases) {
      const r = await env.api("POST", "/api/v1/customers", body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(Object.keys(r.body.errors), JSON.stringify(body).slice(0, 80)).toEqual([field]);
    }
    // the limits themselves are accepted
    const edge = await env.api("POST", "/api/v1/customers", { name: "x".repeat(255), phone: "1".repeat(50), postal_code: "1234567890", city: "c".repeat(100) });
    expect(edge.status).toBe(201);
  });

  test("peppol_id: any scheme of the Peppol EAS list; language en, nl, fr, de; both can be cleared", async () => {
    for (const peppol_id of ["0208:0123456749", "9925:BE0123456749", "0088:5412345000013", "0106:12345678", "0190:00000000000000000001", "9930:DE811363057", "9944:NL806753742B01"]) {
      const c = await customer({ name: `Peppol ${peppol_id}`, peppol_id });
      expect(c.peppol_id).toBe(peppol_id);
    }
    const c = await customer({ name: "Languages", peppol_id: "0208:0123456749", language: "fr" });
    expect(c.language).toBe("fr");
    for (const language of ["en", "nl", "fr", "de"]) {
      const r = await env.api("PUT", `/api/v1/customers/${c.id}`, { language });
      expect(r.status, r.text).toBe(200);
      expect(r.body.data.language).toBe(language);
    }
    const cleared = await env.api("PUT", `/api/v1/customers/${c.id}`, { language: null, peppol_id: null });
    expect(cleared.body.data).toMatchObject({ language: null, peppol_id: null });
    const bad = await env.api("PUT", `/api/v1/customers/${c.id}`, { peppol_id: "0208:0123456748" });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.peppol_id[0]).toContain("Peppol EAS");
  });

    test("update: partial, name optional but not empty, type follows vat_number", async () => {
    const c = await customer({ name: "Before", vat_number: "BE0428759497" });
    expect(c.type).toBe("organization");
    const r = await env.api("PUT", `/api/v1/customers/${c.id}`, { vat_number: null, city: "Gent" });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name: "Before", vat_number: null, city: "Gent", type: "individual" });
    expect(r.body.data.updated_at > c.updated_at).toBe(true);
    expect((await env.api("PUT", `/api/v1/customers/${c.id}`, { name: "" })).status).toBe(422);
    expect((await env.api("PUT", `/api/v1/customers/${c.id}`, { type: "organization" })).status).toBe(422);
  });

  test("delete: 204, then 404; 409 while it has invoices", async () => {
    const c = await customer();
    expect((await env.api("DELETE", `/api/v1/customers/${c.id}`)).status).toBe(204);
    expect((await env.api("GET", `/api/v1/customers/${c.id}`)).status).toBe(404);
    expect((await env.api("DELETE", `/api/v1/customers/${c.id}`)).status).toBe(404);

    const billed = await customer();
    const now = nowIso();
    await env.db
      .insert(invoices)
      .values({
        id: newId(),
        organizationId: env.org.id,
        customerId: billed.id,
        number: `T-${billed.id}`,
        type: "invoice",
        status: "draft",
        issueDate: "2026-01-01",
        dueDate: "2026-01-31",
        currency: "EUR",
        subtotalCents: 0,
        vatCents: 0,
        totalCents: 0,
        paidCents: 0,
        createdAt: now,
        updatedAt: now,
      } as typeof invoices.$inferInsert);
    const r = await env.api("DELETE", `/api/v1/customers/${billed.id}`);
    expect(r.status).toBe(409);
    expect(r.body.message).toContain("invoice");
    expect(await firstRow(env.db.select().from(customers).where(eq(customers.id, billed.id)))).toBeDefined();
  });
});

describe("contact persons", () => {
  test("create, full_name, list, update, delete", async () => {
    const c = await customer();
    const r = await env.api("POST", `/api/v1/customers/${c.id}/contact-persons`, { first_name: "Els", last_name: "Janssens", email: "els@x.be", position: "CFO" });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ first_name: "Els", last_name: "Janssens", full_name: "Els Janssens", is_primary: false, notes: null });
    expect(r.headers.get("location")).toBe(`/api/v1/customers/${c.id}/contact-persons/${r.body.data.id}`);
    const cp = r.body.data;

    const list = await env.api("GET", `/api/v1/customers/${c.id}/contact-persons`);
    expect(list.body.data.map((p: any) => p.id)).toEqual([cp.id]);
    expect((await env.api("GET", `/api/v1/customers/${c.id}`)).body.data.contact_persons.map((p: any) => p.id)).toEqual([cp.id]);

    const updated = await env.api("PUT", `/api/v1/customers/${c.id}/contact-persons/${cp.id}`, { last_name: "Peeters" });
    expect(updated.body.data.full_name).toBe("Els Peeters");
    expect((await env.api("PUT", `/api/v1/customers/${c.id}/contact-persons/${cp.id}`, { full_name: "x" })).status).toBe(422);

    expect((await env.api("DELETE", `/api/v1/customers/${c.id}/contact-persons/${cp.id}`)).status).toBe(204);
    expect((await env.api("GET", `/api/v1/customers/${c.id}/contact-persons`)).body.data).toEqual([]);
  });

  test("the contact persons of a customer are a list like every other: {data, links, meta} with the list parameters", async () => {
    const c = await customer();
    const ids: string[] = [];
    for (const name of ["One", "Two", "Three"]) {
      ids.push((await env.api("POST", `/api/v1/customers/${c.id}/contact-persons`, { first_name: name, last_name: "P" })).body.data.id);
    }
    const page = await env.api("GET", `/api/v1/customers/${c.id}/contact-persons?per_page=2&page=2`);
    expect(page.status).toBe(200);
    expect(page.body.data.map((p: any) => p.id)).toEqual([ids[2]]);
    expect(page.body.meta).toMatchObject({ current_page: 2, per_page: 2, total: 3, last_page: 2 });
    expect(page.body.links.prev).toContain(`/api/v1/customers/${c.id}/contact-persons?per_page=2&page=1`);
    const newest = await env.api("GET", `/api/v1/customers/${c.id}/contact-persons?sort=-created_at`);
    expect(newest.body.data.map((p: any) => p.id)).toEqual([...ids].reverse());
    expect((await env.api("GET", `/api/v1/customers/${c.id}/contact-persons?sort=name`)).body.errors).toHaveProperty("sort");
    const later = await env.api("GET", `/api/v1/customers/${c.id}/contact-persons?filter[updated_since]=2999-01-01T00:00:00Z`);
    expect(later.body.data).toEqual([]);
  });

  test("at most one primary: setting one clears the others", async () => {
    const c = await customer();
    const a = (await env.api("POST", `/api/v1/customers/${c.id}/contact-persons`, { first_name: "A", last_name: "A", is_primary: true })).body.data;
    const b = (await env.api("POST", `/api/v1/customers/${c.id}/contact-persons`, { first_name: "B", last_name: "B", is_primary: true })).body.data;
    let list = (await env.api("GET", `/api/v1/customers/${c.id}/contact-persons`)).body.data;
    expect(list.filter((p: any) => p.is_primary).map((p: any) => p.id)).toEqual([b.id]);
    await env.api("PUT", `/api/v1/customers/${c.id}/contact-persons/${a.id}`, { is_primary: true });
    list = (await env.api("GET", `/api/v1/customers/${c.id}/contact-persons`)).body.data;
    expect(list.filter((p: any) => p.is_primary).map((p: any) => p.id)).toEqual([a.id]);
  });

  test("rules: names required, a person of another customer is a 404", async () => {
    const c = await customer();
    const other = await customer();
    expect((await env.api("POST", `/api/v1/customers/${c.id}/contact-persons`, { first_name: "Only" })).status).toBe(422);
    const p = (await env.api("POST", `/api/v1/customers/${c.id}/contact-persons`, { first_name: "A", last_name: "B" })).body.data;
    expect((await env.api("PUT", `/api/v1/customers/${other.id}/contact-persons/${p.id}`, { first_name: "X" })).status).toBe(404);
    expect((await env.api("DELETE", `/api/v1/customers/${other.id}/contact-persons/${p.id}`)).status).toBe(404);
  });
});

describe("contact persons and webhooks", () => {
  test("creating, updating and deleting a contact person queues customer.updated with the customer as it now is", async () => {
    const { token } = await env.newOrg();
    const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
    const hook = await api("POST", "/api/v1/webhooks", { url: "https://hooks.example.com/kontor", events: ["customer.updated"] });
    expect(hook.status).toBe(201);
    /** the payloads queued for the webhook, oldest first */
    const queued = async () =>
      (await env.db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.webhookId, hook.body.data.id))
        .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id)))
        .map((d) => ({ event: d.event, payload: JSON.parse(d.payload) }));
    const shown = async (id: string) => (await api("GET", `/api/v1/customers/${id}`)).body.data;

    const c = (await api("POST", "/api/v1/customers", { name: "Hooked BV" })).body.data;
    expect(await queued()).toEqual([]); // customer.created is not subscribed

    const person = (await api("POST", `/api/v1/customers/${c.id}/contact-persons`, { first_name: "Els", last_name: "Janssens", is_primary: true })).body.data;
    const afterCreate = await shown(c.id);
    expect(afterCreate.contact_persons.map((p: any) => p.id)).toEqual([person.id]);
    expect(await queued()).toEqual([{ event: "customer.updated", payload: expect.objectContaining({ event: "customer.updated", type: "customer.updated", timestamp: expect.any(String), data: afterCreate }) }]);

    expect((await api("PUT", `/api/v1/customers/${c.id}/contact-persons/${person.id}`, { last_name: "Peeters" })).status).toBe(200);
    const afterUpdate = await shown(c.id);
    expect(afterUpdate.contact_persons[0]).toMatchObject({ id: person.id, full_name: "Els Peeters", is_primary: true });
    expect(await queued()).toHaveLength(2);
    expect((await queued())[1]!.payload).toEqual(expect.objectContaining({ event: "customer.updated", type: "customer.updated", timestamp: expect.any(String), data: afterUpdate }));

    expect((await api("DELETE", `/api/v1/customers/${c.id}/contact-persons/${person.id}`)).status).toBe(204);
    const afterDelete = await shown(c.id);
    expect(afterDelete.contact_persons).toEqual([]);
    expect(await queued()).toHaveLength(3);
    expect((await queued())[2]!.payload).toEqual(expect.objectContaining({ event: "customer.updated", type: "customer.updated", timestamp: expect.any(String), data: afterDelete }));
    // each payload is frozen: the first still shows the person as created
    expect((await queued())[0]!.payload.data.contact_persons[0].full_name).toBe("Els Janssens");

    // a refused change queues nothing
    expect((await api("POST", `/api/v1/customers/${c.id}/contact-persons`, { first_name: "Only" })).status).toBe(422);
    expect((await api("DELETE", `/api/v1/customers/${c.id}/contact-persons/${person.id}`)).status).toBe(404);
    expect(await queued()).toHaveLength(3);
  });
});

describe("tenant isolation", () => {
  test("another organisation's customer is a 404 on every verb", async () => {
    const mine = await customer({ name: "Mine" });
    const person = (await env.api("POST", `/api/v1/customers/${mine.id}/contact-persons`, { first_name: "A", last_name: "B" })).body.data;
    const other = await env.newOrg("Other");
    const attempts: [string, string, unknown?][] = [
      ["GET", `/api/v1/customers/${mine.id}`],
      ["PUT", `/api/v1/customers/${mine.id}`, { name: "Stolen" }],
      ["DELETE", `/api/v1/customers/${mine.id}`],
      ["GET", `/api/v1/customers/${mine.id}/contact-persons`],
      ["POST", `/api/v1/customers/${mine.id}/contact-persons`, { first_name: "X", last_name: "Y" }],
      ["PUT", `/api/v1/customers/${mine.id}/contact-persons/${person.id}`, { first_name: "X" }],
      ["DELETE", `/api/v1/customers/${mine.id}/contact-persons/${person.id}`],
    ];
    for (const [method, path, body] of attempts) {
      const r = await env.api(method, path, body, other.token);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body).toEqual({ code: "not_found", message: "Not found." });
    }
    expect((await env.api("GET", "/api/v1/customers", undefined, other.token)).body.data).toEqual([]);
    const still = await env.api("GET", `/api/v1/customers/${mine.id}`);
    expect(still.body.data.name).toBe("Mine");
    expect(still.body.data.contact_persons).toHaveLength(1);
  });
});

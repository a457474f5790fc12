/**
 * Embedded data with a rule (docs/api.md#embedded-data): an issued document's `customer` is the
 * buyer as issued (what its PDF and e-invoice say), frozen with it, `customer.id` linking the live
 * customer; a draft's is the live customer, so a change of the customer (its fields, its contact
 * persons) is a change of each of its drafts: their `updated_at` moves and each emits
 * `invoice.updated`. The events feed and `filter[updated_since]` agree with it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { invoices } from "../../db/schema.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { createTestEnv, type TestEnv } from "../helpers.ts";
import { sqliteOnly } from "../raw-sql.ts";

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

const KLANT = { name: "Klant BV", address: "Markt 1", city: "Brugge", postal_code: "8000", country: "BE", email: "boekhouding@klant.example", metadata: { crm: "K-1" } };

/** An organisation of its own (a feed of its own), a customer with a contact person, a draft and an issued invoice of it. */
async function setUp() {
  const { token } = await env.newOrg();
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await env.api(method, path, body, token);
    expect(r.status, `${method} ${path}: ${r.text.slice(0, 300)}`).toBeLessThan(300);
    return r.body?.data;
  };
  await api("PUT", "/api/v1/organization", SELLER_IDENTITY);
  const customer = await api("POST", "/api/v1/customers", KLANT);
  const person = await api("POST", `/api/v1/customers/${customer.id}/contact-persons`, { first_name: "Els", last_name: "Janssens" });
  const other = await api("POST", "/api/v1/customers", { ...KLANT, name: "Andere Klant" });
  const invoice = (customerId: string) =>
    api("POST", "/api/v1/invoices", { customer_id: customerId, issue_date: "2026-01-05", lines: [{ description: "Work", quantity: "1", unit_price: "100.00" }] });
  const issued = await api("POST", `/api/v1/invoices/${(await invoice(customer.id)).id}/finalize`);
  const draft = await invoice(customer.id);
  const othersDraft = await invoice(other.id);
  const feed = async (resourceId: string) => {
    const r = await env.api("GET", `/api/v1/events?per_page=100&filter[resource_id]=${resourceId}`, undefined, token);
    expect(r.status).toBe(200);
    return r.body.data as { type: string; data: any }[];
  };
  const updatedSince = async (since: string) =>
    ((await api("GET", `/api/v1/invoices?per_page=100&sort=updated_at&filter[updated_since]=${encodeURIComponent(since)}`)) as { id: string }[]).map((i) => i.id);
  return { api, customer, person, issued, draft, othersDraft, feed, updatedSince };
}

/** A moment later than every timestamp written so far: timestamps are in milliseconds. */
const tick = () => Bun.sleep(5);

describe("an issued document embeds the buyer as issued", () => {
  test("a customer change after finalize leaves it as issued: its customer, its updated_at and its events; customer.id links the live one", async () => {
    const { api, customer, issued, feed, updatedSince } = await setUp();
    // at finalize the customer embedded is the customer as it was, its party fields the buyer's
    expect(issued.customer).toEqual(await api("GET", `/api/v1/customers/${customer.id}`));
    expect(issued.customer.name).toBe(issued.buyer.name);
    const eventsBefore = (await feed(issued.id)).length;
    await tick();
    const since = new Date().toISOString();
    await tick();

    await api("PUT", `/api/v1/customers/${customer.id}`, { name: "Klant Renamed BV", address: "Nieuwstraat 9", metadata: { crm: "K-2" } });
    await api("POST", `/api/v1/customers/${customer.id}/contact-persons`, { first_name: "Jan", last_name: "Peeters" });

    const shown = await api("GET", `/api/v1/invoices/${issued.id}`);
    expect(shown.customer).toEqual(issued.customer);
    expect(shown.customer).toMatchObject({ id: customer.id, name: "Klant BV", address: "Markt 1", metadata: { crm: "K-1" } });
    expect(shown.customer.contact_persons.map((p: { full_name: string }) => p.full_name)).toEqual(["Els Janssens"]);
    expect(shown.updated_at).toBe(issued.updated_at);
    // the list shows it so too
    const listed = ((await api("GET", "/api/v1/invoices?per_page=100")) as { id: string; customer: unknown }[]).find((i) => i.id === issued.id)!;
    expect(listed.customer).toEqual(issued.customer);
    // nothing to sync: no event, not in updated_since
    expect((await feed(issued.id)).length).toBe(eventsBefore);
    expect(await updatedSince(since)).not.toContain(issued.id);
    // the live customer, which customer.id links, has the change
    expect(await api("GET", `/api/v1/customers/${shown.customer.id}`)).toMatchObject({ name: "Klant Renamed BV", metadata: { crm: "K-2" } });
  });
});

describe("a draft embeds the live customer, and follows its changes", () => {
  test("PUT /customers/{id}: each of its drafts emits invoice.updated with the customer as it now is and moves its updated_at; other customers' drafts do not", async () => {
    const { api, customer, draft, othersDraft, issued, feed, updatedSince } = await setUp();
    await tick();
    const since = new Date().toISOString();
    await tick();
    const updated = await api("PUT", `/api/v1/customers/${customer.id}`, { name: "Klant Renamed BV" });

    const shown = await api("GET", `/api/v1/invoices/${draft.id}`);
    expect(shown.customer).toEqual(updated);
    expect(shown.updated_at > draft.updated_at).toBe(true);
    expect(shown.updated_at >= since).toBe(true);
    const events = await feed(draft.id);
    expect(events.map((e) => e.type)).toEqual(["invoice.created", "invoice.updated"]);
    const { readiness: _readiness, ...payload } = shown;
    expect(events[1]!.data).toEqual(payload);

    // filter[updated_since] and the feed agree: the draft is in both, the issued invoice and the other customer's draft in neither
    const changed = await updatedSince(since);
    expect(changed).toContain(draft.id);
    expect(changed).not.toContain(issued.id);
    expect(changed).not.toContain(othersDraft.id);
    expect((await feed(othersDraft.id)).map((e) => e.type)).toEqual(["invoice.created"]);
    expect((await api("GET", `/api/v1/invoices/${othersDraft.id}`)).updated_at).toBe(othersDraft.updated_at);
  });

  test("contact persons: each change moves the customer's updated_at, emits customer.updated and its drafts' invoice.updated", async () => {
    const { api, customer, person, draft, feed } = await setUp();
    const steps: [string, string, unknown, string[]][] = [
      ["POST", `/api/v1/customers/${customer.id}/contact-persons`, { first_name: "Jan", last_name: "Peeters" }, ["Els Janssens", "Jan Peeters"]],
      ["PUT", `/api/v1/customers/${customer.id}/contact-persons/${person.id}`, { first_name: "Elise" }, ["Elise Janssens", "Jan Peeters"]],
      ["DELETE", `/api/v1/customers/${customer.id}/contact-persons/${person.id}`, undefined, ["Jan Peeters"]],
    ];
    // setUp's contact person made one already
    const updatesBefore = (await feed(customer.id)).filter((e) => e.type === "customer.updated").length;
    let customerAt = customer.updated_at as string;
    let draftAt = draft.updated_at as string;
    for (const [i, [method, path, body, names]] of steps.entries()) {
      await tick();
      await api(method, path, body);
      const live = await api("GET", `/api/v1/customers/${customer.id}`);
      expect(live.updated_at > customerAt, path).toBe(true);
      customerAt = live.updated_at;
      const shown = await api("GET", `/api/v1/invoices/${draft.id}`);
      expect(shown.customer.contact_persons.map((p: { full_name: string }) => p.full_name)).toEqual(names);
      expect(shown.customer).toEqual(live);
      expect(shown.updated_at > draftAt, path).toBe(true);
      draftAt = shown.updated_at;
      // one customer.updated and one invoice.updated per change
      expect((await feed(customer.id)).filter((e) => e.type === "customer.updated").length).toBe(updatesBefore + i + 1);
      const draftEvents = (await feed(draft.id)).filter((e) => e.type === "invoice.updated");
      expect(draftEvents.length).toBe(i + 1);
      expect(draftEvents.at(-1)!.data.customer).toEqual(live);
    }
  });

  test("finalizing freezes the customer as it is then", async () => {
    const { api, customer, draft } = await setUp();
    await api("PUT", `/api/v1/customers/${customer.id}`, { city: "Gent", postal_code: "9000" });
    const issued = await api("POST", `/api/v1/invoices/${draft.id}/finalize`);
    expect(issued.customer).toMatchObject({ city: "Gent", postal_code: "9000" });
    expect(issued.buyer).toMatchObject({ city: "Gent", postal_code: "9000" });
    await api("PUT", `/api/v1/customers/${customer.id}`, { city: "Antwerpen", postal_code: "2000" });
    expect((await api("GET", `/api/v1/invoices/${draft.id}`)).customer).toEqual(issued.customer);
  });
});

/**
 * What migration 0050 does to the documents issued before it: its custom SQL, run again. SQLite's
 * own migration, in SQLite's SQL: a PostgreSQL database starts from a baseline after it, with no
 * document issued before.
 */
function upgradeIssuedCustomers() {
  const migration = readFileSync(join(import.meta.dir, "../../db/migrations/0050_issued_customer.sql"), "utf8");
  env.db.$client.exec(migration.split("-- custom")[1]!);
}

sqliteOnly.test("upgrade: a document issued before embeds its buyer as issued, the customer's other fields as at the upgrade", async () => {
  const { api, customer, issued } = await setUp();
  // as an earlier Kontor left it: the parties frozen, no customer beside them
  const forget = async () => await env.db.update(invoices).set({ issuedCustomer: null }).where(eq(invoices.id, issued.id));
  await forget();
  upgradeIssuedCustomers();
  // nothing changed since finalize: the migration builds what finalize froze, field for field
  // (its contact persons, booleans and metadata included)
  expect((await api("GET", `/api/v1/invoices/${issued.id}`)).customer).toEqual(issued.customer);

  await forget();
  await api("PUT", `/api/v1/customers/${customer.id}`, { name: "Klant Renamed BV", address: "Nieuwstraat 9", metadata: { crm: "K-2" }, reminders_paused: true });
  upgradeIssuedCustomers();
  const shown = (await api("GET", `/api/v1/invoices/${issued.id}`)).customer;
  // the buyer its PDF carries
  expect(shown).toMatchObject({ id: customer.id, name: "Klant BV", address: "Markt 1", city: "Brugge" });
  // what the documents do not carry, as the customer is at the upgrade
  expect(shown).toMatchObject({ metadata: { crm: "K-2" }, reminders_paused: true });
  // and from then on frozen
  await api("PUT", `/api/v1/customers/${customer.id}`, { metadata: { crm: "K-3" } });
  expect((await api("GET", `/api/v1/invoices/${issued.id}`)).customer).toEqual(shown);
});

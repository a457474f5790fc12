/** The organisation's identity (issue 18): GET/PUT /api/v1/organization and `kontor org set`. */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { count, eq } from "drizzle-orm";
import { webhookDeliveries } from "../../db/schema.ts";
import { bankAccountService } from "../../server/bank-accounts/service.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { createTestEnv, runCli } from "../helpers.ts";
import { firstRow } from "../../db/client.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const ORG_KEYS = [
  "address", "api_access", "chart", "city", "company_number", "contact_name", "country", "created_at", "currency", "default_bank_account_id", "einvoice_business_customers", "email",
  "first_fiscal_year_end", "first_fiscal_year_start", "fiscal_year_start",
  "id", "language", "late_compensation", "late_compensation_by_currency", "mail_reply_to", "mail_sender_name", "name", "own_smtp", "payment_instructions", "peppol_id",
  "peppol_provider", "phone", "postal_code", "prices_include_vat", "send_on_finalize", "timezone", "updated_at", "vat_number", "vat_period", "website",
  // legal mentions (docs/invoicing.md#legal-mentions)
  "check_legal_mentions", "discount_terms", "general_terms", "legal_form", "legal_kind", "managing_directors", "register_kind", "register_number", "register_place", "share_capital",
].sort();

const identity = {
  name: "Acme Consulting BV",
  address: "Kerkstraat 1",
  city: "Gent",
  postal_code: "9000",
  country: "BE",
  vat_number: "BE0123456749",
  company_number: "0123.456.749",
  email: "billing@acme.example",
  phone: "+32 9 123 45 67",
  website: "https://acme.example",
  peppol_id: "0208:0123456749",
  language: "nl",
};

describe("GET /api/v1/organization", () => {
  test("the caller's organisation; one created with --iban has that account as default, payment instructions, and English", async () => {
    const r = await env.api("GET", "/api/v1/organization");
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.body)).toEqual(["data"]);
    expect(Object.keys(r.body.data).sort()).toEqual(ORG_KEYS);
    const banks = (await env.api("GET", "/api/v1/bank-accounts")).body.data;
    expect(r.body.data).toMatchObject({
      id: env.org.id,
      name: "Acme",
      currency: "EUR",
      country: "BE",
      language: "en",
      api_access: true,
      address: null,
      vat_number: null,
      peppol_id: null,
      default_bank_account_id: banks[0].id,
      payment_instructions: true,
      // the settings are off until the organisation chooses them
      prices_include_vat: false,
      einvoice_business_customers: false,
      // nothing is sent at finalize, e-mails go through the server's transport under the organisation's name
      send_on_finalize: null,
      own_smtp: false,
      mail_sender_name: null,
    });
    expect(banks.map((b: any) => b.iban)).toEqual(["BE71096123456769"]);
  });

  test("an organisation created without a bank account has none and says its documents carry no payment instructions", async () => {
    const bare = await env.newOrg("No Bank BV", { iban: null });
    const r = await env.api("GET", "/api/v1/organization", undefined, bare.token);
    expect(r.body.data).toMatchObject({ default_bank_account_id: null, payment_instructions: false });
    expect((await env.api("GET", "/api/v1/bank-accounts", undefined, bare.token)).body.data).toEqual([]);
    // an account of its own, added from the CLI, gives them
    await bankAccountService.add({ db: env.db, org: bare.org, actor: CLI_ACTOR }, { name: "Current account", iban: "BE68 5390 0754 7034" });
    expect((await env.api("GET", "/api/v1/organization", undefined, bare.token)).body.data.payment_instructions).toBe(true);
  });

  test("another organisation sees its own", async () => {
    const other = await env.newOrg("Other Identity GmbH", { country: "DE" });
    const r = await env.api("GET", "/api/v1/organization", undefined, other.token);
    expect(r.body.data).toMatchObject({ id: other.org.id, name: "Other Identity GmbH", country: "DE" });
  });

  test("abilities: organization.view to read, organization.edit to change", async () => {
    const all = (await env.api("GET", "/api/v1/meta/abilities")).body.data as string[];
    const noView = await env.api("GET", "/api/v1/organization", undefined, await env.orgToken(all.filter((a) => a !== "organization.view")));
    expect(noView.status).toBe(403);
    expect(noView.body.message).toContain("organization.view");
    expect((await env.api("GET", "/api/v1/organization", undefined, await env.orgToken(["organization.view"]))).status).toBe(200);
    const viewOnly = await env.api("PUT", "/api/v1/organization", { city: "Brugge" }, await env.orgToken(["organization.view"]));
    expect(viewOnly.status).toBe(403);
    expect(viewOnly.body.message).toContain("organization.edit");
    // an accountant may not change the organisation; an admin may
    const accountant = await env.userToken("accountant", ["organization.view", "organization.edit"]);
    expect((await env.api("PUT", "/api/v1/organization", { city: "Brugge" }, accountant.token)).status).toBe(403);
    const admin = await env.userToken("admin", ["organization.edit"]);
    expect((await env.api("PUT", "/api/v1/organization", { city: "Brugge" }, admin.token)).status).toBe(200);
  });
});

describe("PUT /api/v1/organization", () => {
  test("every field: 200 with the organisation, shown again by GET; audited, no webhook event", async () => {
    const hook = await env.api("POST", "/api/v1/webhooks", { url: "https://hooks.example.com/org", events: ["customer.created", "invoice.updated"] });
    expect(hook.status).toBe(201);
    const r = await env.api("PUT", "/api/v1/organization", identity);
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject(identity);
    expect(r.body.data.currency).toBe("EUR");
    expect((await env.api("GET", "/api/v1/organization")).body.data).toEqual(r.body.data);
    const audit = await env.api("GET", `/api/v1/audit-log?filter[resource_type]=organization&filter[action]=organization.updated`);
    expect(audit.body.data[0]).toMatchObject({ action: "organization.updated", resource_type: "organization", resource_id: env.org.id });
    const queued = (await firstRow(env.db.select({ n: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.body.data.id))))!.n;
    expect(queued).toBe(0);
  });

  test("partial: fields not sent keep their values; nullable fields can be cleared; email lower-cased", async () => {
    await env.api("PUT", "/api/v1/organization", identity);
    const r = await env.api("PUT", "/api/v1/organization", { website: null, phone: null, email: "Billing@ACME.example" });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({ ...identity, website: null, phone: null, email: "billing@acme.example" });
  });

  test("read-only and unknown fields are a 422 naming them", async () => {
    for (const field of ["currency", "api_access", "chart", "id", "created_at", "vat"]) {
      const r = await env.api("PUT", "/api/v1/organization", { [field]: field === "api_access" ? false : "EUR" });
      expect(r.status, field).toBe(422);
      expect(Object.keys(r.body.errors), field).toEqual([field]);
    }
    expect((await env.api("GET", "/api/v1/organization")).body.data.currency).toBe("EUR");
  });

  test("field rules", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "" }, "name"],
      [{ name: "   " }, "name"],
      [{ name: null }, "name"],
      [{ name: "x".repeat(256) }, "name"],
      [{ address: "a".repeat(501) }, "address"],
      [{ city: "c".repeat(101) }, "city"],
      [{ postal_code: "12345678901" }, "postal_code"],
      [{ country: "XX" }, "country"],
      [{ country: null }, "country"],
      [{ vat_number: "v".repeat(51) }, "vat_number"],
      [{ company_number: "c".repeat(51) }, "company_number"],
      [{ email: "nope" }, "email"],
      [{ phone: "1".repeat(51) }, "phone"],
      [{ website: "w".repeat(256) }, "website"],
      [{ peppol_id: "0208:0123456748" }, "peppol_id"],
      [{ peppol_id: "0000:0123456749" }, "peppol_id"],
      [{ peppol_id: "0208 0123456749" }, "peppol_id"],
      [{ peppol_id: "9925:" }, "peppol_id"],
      [{ language: "es" }, "language"],
      [{ language: null }, "language"],
      [{ default_bank_account_id: "not-a-uuid" }, "default_bank_account_id"],
      [{ prices_include_vat: "yes" }, "prices_include_vat"],
      [{ prices_include_vat: null }, "prices_include_vat"],
      [{ einvoice_business_customers: 1 }, "einvoice_business_customers"],
      [{ einvoice_business_customers: null }, "einvoice_business_customers"],
      [{ default_bank_account_id: "01a20ab4-b788-7438-938e-dd2796487838" }, "default_bank_account_id"],
    ];
    const before = (await env.api("GET", "/api/v1/organization")).body.data;
    for (const [body, field] of cases) {
      const r = await env.api("PUT", "/api/v1/organization", body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(r.body.errors), JSON.stringify(body)).toEqual([field]);
    }
    expect((await env.api("GET", "/api/v1/organization")).body.data).toEqual(before);
    // Peppol ids of other schemes are accepted as they are given
    for (const peppol_id of ["9925:BE0123456749", "0088:5412345000013", "0106:12345678", "9930:DE811363057", "9944:NL806753742B01", "0190:00000000000000000001"]) {
      const r = await env.api("PUT", "/api/v1/organization", { peppol_id });
      expect(r.status, peppol_id).toBe(200);
      expect(r.body.data.peppol_id).toBe(peppol_id);
    }
  });

  test("the settings prices_include_vat and einvoice_business_customers: set, kept when not sent, each change audited", async () => {
    const org = await env.newOrg("Settings BV");
    const on = await env.api("PUT", "/api/v1/organization", { einvoice_business_customers: true, prices_include_vat: true }, org.token);
    expect(on.status, on.text).toBe(200);
    expect(on.body.data).toMatchObject({ einvoice_business_customers: true, prices_include_vat: true, name: "Settings BV" });
    const other = await env.api("PUT", "/api/v1/organization", { city: "Gent" }, org.token);
    expect(other.body.data).toMatchObject({ einvoice_business_customers: true, prices_include_vat: true, city: "Gent" });
    const off = await env.api("PUT", "/api/v1/organization", { prices_include_vat: false }, org.token);
    expect(off.body.data).toMatchObject({ einvoice_business_customers: true, prices_include_vat: false });
    expect((await env.api("GET", "/api/v1/organization", undefined, org.token)).body.data).toEqual(off.body.data);
    const audit = await env.api("GET", "/api/v1/audit-log?filter[resource_type]=organization&filter[action]=organization.updated", undefined, org.token);
    expect(audit.body.data.length).toBe(3);
  });

  test("default_bank_account_id: an active account of the organisation, else 422; null clears it", async () => {
    const added = await bankAccountService.add({ db: env.db, org: env.org, actor: CLI_ACTOR }, { name: "Savings", iban: "BE68 5390 0754 7034" });
    const r = await env.api("PUT", "/api/v1/organization", { default_bank_account_id: added.id });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.default_bank_account_id).toBe(added.id);
    const other = await env.newOrg("Foreign Bank Org");
    const foreign = (await env.api("GET", "/api/v1/bank-accounts", undefined, other.token)).body.data[0];
    const refused = await env.api("PUT", "/api/v1/organization", { default_bank_account_id: foreign.id });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(["default_bank_account_id"]);
    const cleared = await env.api("PUT", "/api/v1/organization", { default_bank_account_id: null });
    expect(cleared.body.data.default_bank_account_id).toBeNull();
  });
});

describe("kontor org set", () => {
  test("sets the identity with the service's rules; --json prints the organisation; \"\" clears a field", async () => {
    const db = join(env.dir, "cli.db");
    const cli = (...args: string[]) => runCli([...args, "--db", db]);
    expect((await cli("org", "create", "--name", "CLI Identity", "--country", "NL", "--json")).code).toBe(0);
    const set = await cli(
      "org", "set", "CLI Identity", "--address", "Keizersgracht 1", "--city", "Amsterdam", "--postal-code", "1015 CJ",
      "--vat-number", "NL806753742B01", "--company-number", "12345678", "--peppol-id", "9944:NL806753742B01", "--language", "nl",
      "--email", "hello@cli.example", "--website", "https://cli.example", "--json",
    );
    expect(set.code, set.stderr).toBe(0);
    const shown = JSON.parse(set.stdout);
    expect(Object.keys(shown).sort()).toEqual(ORG_KEYS);
    expect(shown).toMatchObject({
      name: "CLI Identity",
      address: "Keizersgracht 1",
      city: "Amsterdam",
      postal_code: "1015 CJ",
      country: "NL",
      vat_number: "NL806753742B01",
      company_number: "12345678",
      peppol_id: "9944:NL806753742B01",
      language: "nl",
      currency: "EUR",
    });
    const cleared = await cli("org", "set", "CLI Identity", "--website", "", "--json");
    expect(JSON.parse(cleared.stdout).website).toBeNull();
    const bad = await cli("org", "set", "CLI Identity", "--peppol-id", "1234:nope");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("Peppol EAS");
    expect((await cli("org", "set", "CLI Identity", "--language", "es")).code).toBe(2);
    // the settings: on or off
    const on = await cli("org", "set", "CLI Identity", "--einvoice-business-customers", "on", "--prices-include-vat", "on", "--json");
    expect(on.code, on.stderr).toBe(0);
    expect(JSON.parse(on.stdout)).toMatchObject({ einvoice_business_customers: true, prices_include_vat: true });
    const off = await cli("org", "set", "CLI Identity", "--prices-include-vat", "off", "--json");
    expect(JSON.parse(off.stdout)).toMatchObject({ einvoice_business_customers: true, prices_include_vat: false });
    expect((await cli("org", "set", "CLI Identity", "--einvoice-business-customers", "yes")).code).toBe(2);
  });
});

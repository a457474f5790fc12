/**
 * The legal mentions of a seller's documents (server/documents/legal-mentions.ts,
 * docs/invoicing.md#legal-mentions): the table row by row, finalize's refusal per country of what
 * the organisation lacks (only when it checks its mentions), the mentions on the PDF in the
 * document's language (pdftotext), and the first start's Default organisation never refused.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bootstrapIfEmpty } from "../../server/bootstrap.ts";
import { LEGAL_MENTIONS, legalMentionLines, missingLegalMentions, mentionRow } from "../../server/documents/legal-mentions.ts";
import type { DocumentParty } from "../../server/documents/model.ts";
import { openDatabase } from "../../db/client.ts";
import { openPostgres } from "../../db/postgres/connection.ts";
import { migrateDatabase } from "../../server/data-migrations.ts";
import { createTestEnv, runCli } from "../helpers.ts";
import { freshPostgresDatabase } from "../postgres-database.ts";
import { onPostgres, rawSql } from "../raw-sql.ts";

const env = await createTestEnv();
const dir = mkdtempSync(join(tmpdir(), "kontor-mentions-"));
afterAll(async () => {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A seller with nothing but its name and country: every required field is missing. */
const bare = (country: string, kind: "company" | "sole_trader"): DocumentParty => ({
  name: "X",
  address: null,
  city: null,
  postalCode: null,
  country,
  vatNumber: null,
  companyNumber: null,
  email: null,
  phone: null,
  peppolId: null,
  legal: {
    kind,
    legalForm: null,
    shareCapital: null,
    shareCapitalCurrency: "EUR",
    registerKind: null,
    registerNumber: null,
    registerPlace: null,
    managingDirectors: null,
    generalTerms: null,
    discountTerms: null,
  },
});

// what each country's law asks, written out from the law (not read from the table)
const EXPECTED: Record<string, string[]> = {
  "BE company": ["legal_form", "address", "city", "company_number", "register_place"],
  "BE sole_trader": ["address", "city", "company_number"],
  "FR company": ["legal_form", "share_capital", "address", "city", "register_number", "register_place"],
  "FR sole_trader": ["legal_form", "address", "city", "register_number"],
  "DE company": ["legal_form", "address", "city", "register_kind", "register_number", "register_place", "managing_directors", "vat_number"],
  "DE sole_trader": ["address", "city", "vat_number"],
  "NL company": ["register_number"],
  "NL sole_trader": ["register_number"],
};

describe("the table", () => {
  test("has a row for each country and kind, and no other", () => {
    expect(LEGAL_MENTIONS.map((r) => `${r.country} ${r.kind}`).sort()).toEqual(Object.keys(EXPECTED).sort());
  });
  for (const [row, fields] of Object.entries(EXPECTED)) {
    const [country, kind] = row.split(" ") as [string, "company" | "sole_trader"];
    test(`${row}: requires ${fields.join(", ")}`, () => {
      expect(Object.keys(missingLegalMentions(bare(country, kind))).sort()).toEqual(fields.map((f) => `organization.${f}`).sort());
    });
  }
  test("French sellers carry the late-payment penalty, the €40 indemnity and the discount clause; no other country does", () => {
    for (const row of LEGAL_MENTIONS) expect(row.fixed).toEqual(row.country === "FR" ? ["PMD", "PMT", "AAB"] : []);
  });
  test("a country without a row requires nothing", () => {
    expect(mentionRow("IT", "company")).toBeNull();
    expect(missingLegalMentions(bare("IT", "company"))).toEqual({});
  });
});

const ok = async (method: string, path: string, body: unknown, token: string) => {
  const r = await env.api(method, path, body, token);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBeLessThan(300);
  return r.body?.data;
};

/** Each country's seller, complete, and its customer; the identity is set after the refusal is seen. */
const SELLERS: Record<string, { identity: Record<string, unknown>; language: string; mentions: RegExp[] }> = {
  BE: {
    identity: { address: "Kerkstraat 1", city: "Gent", postal_code: "9000", vat_number: "BE0123456749", company_number: "0123.456.749", legal_form: "BV", register_place: "Gent" },
    language: "nl",
    mentions: [/BE Seller BV/, /Zetel: Kerkstraat 1, 9000 Gent/, /RPR\/RPM Gent 0123\.456\.749/],
  },
  FR: {
    identity: {
      address: "12 rue de la Paix",
      city: "Paris",
      postal_code: "75002",
      vat_number: "FR40303265045",
      company_number: "303265045",
      legal_form: "SAS",
      share_capital: "10000.00",
      register_number: "303 265 045",
      register_place: "Paris",
    },
    language: "fr",
    mentions: [
      /FR Seller SAS, Capital social 10.000,00 €/,
      /RCS Paris 303 265 045/,
      /Pénalités de retard : taux d'intérêt appliqué par la Banque centrale européenne/,
      /Indemnité forfaitaire pour frais de recouvrement en cas de retard de paiement : 40/,
      /Pas d'escompte pour paiement anticipé\./,
    ],
  },
  DE: {
    identity: {
      address: "Marienplatz 1",
      city: "München",
      postal_code: "80331",
      vat_number: "DE129273398",
      legal_form: "GmbH",
      register_kind: "HRB",
      register_number: "123456",
      register_place: "Amtsgericht München",
      managing_directors: "Erika Mustermann, Max Mustermann",
    },
    language: "de",
    mentions: [/DE Seller GmbH/, /Sitz: Marienplatz 1, 80331 München/, /HRB 123456 \(Amtsgericht München\)/, /Geschäftsführung: Erika Mustermann, Max Mustermann/, /Leistungsdatum entspricht dem Rechnungsdatum\./],
  },
  NL: {
    identity: { address: "Damrak 1", city: "Amsterdam", postal_code: "1012 LG", register_number: "12345678" },
    language: "en",
    mentions: [/KvK 12345678/],
  },
};

const pdfText = (bytes: Uint8Array, name: string) => {
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, bytes);
  // no -layout: each mention is one run of text, wrapped lines joined by a space
  return Bun.spawnSync(["pdftotext", "-enc", "UTF-8", file, "-"]).stdout.toString().replace(/\s+/g, " ");
};

describe("the block says each thing once", () => {
  const seller = (over: Partial<DocumentParty>, legal: Record<string, unknown>): DocumentParty =>
    ({
      name: "Müller Technik GmbH", address: "Hauptstraße 5", postalCode: "10115", city: "Berlin", country: "DE", vatNumber: null, companyNumber: null, email: null, phone: null, peppolId: null,
      ...over,
      legal: { kind: "company", legalForm: "GmbH", shareCapital: null, shareCapitalCurrency: "EUR", registerKind: "HRB", registerNumber: "12345", registerPlace: "Amtsgericht Berlin", managingDirectors: null, generalTerms: null, discountTerms: null, ...legal },
    }) as DocumentParty;
  const lines = (p: DocumentParty) => legalMentionLines(p, "de", (amount) => amount);
  test("a name that ends with its legal form is not given it twice (GmbH, B.V. for BV)", () => {
    expect(lines(seller({}, {}))[0]).toBe("Müller Technik GmbH");
    expect(lines(seller({ name: "Tulp B.V.", country: "NL" }, { legalForm: "BV", registerKind: "KvK" }))[0]).toBe("Tulp B.V.");
    expect(lines(seller({ name: "Müller Technik" }, {}))[0]).toBe("Müller Technik GmbH");
    // a word that only starts like the form is not it
    expect(lines(seller({ name: "Agmbhx Werke" }, {}))[0]).toBe("Agmbhx Werke GmbH");
  });
  test("a register number written with its kind is not prefixed again", () => {
    expect(lines(seller({}, { registerNumber: "HRB 12345" }))).toContain("HRB 12345 (Amtsgericht Berlin)");
    expect(lines(seller({}, { registerNumber: "12345" }))).toContain("HRB 12345 (Amtsgericht Berlin)");
    expect(lines(seller({ country: "FR", name: "Éléphants SARL" }, { legalForm: "SARL", registerKind: "RCS", registerPlace: "Paris", registerNumber: "RCS 303 265 045" }))).toContain("RCS Paris 303 265 045");
  });
});

describe("finalize and the PDF, per seller country", () => {
  for (const [country, seller] of Object.entries(SELLERS)) {
    test(`${country}: finalize names what the organisation lacks; complete, the PDF prints its mentions in the document's language`, async () => {
      const { token } = await env.newOrg(`${country} Seller`, { country });
      // as `kontor org create` makes it: checking its mentions
      await ok("PUT", "/api/v1/organization", { check_legal_mentions: true, language: seller.language }, token);
      const customer = await ok("POST", "/api/v1/customers", { name: "Kunde", country, address: "Straat 2", city: "Stad", postal_code: "1000" }, token);
      const draft = await ok("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-02", lines: [{ description: "Work", quantity: "1", unit_price: "100.00" }] }, token);
      const refused = await env.api("POST", `/api/v1/invoices/${draft.id}/finalize`, undefined, token);
      expect(refused.status).toBe(422);
      const expected = EXPECTED[`${country} company`]!.map((f) => `organization.${f}`);
      expect(Object.keys(refused.body.errors).filter((f) => f.startsWith("organization.")).sort()).toEqual(expected.sort());
      // the draft's readiness says the same
      const shown = await ok("GET", `/api/v1/invoices/${draft.id}`, undefined, token);
      expect(shown.readiness.ready).toBe(false);
      for (const field of expected) expect(shown.readiness.problems[field]).toBeDefined();

      await ok("PUT", "/api/v1/organization", seller.identity, token);
      const issued = await ok("POST", `/api/v1/invoices/${draft.id}/finalize`, undefined, token);
      const pdf = await env.request("GET", `/api/v1/invoices/${issued.id}/pdf`, { token });
      expect(pdf.status).toBe(200);
      const text = pdfText(pdf.bytes, country);
      for (const mention of seller.mentions) expect(text).toMatch(mention);
      // a document keeps what it said: a later change of the organisation leaves it be
      await ok("PUT", "/api/v1/organization", { legal_form: "Changed", register_number: "99999999" }, token);
      const again = pdfText((await env.request("GET", `/api/v1/invoices/${issued.id}/pdf`, { token })).bytes, `${country}-again`);
      expect(again).not.toContain("Changed");
      for (const mention of seller.mentions) expect(again).toMatch(mention);
    });
  }

  test("a sole trader needs no share capital nor register where its law asks none", async () => {
    const { token } = await env.newOrg("Jean Dupont", { country: "FR" });
    await ok("PUT", "/api/v1/organization", { check_legal_mentions: true, legal_kind: "sole_trader", address: "1 rue Haute", city: "Lille", register_number: "732829320", legal_form: "EI" }, token);
    const customer = await ok("POST", "/api/v1/customers", { name: "Client", country: "FR" }, token);
    const draft = await ok("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-02", lines: [{ description: "Cours", quantity: "1", unit_price: "50.00" }] }, token);
    const issued = await ok("POST", `/api/v1/invoices/${draft.id}/finalize`, undefined, token);
    const text = pdfText((await env.request("GET", `/api/v1/invoices/${issued.id}/pdf`, { token })).bytes, "ei");
    expect(text).toContain("Jean Dupont EI");
    expect(text).toContain("No discount for early payment.");
  });

  test("an organisation that does not check its mentions is not refused", async () => {
    const { token } = await env.newOrg("Unchecked GmbH", { country: "DE" });
    const org = await ok("GET", "/api/v1/organization", undefined, token);
    expect(org.check_legal_mentions).toBe(false);
    const customer = await ok("POST", "/api/v1/customers", { name: "Kunde", country: "DE" }, token);
    const draft = await ok("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-02", lines: [{ description: "Arbeit", quantity: "1", unit_price: "10.00" }] }, token);
    await ok("POST", `/api/v1/invoices/${draft.id}/finalize`, undefined, token);
  });
});

test("the first start's Default organisation does not check its mentions", async () => {
  // an empty database: a new SQLite file, or a new PostgreSQL database
  const fresh = onPostgres ? await freshPostgresDatabase() : null;
  const db = fresh === null ? openDatabase(join(dir, "fresh.db")) : openPostgres(fresh.url);
  try {
    await migrateDatabase(db);
    const boot = (await bootstrapIfEmpty(db))!;
    const row = await rawSql(db).get("SELECT check_legal_mentions, legal_kind FROM organizations WHERE id = ?", boot.organizationId);
    expect(row).toEqual({ check_legal_mentions: 0, legal_kind: "company" });
  } finally {
    await db.connection.close();
    await fresh?.drop();
  }
});

describe("the organisation's fields", () => {
  test("PUT /organization takes them, the share capital as money in the organisation's currency; an empty text clears one", async () => {
    const { token } = await env.newOrg("Fields SAS", { country: "FR" });
    const shown = await ok(
      "PUT",
      "/api/v1/organization",
      { legal_kind: "company", legal_form: " SAS ", share_capital: 12500.5, register_kind: "RCS", register_number: "303 265 045", register_place: "Lyon", managing_directors: "Claire Durand", general_terms: "https://durand.example/cgv", discount_terms: "" },
      token,
    );
    expect(shown).toMatchObject({ legal_form: "SAS", share_capital: "12500.50", register_kind: "RCS", register_place: "Lyon", managing_directors: "Claire Durand", discount_terms: null, check_legal_mentions: false });
    const refused = await env.api("PUT", "/api/v1/organization", { share_capital: "10.001" }, token);
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(["share_capital"]);
    expect((await env.api("PUT", "/api/v1/organization", { legal_kind: "partnership" }, token)).status).toBe(422);
    expect((await ok("PUT", "/api/v1/organization", { share_capital: "0" }, token)).share_capital).toBeNull();
  });

  test("kontor org create checks the mentions and takes them; org set changes them", async () => {
    // a database of its own: a SQLite file, or a fresh PostgreSQL database
    const fresh = onPostgres ? await freshPostgresDatabase() : null;
    const engineEnv: Record<string, string> = fresh === null ? {} : { KONTOR_DATABASE_URL: fresh.url, KONTOR_SECRET_KEY_FILE: join(dir, "cli.key") };
    const db = join(dir, "cli.db");
    const cli = (...args: string[]) => runCli([...args, "--db", db], engineEnv);
    try {
      const created = await cli("org", "create", "--name", "Muster GmbH", "--country", "DE", "--legal-form", "GmbH", "--register-kind", "HRB", "--register-number", "12345", "--json");
      expect(created.code, created.stderr).toBe(0);
      const set = await cli("org", "set", "Muster GmbH", "--register-place", "Amtsgericht Köln", "--managing-directors", "Max Muster", "--legal-kind", "company", "--json");
      expect(set.code, set.stderr).toBe(0);
      expect(JSON.parse(set.stdout)).toMatchObject({
        check_legal_mentions: true,
        legal_kind: "company",
        legal_form: "GmbH",
        register_kind: "HRB",
        register_number: "12345",
        register_place: "Amtsgericht Köln",
        managing_directors: "Max Muster",
      });
      const off = await cli("org", "create", "--name", "Quiet BV", "--check-legal-mentions", "off", "--json");
      expect(off.code, off.stderr).toBe(0);
      expect(JSON.parse((await cli("org", "set", "Quiet BV", "--check-legal-mentions", "off", "--json")).stdout).check_legal_mentions).toBe(false);
      // a refused field creates nothing
      const refused = await cli("org", "create", "--name", "Broken SAS", "--country", "FR", "--share-capital", "lots");
      expect(refused.code).not.toBe(0);
      expect((await cli("org", "list", "--json")).stdout).not.toContain("Broken SAS");
    } finally {
      await fresh?.drop();
    }
  });
});

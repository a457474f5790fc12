/**
 * Reference data that cannot produce an invalid document (issue 26 item 4, contract section 3):
 * countries from EN 16931's BR-CL-14 list, currencies from BR-CL-04 without the non-currencies,
 * VAT numbers checked per country, no control or bidirectional character in a text, line breaks
 * only in multi-line fields; for customers, suppliers, the organisation, invoices and imported
 * e-invoices alike.
 *
 * The VAT numbers of tests/reference-data/stdnum-eu-vat.txt are python-stdnum's test data
 * (arthurdejong/python-stdnum, tests/test_eu_vat.doctest; Copyright (C) 2012-2023 Arthur de Jong,
 * GNU LGPL 2.1 or later): numbers found online that it accepts, and mangled ones it refuses.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestEnv, runCli } from "../helpers.ts";
import { isCountryCode, isCurrencyCode } from "../../server/lib/iso-codes.ts";
import { belgianEnterpriseNumberProblem, compactVatNumber, vatNumberProblem } from "../../server/lib/vat-numbers.ts";
import { mod97 } from "../../server/lib/mod97.ts";
const TESTS_ROOT = join(import.meta.dir, "..");

const env = await createTestEnv();
afterAll(() => env.close());

/** The sections of python-stdnum's examples: "valid", "checksum", "format", "component", "length", "duplicated-prefix". */
function stdnumExamples(): Record<string, string[]> {
  const sections: Record<string, string[]> = {};
  let section = "";
  for (const line of readFileSync(join(TESTS_ROOT, "reference-data", "stdnum-eu-vat.txt"), "utf8").split("\n")) {
    if (line.startsWith("#") || line.trim() === "") continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) sections[(section = header[1]!)] = [];
    else sections[section]!.push(line);
  }
  return sections;
}
const STDNUM = stdnumExamples();

/**
 * Valid to python-stdnum, refused here on purpose: forms a VAT number is not written in on an
 * invoice (old 9-digit Belgian and 8-digit Greek numbers, Dutch numbers without their leading
 * zeros, Czech birth numbers with their slash, colons after the prefix, "(0)"), and the EU's OSS
 * numbers (prefix EU, not a country, which BR-CO-09 refuses).
 */
const NOT_A_FORM_KONTOR_TAKES = [
  "BE (0)468.561.072", "BE 444.503.092", "BE 456.973.433", "BE 464 401 356", "BE413562567", "BE697449992",
  "CZ 640229/4448", "CZ 736028/5163", "DK: 21599336", "EL 94051189", "EL: 094279805", "EU372022452",
  "IT: 02331250163", "LU: 20993674", "LU: 2294 4200", "NL00449544B01", "NL4495445B01", "NL68357370B01",
];
/** The countries whose check digits Kontor verifies (server/lib/vat-numbers.ts). */
const CHECKED = ["AT", "BE", "DE", "DK", "EE", "EL", "ES", "FI", "HR", "HU", "IT", "LU", "NL", "PL", "PT", "SE"];

describe("VAT numbers: python-stdnum's published examples", () => {
  test("every valid number is accepted (but the forms named above)", () => {
    const valid = STDNUM.valid!.filter((n) => !NOT_A_FORM_KONTOR_TAKES.includes(n));
    expect(valid.length).toBeGreaterThan(600);
    expect(valid.filter((n) => vatNumberProblem(n) !== null)).toEqual([]);
    // and each of the refused forms is refused, not silently taken
    expect(NOT_A_FORM_KONTOR_TAKES.filter((n) => vatNumberProblem(n) === null)).toEqual([]);
  });

  test("mangled check digits are refused for every country whose check Kontor verifies (French numeric keys included)", () => {
    const mangled = STDNUM.checksum!.filter((n) => CHECKED.includes(compactVatNumber(n).slice(0, 2)) || /^FR ?\d\d/.test(n));
    expect(mangled.length).toBeGreaterThan(20);
    // forms Kontor does not take (see NOT_A_FORM_KONTOR_TAKES) are refused for their form first
    const oldForm = ["BE 456.973.432", "BE697449982", "EL: 094269805"];
    for (const n of mangled) expect([n, vatNumberProblem(n)?.kind]).toEqual([n, oldForm.includes(n) ? "format" : "checkDigits"]);
  });

  test("wrong formats, lengths and doubled prefixes are refused", () => {
    // SK 2010237945: a third digit Slovakia does not give; Kontor checks Slovak numbers for their length only
    const wrong = [...STDNUM.format!, ...STDNUM.length!, ...STDNUM["duplicated-prefix"]!].filter((n) => n !== "SK 2010 237 945");
    expect(wrong.filter((n) => vatNumberProblem(n) === null)).toEqual([]);
  });

  test("the issue's example and the numbers the documentation uses", () => {
    // 97 − (04047955 mod 97) = 97 − 50 = 47, not 78
    expect(vatNumberProblem("BE0404795578")).toEqual({ kind: "checkDigits", country: "Belgian" });
    // 97 − (04174971 mod 97) = 97 − 91 = 6
    expect(vatNumberProblem("BE0417497106")).toBeNull();
    expect(vatNumberProblem("BE0123456749")).toBeNull();
    // 10 digits starting with 0 or 1
    expect(vatNumberProblem("BE2123456789")?.kind).toBe("format");
    expect(vatNumberProblem("BE0123")?.kind).toBe("format");
  });

  test("the Netherlands: the 11-test, and the 2020 mod 97 numbers of sole proprietors", () => {
    // RSIN 8067.53.742: 8·9 + 0·8 + 6·7 + 7·6 + 5·5 + 3·4 + 7·3 + 4·2 − 2 = 220 = 20 × 11
    expect(vatNumberProblem("NL806753742B01")).toBeNull();
    // the Belastingdienst's example btw-id of a sole proprietor: no 11-test, but NL000099998B57 mod 97 = 1
    expect(mod97("NL000099998B57")).toBe(1);
    expect(vatNumberProblem("NL000099998B57")).toBeNull();
    expect(vatNumberProblem("NL000099998B58")?.kind).toBe("checkDigits");
    expect(vatNumberProblem("NL806753742B00")?.kind).toBe("format");
  });

  test("Greece is EL (and GR), Northern Ireland XI; other countries need their prefix only", () => {
    expect(vatNumberProblem("EL094259216")).toBeNull();
    expect(vatNumberProblem("GR094259216")).toBeNull();
    expect(vatNumberProblem("XI432525179")).toBeNull();
    expect(vatNumberProblem("GB1232434")).toBeNull();
    expect(vatNumberProblem("CHE-123.456.788")).toBeNull();
    expect(vatNumberProblem("0417497106")).toEqual({ kind: "prefix" });
    expect(vatNumberProblem("UK123456789")).toEqual({ kind: "prefix" });
    expect(vatNumberProblem("EU372022452")).toEqual({ kind: "prefix" });
  });

  test("the Belgian enterprise number: 10 digits, mod 97, in any usual form", () => {
    expect(belgianEnterpriseNumberProblem("0417.497.106")).toBeNull();
    expect(belgianEnterpriseNumberProblem("BE 0417 497 106")).toBeNull();
    expect(belgianEnterpriseNumberProblem("0404.795.578")).toBe("checkDigits");
    expect(belgianEnterpriseNumberProblem("417.497.106")).toBe("format");
  });
});

describe("countries and currencies: EN 16931's code lists", () => {
  test("BR-CL-14: ISO 3166-1 alpha-2 and XI; not UK, EU, XK, lower case", () => {
    for (const code of ["BE", "GB", "XI", "NL", "US", "AX"]) expect([code, isCountryCode(code)]).toEqual([code, true]);
    for (const code of ["UK", "EU", "XK", "1A", "be", "ZZ", ""]) expect([code, isCountryCode(code)]).toEqual([code, false]);
  });

  test("BR-CL-04 without the non-currencies", () => {
    for (const code of ["EUR", "USD", "GBP", "CHF", "XOF", "XCD"]) expect([code, isCurrencyCode(code)]).toEqual([code, true]);
    for (const code of ["XXX", "XTS", "XAU", "XAG", "XPT", "XPD", "XBA", "XBB", "XBC", "XBD", "XDR", "XSU", "XUA", "EURO", "eur", "ABC"]) {
      expect([code, isCurrencyCode(code)]).toEqual([code, false]);
    }
  });
});

/** A 422 on exactly `field`, with `message` when given. */
async function refused(method: string, path: string, body: unknown, field: string, message?: string, token?: string) {
  const r = await env.api(method, path, body, token);
  expect(r.status, r.text).toBe(422);
  expect(Object.keys(r.body.errors)).toEqual([field]);
  if (message) expect(r.body.errors[field]).toEqual([message]);
  return r;
}

describe("customers and suppliers", () => {
  for (const kind of ["customers", "suppliers"] as const) {
    test(`${kind}: countries, currencies and VAT numbers`, async () => {
      const path = `/api/v1/${kind}`;
      await refused("POST", path, { name: "X", country: "UK" }, "country");
      await refused("POST", path, { name: "X", country: "EU" }, "country");
      await refused("POST", path, { name: "X", currency: "XXX" }, "currency");
      await refused("POST", path, { name: "X", currency: "XAU" }, "currency");
      await refused("POST", path, { name: "X", vat_number: "BE0404795578" }, "vat_number", "The vat_number field is not a valid Belgian VAT number (check digits).");
      await refused("POST", path, { name: "X", vat_number: "DE123456789" }, "vat_number", "The vat_number field is not a valid German VAT number (check digits).");
      await refused(
        "POST",
        path,
        { name: "X", vat_number: "NL12345678B01" },
        "vat_number",
        "The vat_number field is not a valid Dutch VAT number (NL, 9 digits, B and 2 digits (not 00)).",
      );
      await refused("POST", path, { name: "X", vat_number: "0417497106", country: "BE" }, "vat_number", "The vat_number field must start with a country prefix (e.g. BE0123456749; Greece: EL, Northern Ireland: XI).");
      // a 0208 Peppol id holds an enterprise number: mod 97 holds for 2123456791, but it starts with 2
      await refused("POST", path, { name: "X", peppol_id: "0208:2123456791" }, "peppol_id");
      await refused("POST", path, { name: "X", peppol_id: "0208:0404795578" }, "peppol_id");
      const before = (await env.api("GET", path)).body.meta.total;

      // Northern Ireland is a country for EN 16931; the VAT number is stored compact
      const ok = await env.api("POST", path, { name: "Belfast Ltd", country: "XI", currency: "GBP", vat_number: "xi 432.525-179" });
      expect(ok.status, ok.text).toBe(201);
      expect(ok.body.data).toMatchObject({ country: "XI", vat_number: "XI432525179", type: "organization" });
      const be = await env.api("POST", path, { name: "Brouwerij NV", country: "BE", vat_number: "BE 0417.497.106" });
      expect(be.body.data.vat_number).toBe("BE0417497106");

      // an update is held to the same rules and changes nothing when refused
      await refused("PUT", `${path}/${be.body.data.id}`, { vat_number: "BE0417497107", city: "Gent" }, "vat_number");
      await refused("PUT", `${path}/${be.body.data.id}`, { country: "UK" }, "country");
      const shown = await env.api("GET", `${path}/${be.body.data.id}`);
      expect(shown.body.data).toMatchObject({ vat_number: "BE0417497106", country: "BE", city: null });
      expect((await env.api("GET", path)).body.meta.total).toBe(before + 2);
    });

    test(`${kind}: control and bidirectional characters are refused; line breaks only in the address and payment terms`, async () => {
      const path = `/api/v1/${kind}`;
      const before = (await env.api("GET", path)).body.meta.total;
      await refused("POST", path, { name: "Evil\u0000Corp" }, "name", "The name field must not contain control characters: it contains a control character (U+0000).");
      await refused("POST", path, { name: "Invoice \u202Efdp.exe" }, "name", "The name field must not contain control characters: it contains a bidirectional control character (U+202E).");
      await refused("POST", path, { name: "X\u2066Y\u2069" }, "name");
      await refused("POST", path, { name: "X\u200FY" }, "name");
      await refused("POST", path, { name: "X\u061CY" }, "name");
      await refused("POST", path, { name: "Tab\there" }, "name");
      await refused("POST", path, { name: "DEL\u007F" }, "name");
      await refused("POST", path, { name: "C1\u0085" }, "name");
      await refused("POST", path, { name: "X", city: "Gent\nCentrum" }, "city", "The city field must be a single line: it contains a line break (U+000A).");
      await refused("POST", path, { name: "Two\r\nlines" }, "name");
      // a lone carriage return is not a line break Kontor keeps
      await refused("POST", path, { name: "X", address: "Kerkstraat 1\rGent" }, "address", "The address field must not contain control characters: it contains a control character (U+000D).");
      expect((await env.api("GET", path)).body.meta.total).toBe(before);

      const ok = await env.api("POST", path, { name: "Café Ünïcode — 😀 ok", address: "Kerkstraat 1\nBus 2\r\nGebouw B", payment_terms: "30 days\nnet" });
      expect(ok.status, ok.text).toBe(201);
      expect(ok.body.data).toMatchObject({ address: "Kerkstraat 1\nBus 2\r\nGebouw B", payment_terms: "30 days\nnet" });
    });
  }

  test("contact persons: notes take line breaks, names do not", async () => {
    const c = (await env.api("POST", "/api/v1/customers", { name: "With people" })).body.data;
    await refused("POST", `/api/v1/customers/${c.id}/contact-persons`, { first_name: "An\nna", last_name: "P" }, "first_name");
    const ok = await env.api("POST", `/api/v1/customers/${c.id}/contact-persons`, { first_name: "Anna", last_name: "P", notes: "Calls on Monday\nnever Friday" });
    expect(ok.status, ok.text).toBe(201);
  });
});

describe("the organisation", () => {
  test("PUT /organization: country, VAT number, a Belgian company number, texts; nothing changed on a refusal", async () => {
    const { token } = await env.newOrg("Reference BV", { country: "BE" });
    const before = (await env.api("GET", "/api/v1/organization", undefined, token)).body.data;
    await refused("PUT", "/api/v1/organization", { country: "UK" }, "country", undefined, token);
    await refused("PUT", "/api/v1/organization", { vat_number: "BE0404795578" }, "vat_number", "The vat_number field is not a valid Belgian VAT number (check digits).", token);
    await refused("PUT", "/api/v1/organization", { company_number: "0404.795.578", name: "Changed" }, "company_number", "The company_number field is not a valid Belgian enterprise number (check digits).", token);
    await refused("PUT", "/api/v1/organization", { company_number: "12345" }, "company_number", undefined, token);
    await refused("PUT", "/api/v1/organization", { name: "Reference\u202EBV" }, "name", undefined, token);
    await refused("PUT", "/api/v1/organization", { website: "https://example.com\n" }, "website", undefined, token);
    expect((await env.api("GET", "/api/v1/organization", undefined, token)).body.data).toEqual(before);

    const ok = await env.api("PUT", "/api/v1/organization", { vat_number: "be0417.497.106", company_number: "0417.497.106", address: "Kerkstraat 1\nBus 2" }, token);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data).toMatchObject({ vat_number: "BE0417497106", company_number: "0417.497.106", address: "Kerkstraat 1\nBus 2" });
    // a Dutch registration number (KvK, 8 digits) is no Belgian enterprise number: not checked for another country
    const nl = await env.api("PUT", "/api/v1/organization", { country: "NL", company_number: "12345678", vat_number: "NL806753742B01" }, token);
    expect(nl.status, nl.text).toBe(200);
    // moving back to Belgium with that number is refused
    await refused("PUT", "/api/v1/organization", { country: "BE" }, "company_number", undefined, token);
  });
});

describe("invoices", () => {
  test("notes, payment terms and line descriptions take line breaks; other texts and codes are checked", async () => {
    const customer = (await env.api("POST", "/api/v1/customers", { name: "Invoice customer", country: "BE" })).body.data;
    const line = { description: "Consulting", quantity: 1, unit_price: "100.00" };
    const base = { customer_id: customer.id, issue_date: "2026-11-02", lines: [line] };
    const before = (await env.api("GET", "/api/v1/invoices")).body.meta.total;
    await refused("POST", "/api/v1/invoices", { ...base, currency: "XXX" }, "currency");
    await refused("POST", "/api/v1/invoices", { ...base, lines: [{ ...line, description: "Bell\u0007" }] }, "lines.0.description", "The lines.0.description field must not contain control characters: it contains a control character (U+0007).");
    await refused("POST", "/api/v1/invoices", { ...base, notes: "Thanks\u202E" }, "notes");
    await refused("POST", "/api/v1/invoices", { ...base, buyer_reference: "PO\n42" }, "buyer_reference");
    expect((await env.api("GET", "/api/v1/invoices")).body.meta.total).toBe(before);

    const ok = await env.api("POST", "/api/v1/invoices", {
      ...base,
      notes: "Thank you.\r\nPay within 30 days.",
      payment_terms: "30 days\nnet",
      lines: [{ ...line, description: "Consulting\nNovember: 10 hours" }],
    });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.data).toMatchObject({ notes: "Thank you.\r\nPay within 30 days.", payment_terms: "30 days\nnet" });
    expect(ok.body.data.lines[0].description).toBe("Consulting\nNovember: 10 hours");
  });
});

describe("imported e-invoices", () => {
  const base = readFileSync(join(TESTS_ROOT, "einvoicing", "examples", "peppol", "base-example.xml"), "utf8");
  const importXml = (xml: string, token: string) =>
    env.request("POST", "/api/v1/expenses/import", { rawBody: xml, token, headers: { "content-type": "application/xml" } });

  /** Refused with a 422 on the element `path` ends with, saying `says`, and nothing stored. */
  async function refusedImport(xml: string, pathEnd: string, says: string) {
    const { token } = await env.newOrg(`Import ${Math.random()}`, { country: "BE" });
    const r = await importXml(xml, token);
    expect(r.status, r.text).toBe(422);
    const [path] = Object.keys(r.body.errors);
    expect(path).toEndWith(pathEnd);
    expect(r.body.errors[path!][0]).toContain(says);
    expect((await env.api("GET", "/api/v1/expenses", undefined, token)).body.meta.total).toBe(0);
    expect((await env.api("GET", "/api/v1/suppliers", undefined, token)).body.meta.total).toBe(0);
  }

  test("the unchanged example imports", async () => {
    const { token } = await env.newOrg("Import ok", { country: "BE" });
    expect((await importXml(base, token)).status).toBe(201);
  });

  test("a currency BR-CL-04 refuses or that is no currency (BT-5)", async () => {
    await refusedImport(base.replaceAll("EUR", "XTS"), "/cbc:DocumentCurrencyCode", "(BT-5)");
  });

  test("a seller country BR-CL-14 refuses (BT-40)", async () => {
    const xml = base.replace("<cbc:IdentificationCode>GB</cbc:IdentificationCode>", "<cbc:IdentificationCode>UK</cbc:IdentificationCode>");
    expect(xml).not.toBe(base);
    await refusedImport(xml, "/cac:AccountingSupplierParty/cac:Party/cac:PostalAddress/cac:Country/cbc:IdentificationCode", "'UK' (BT-40)");
  });

  test("a control or bidirectional character in a text that would be stored", async () => {
    const name = "<cbc:RegistrationName>SupplierOfficialName Ltd</cbc:RegistrationName>";
    await refusedImport(base.replace(name, "<cbc:RegistrationName>Supplier&#x202E;dtL</cbc:RegistrationName>"), "/cac:PartyLegalEntity/cbc:RegistrationName", "BT-27");
    await refusedImport(base.replace(name, "<cbc:RegistrationName>Supplier&#x85;Ltd</cbc:RegistrationName>"), "/cac:PartyLegalEntity/cbc:RegistrationName", "(U+0085)");
    await refusedImport(base.replace("<cbc:ID>Snippet1</cbc:ID>", "<cbc:ID>Snippet&#x200F;1</cbc:ID>"), "/Invoice/cbc:ID", "BT-1");
  });

  test("XML line breaks inside a stored text become a space", async () => {
    const { token } = await env.newOrg("Import whitespace", { country: "BE" });
    const xml = base.replace("<cbc:RegistrationName>SupplierOfficialName Ltd</cbc:RegistrationName>", "<cbc:RegistrationName>SupplierOfficialName\n\t\tLtd</cbc:RegistrationName>");
    const r = await importXml(xml, token);
    expect(r.status, r.text).toBe(201);
    expect(r.body.data.vendor).toBe("SupplierOfficialName Ltd");
  });

  test("a seller VAT number with wrong check digits: the document imports, the supplier is created without it", async () => {
    // the CEN example's NL16356706 is no Dutch VAT number (9 digits, B and 2 digits)
    const { token } = await env.newOrg("Import invalid VAT", { country: "BE" });
    const xml = readFileSync(join(TESTS_ROOT, "einvoicing", "examples", "cen", "ubl-tc434-example5.xml"), "utf8");
    expect(xml).toContain("NL16356706");
    const r = await importXml(xml, token);
    expect(r.status, r.text).toBe(201);
    const supplier = (await env.api("GET", `/api/v1/suppliers/${r.body.data.supplier_id}`, undefined, token)).body.data;
    expect(supplier.vat_number).toBeNull();
  });
});

describe("the CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "kontor-reference-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cli = (...args: string[]) => runCli([...args, "--db", join(dir, "cli.db")]);

  test("kontor org create: the same countries, currencies and names; org set: the same VAT numbers", async () => {
    const uk = await cli("org", "create", "--name", "Acme Ltd", "--country", "UK");
    expect(uk.code).toBe(1);
    expect(uk.stderr).toContain("the United Kingdom is GB");
    const xxx = await cli("org", "create", "--name", "Acme Ltd", "--currency", "XXX");
    expect(xxx.code).toBe(1);
    expect(xxx.stderr).toContain("currency");
    const bidi = await cli("org", "create", "--name", "Acme\u202ELtd");
    expect(bidi.code).toBe(1);
    expect(bidi.stderr).toContain("U+202E");
    const ok = await cli("org", "create", "--name", "Belfast Ltd", "--country", "XI", "--currency", "GBP", "--json");
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ country: "XI", currency: "GBP" });
    const vat = await cli("org", "set", "Belfast Ltd", "--vat-number", "BE0404795578");
    expect(vat.code).toBe(1);
    expect(vat.stderr).toContain("not a valid Belgian VAT number (check digits)");
  });

  test("kontor org create and bank-account add | set: a bank account's name and bank name hold no control or bidirectional character", async () => {
    const bankName = await cli("org", "create", "--name", "Bank Names", "--iban", "BE68539007547034", "--bank-name", "KBC\u0007");
    expect(bankName.code).toBe(1);
    expect(bankName.stderr).toContain("U+0007");
    expect((await cli("org", "create", "--name", "Bank Names", "--json")).code).toBe(0);
    const added = await cli("bank-account", "add", "--org", "Bank Names", "--name", "Savings\u202E", "--iban", "NL91ABNA0417164300");
    expect(added.code).toBe(1);
    expect(added.stderr).toContain("U+202E");
    const addedBank = await cli("bank-account", "add", "--org", "Bank Names", "--name", "Savings", "--iban", "NL91ABNA0417164300", "--bank-name", "ABN\nAMRO");
    expect(addedBank.code).toBe(1);
    expect(addedBank.stderr).toContain("U+000A");
    expect((await cli("bank-account", "add", "--org", "Bank Names", "--name", "Savings", "--iban", "NL91ABNA0417164300")).code).toBe(0);
    const renamed = await cli("bank-account", "set", "NL91ABNA0417164300", "--org", "Bank Names", "--name", "Re\u0001serve");
    expect(renamed.code).toBe(1);
    expect(renamed.stderr).toContain("U+0001");
  });
});

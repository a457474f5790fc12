/**
 * KoSIT's XRechnung test suite (tests/fixtures/xrechnung-testsuite/, origin and licence in its
 * README): every file imported alone into a fresh organisation, and all of them together into one,
 * give the same expenses with the same totals, and the suppliers that the files' own seller
 * identities make under the documented rule (docs/payables.md#importing-supplier-e-invoices): the
 * same VAT number is one supplier whatever the name, different VAT numbers (or registrations) are
 * different suppliers, names decide only where neither side has either; an e-mail endpoint (EM)
 * identifies no one. Together, a file is refused as a duplicate only when its seller is, by those
 * identities, the seller of an earlier file with the same invoice number (an expense, or a received
 * document when all its totals are 0.00: each is imported once).
 *
 * The seller identities are read here from the XML with regular expressions (not with Kontor's
 * reader); the expected groups are computed from them and cross-checked against a count made by
 * hand from the files.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { createTestEnv, type ApiResponse } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const ROOT = join(import.meta.dir, "..", "fixtures", "xrechnung-testsuite");
const files: string[] = [];
const walk = (dir: string) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else if (entry.name.endsWith(".xml")) files.push(relative(ROOT, path));
  }
};
walk(ROOT);
files.sort();

/** The files Kontor refuses, and why (read off the files: 05.01a carries two cac:PrepaidPayment, BG-DEX-09). */
const REFUSED: Record<string, string> = {
  "business-cases/extension/05.01a-INVOICE_ubl.xml": "XRechnung extension's third-party payments (BG-DEX-09",
};

type Seller = { name: string; vat: string | null; registration: { value: string; scheme: string } | null; endpointScheme: string | null; number: string };

const first = (xml: string, re: RegExp) => re.exec(xml)?.[1]?.trim() || null;
const compact = (v: string) => v.replace(/[\s.\-]/g, "").toUpperCase();
const LEGAL_FORMS = ["gmbh", "gbr", "ag", "kg", "bv", "nv", "sa", "sarl", "sas", "ltd"];
const nameKey = (name: string) => {
  const words = name.toLowerCase().replace(/\./g, "").replace(/[^\p{L}\p{N}]+/gu, " ").trim().split(" ");
  while (words.length > 1 && LEGAL_FORMS.includes(words.at(-1)!)) words.pop();
  return words.join(" ");
};

/** The seller as the file states it: BT-27, BT-31, BT-30 (and scheme), BT-34's scheme, and BT-1. */
function sellerOf(file: string): Seller {
  const xml = readFileSync(join(ROOT, file), "utf8");
  if (file.endsWith("_ubl.xml")) {
    const party = first(xml, /<cac:AccountingSupplierParty>([\s\S]*?)<\/cac:AccountingSupplierParty>/)!;
    const vatScheme = [...party.matchAll(/<cac:PartyTaxScheme>([\s\S]*?)<\/cac:PartyTaxScheme>/g)].map((m) => m[1]!).find((s) => /<cbc:ID>\s*VAT\s*<\/cbc:ID>/.test(s));
    const legal = first(party, /<cac:PartyLegalEntity>([\s\S]*?)<\/cac:PartyLegalEntity>/) ?? "";
    const registration = /<cbc:CompanyID(?:\s+schemeID="([^"]*)")?>([^<]*)</.exec(legal);
    return {
      name: first(legal, /<cbc:RegistrationName>([^<]*)</) ?? first(party, /<cac:PartyName>\s*<cbc:Name>([^<]*)</)!,
      vat: vatScheme ? compact(first(vatScheme, /<cbc:CompanyID>([^<]*)</)!) : null,
      registration: registration ? { value: compact(registration[2]!), scheme: registration[1] ?? "" } : null,
      endpointScheme: first(party, /<cbc:EndpointID\s+schemeID="([^"]*)"/),
      number: first(xml.slice(xml.indexOf("</cbc:CustomizationID>")), /<cbc:ID>([^<]*)</)!,
    };
  }
  const party = first(xml, /<ram:SellerTradeParty>([\s\S]*?)<\/ram:SellerTradeParty>/)!;
  const legal = first(party, /<ram:SpecifiedLegalOrganization>([\s\S]*?)<\/ram:SpecifiedLegalOrganization>/) ?? "";
  const registration = /<ram:ID(?:\s+schemeID="([^"]*)")?>([^<]*)</.exec(legal);
  const vat = first(party, /<ram:ID schemeID="VA">([^<]*)</);
  return {
    name: first(party, /<ram:Name>([^<]*)</)!,
    vat: vat ? compact(vat) : null,
    registration: registration ? { value: compact(registration[2]!), scheme: registration[1] ?? "" } : null,
    endpointScheme: first(party, /<ram:URIID\s+schemeID="([^"]*)"/),
    number: first(first(xml, /<rsm:ExchangedDocument>([\s\S]*?)<\/rsm:ExchangedDocument>/)!, /<ram:ID>([^<]*)</)!,
  };
}

type Group = { id: number; vats: Set<string>; registrations: { value: string; scheme: string }[]; names: Set<string>; files: string[] };

/** The documented rule, applied to the files' sellers in file order: the oldest group the seller is, else a new one. */
function groupsOf(sellers: Map<string, Seller>): { groups: Group[]; groupOf: Map<string, Group> } {
  const groups: Group[] = [];
  const groupOf = new Map<string, Group>();
  for (const file of files) {
    if (REFUSED[file]) continue;
    const s = sellers.get(file)!;
    const same = (g: Group) => {
      if (s.vat !== null && g.vats.size > 0) return g.vats.has(s.vat);
      if (s.registration !== null && g.registrations.length > 0) {
        return g.registrations.some((r) => r.value === s.registration!.value && (r.scheme === "" || s.registration!.scheme === "" || r.scheme === s.registration!.scheme));
      }
      return g.names.has(nameKey(s.name));
    };
    let group = groups.find(same);
    if (!group) {
      group = { id: groups.length, vats: new Set(), registrations: [], names: new Set(), files: [] };
      groups.push(group);
    }
    if (s.vat) group.vats.add(s.vat);
    if (s.registration) group.registrations.push(s.registration);
    group.names.add(nameKey(s.name));
    group.files.push(file);
    groupOf.set(file, group);
  }
  return { groups, groupOf };
}

const importFile = (file: string, token: string) =>
  env.request("POST", "/api/v1/expenses/import", { rawBody: readFileSync(join(ROOT, file)), token, headers: { "content-type": "application/xml" } });

/** What an import made, as compared between alone and together: the figures, not ids or times. */
const figures = (r: ApiResponse) => {
  const d = r.body.data;
  const kind = r.headers.get("location")?.includes("/received-documents/") ? "received_document" : "expense";
  const { document_type, supplier_invoice_number, date, vendor, currency, total } = d;
  const common = { kind, document_type, supplier_invoice_number, date, vendor, currency, total };
  return kind === "expense"
    ? { ...common, amount: d.amount, vat_amount: d.vat_amount, prepaid_amount: d.prepaid_amount, rounding_amount: d.rounding_amount, amount_due: d.amount_due, refund_due: d.refund_due }
    : common;
};

const sellers = new Map(files.map((f) => [f, sellerOf(f)]));

describe("KoSIT's XRechnung test suite", () => {
  test("the fixture: 86 files, every seller's endpoint an e-mail address (EM): no Peppol id to match on", () => {
    expect(files.length).toBe(86);
    for (const [file, s] of sellers) expect(s.endpointScheme, file).toBe("EM");
  });

  test("the sellers make 7 suppliers, as counted by hand", () => {
    // by hand, from the files: ATU123456789 (04.02a, 01.14a, 02.0xa, 03.01a, 03.04a, 03.05a, 03.07a,
    // the technical cases), DE123456789 (04.05a "Rechnungssteller", 01.01a–01.13a, 01.15a, 01.17a–01.20a,
    // 01.21a UBL, 03.02a, 03.03a), M. Meier Handwerk GbR ("DE/12/345/67890", 04.01a, 04.03a), the
    // VAT-less registration "VR 12345 Nz" (01.04a), DE152338654 (01.21a CII), DE12345464867 (03.06a),
    // DE814060619 (04.04a). The minimal case 01.05 (no VAT, no registration, "[Seller name]") joins
    // the oldest supplier of that name.
    const { groups } = groupsOf(sellers);
    expect(groups.length).toBe(7);
    // extension/04.02a shares its registration 1122334455 and its e-mail endpoint with Meier, not its VAT number
    const { groupOf } = groupsOf(sellers);
    expect(groupOf.get("business-cases/extension/04.02a-INVOICE_ubl.xml")).not.toBe(groupOf.get("business-cases/extension/04.01a-INVOICE_ubl.xml"));
  });

  test("each file alone and all together: the same expenses with the same totals, the suppliers the identities make, no false duplicate", async () => {
    // alone: one fresh organisation per file
    const alone = new Map<string, ReturnType<typeof figures>>();
    for (const file of files) {
      const { token } = await env.newOrg(`Alone ${file}`, { country: "BE", currency: "EUR" });
      const r = await importFile(file, token);
      if (REFUSED[file]) {
        expect(r.status, `${file}: ${r.text}`).toBe(422);
        expect(r.body.message, file).toContain(REFUSED[file]);
        continue;
      }
      expect(r.status, `${file}: ${r.text}`).toBe(201);
      alone.set(file, figures(r));
      const suppliers = (await env.request("GET", "/api/v1/suppliers", { token })).body.data;
      expect(suppliers.length, file).toBe(1);
    }

    // together, in file order
    const { groups, groupOf } = groupsOf(sellers);
    const { token } = await env.newOrg("All together", { country: "BE", currency: "EUR" });
    const firstOf = new Map<string, { file: string; id: string }>();
    const supplierOfGroup = new Map<number, string>();
    let expenses = 0;
    let received = 0;
    for (const file of files) {
      const r = await importFile(file, token);
      if (REFUSED[file]) {
        expect(r.status, `${file}: ${r.text}`).toBe(422);
        expect(r.body.message, file).toContain(REFUSED[file]);
        continue;
      }
      const group = groupOf.get(file)!;
      // expenses and received documents (all totals 0.00) are each imported once per seller and number
      const key = `${group.id}|${alone.get(file)!.kind}|${sellers.get(file)!.number}`;
      const earlier = firstOf.get(key);
      if (earlier) {
        // the same seller's document under the same number: a duplicate naming the earlier one
        expect(r.status, `${file} after ${earlier.file}: ${r.text}`).toBe(409);
        expect(r.body.message, file).toContain(earlier.id);
        continue;
      }
      expect(r.status, `${file}: ${r.text}`).toBe(201);
      expect(figures(r), file).toEqual(alone.get(file)!);
      firstOf.set(key, { file, id: r.body.data.id });
      if (figures(r).kind === "expense") expenses++;
      else received++;
      // one supplier per group, and another for each other group
      const supplierId = r.body.data.supplier_id as string;
      if (supplierOfGroup.has(group.id)) expect(supplierId, file).toBe(supplierOfGroup.get(group.id)!);
      else {
        expect([...supplierOfGroup.values()], file).not.toContain(supplierId);
        supplierOfGroup.set(group.id, supplierId);
      }
    }
    const suppliers = (await env.request("GET", "/api/v1/suppliers?per_page=100", { token })).body.data as { id: string }[];
    expect(suppliers.length).toBe(groups.length);
    expect((await env.request("GET", "/api/v1/expenses?per_page=100", { token })).body.meta.total).toBe(expenses);
    expect((await env.request("GET", "/api/v1/received-documents?per_page=100", { token })).body.data.length).toBe(received);
    // the false duplicate of old: 04.02a ("[Seller name]", ATU123456789) beside Meier ("DE/12/345/67890"), same registration and e-mail endpoint
    const meier = firstOf.get(`${groupOf.get("business-cases/extension/04.01a-INVOICE_ubl.xml")!.id}|expense|12345`)!;
    const other = firstOf.get(`${groupOf.get("business-cases/extension/04.02a-INVOICE_ubl.xml")!.id}|expense|12345`)!;
    expect(other.file).toBe("business-cases/extension/04.02a-INVOICE_ubl.xml");
    expect(other.id).not.toBe(meier.id);
  }, 120_000);
});

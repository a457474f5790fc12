/**
 * What an EN 16931 e-invoice needs and says, whatever its syntax: the rules both the UBL (ubl.ts)
 * and the CII (cii.ts) renderers check before they write (`missingForEn16931`, with the CIUS
 * additions `missingForPeppol` and `missingForXRechnung`), and the figures and identifiers both
 * write the same way (net line prices with VAT-inclusive pricing, VAT identifiers, legal
 * registration schemes, exemption reasons). The rule ids in comments (BR-…, PEPPOL-…, BR-DE-…)
 * are those of the official rule files the tests run (tests/einvoicing/).
 */
import { isCountryCode } from "../lib/iso-codes.ts";
import type { FieldErrors } from "../lib/errors.ts";
import { divRoundHalfUp, formatCents } from "../lib/money.ts";
import type { DocumentLine, DocumentParty, DocumentVatGroup, IssuedDocument, VatCategory } from "./model.ts";
import { isBelgianEnterpriseNumber, isPeppolId } from "./peppol.ts";

/** Categories that carry a 0 % rate and need an exemption reason (BR-E-10, BR-AE-10, BR-IC-10, BR-G-10, BR-O-10). */
export const EXEMPT: ReadonlySet<VatCategory> = new Set(["E", "AE", "K", "G", "O"]);
/** The reason code a category implies when the rate names none; E has no single one (VATEX-EU-132, -143, …). */
const DEFAULT_VATEX: Partial<Record<VatCategory, string>> = { AE: "VATEX-EU-AE", K: "VATEX-EU-IC", G: "VATEX-EU-G", O: "VATEX-EU-O" };

/**
 * A VAT breakdown row's exemption reason (BT-121 code, BT-120 text): S and Z must not carry one
 * (BR-S-10, BR-Z-10); the others must (BR-E-10, BR-AE-10, …): the rate's, else the category's code.
 */
export function exemptionOf(g: DocumentVatGroup): { code: string | null; text: string | null } | null {
  if (!EXEMPT.has(g.category)) return null;
  return { code: present(g.exemptionReasonCode) ? g.exemptionReasonCode : present(g.exemptionReason) ? null : (DEFAULT_VATEX[g.category] ?? null), text: g.exemptionReason };
}

/**
 * What EN 16931 needs that the document does not have, whatever its syntax (UBL or CII), as
 * field errors for a 422: `organization.*` for the seller, `customer.*` for the buyer, bare names
 * for the invoice itself, `vat_rates.*` for a rate's category data. Empty when the document can
 * be rendered. A syntax's or CIUS's own needs are added by its renderer (ubl.ts: Peppol's;
 * `missingForXRechnung` below: KoSIT's).
 */
export function missingForEn16931(doc: IssuedDocument): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => void (errors[field] ??= []).push(message);
  const { seller, buyer } = doc;
  const categories = new Set<VatCategory>([
    ...doc.lines.map((l) => l.vatCategory),
    ...(doc.allowanceCharges ?? []).map((ac) => ac.vatCategory),
    ...doc.vatGroups.map((g) => g.category),
  ]);
  const notSubject = categories.has("O");

  // the parties (BR-6, BR-7, BR-8, BR-9, BR-10, BR-11; VAT directive art. 226: full addresses)
  for (const [who, party] of [["organization", seller], ["customer", buyer]] as const) {
    if (!present(party.name)) add(`${who}.name`, `The ${who}'s name is required for an e-invoice (BR-${who === "organization" ? 6 : 7}).`);
    if (!present(party.address)) add(`${who}.address`, `The ${who}'s street address is required for an e-invoice.`);
    if (!present(party.city)) add(`${who}.city`, `The ${who}'s city is required for an e-invoice.`);
    if (who === "organization" && !present(party.postalCode)) add(`${who}.postal_code`, "The organization's postal code is required for an e-invoice.");
    if (!present(party.country)) add(`${who}.country`, `The ${who}'s country is required for an e-invoice (BR-${who === "organization" ? 9 : 11}).`);
    else if (!/^[A-Z]{2}$/.test(party.country!.trim().toUpperCase())) add(`${who}.country`, `The ${who}'s country must be an ISO 3166-1 alpha-2 code.`);
    if (present(party.vatNumber) && !vatIdentifier(party)) {
      add(`${who}.vat_number`, `The ${who}'s VAT number must start with a country prefix (BR-CO-09).`);
    }
  }

  // VAT identifiers: needed for every category but O (BR-S-02, BR-Z-02, BR-E-02, BR-AE-02, BR-IC-02, BR-G-02) …
  if (!notSubject && !present(seller.vatNumber)) add("organization.vat_number", "The organization's VAT number is required for an e-invoice with VAT.");
  if (categories.has("AE") && !present(buyer.vatNumber) && !present(buyer.companyNumber)) {
    add("customer.vat_number", "A reverse-charge invoice needs the customer's VAT number (BR-AE-02).");
  }
  if (categories.has("K") && !present(buyer.vatNumber)) add("customer.vat_number", "An intra-community supply needs the customer's VAT number (BR-IC-02).");
  // … and forbidden with O, which then stands alone (BR-O-02, BR-O-11)
  if (notSubject && categories.size > 1) add("lines", "Lines not subject to VAT (category O) cannot share a document with other VAT categories (BR-O-11).");
  // a supplier must be identifiable (BR-CO-26): without a VAT number, by its company number
  if (notSubject && !present(seller.companyNumber)) add("organization.company_number", "The organization's company number is required when no VAT number is shown (BR-CO-26).");

  // no payee (the organisation has no bank account of its own yet): no PaymentMeans at all, which
  // EN 16931 allows (BR-61 applies only to a credit transfer that is written)

  if (doc.lines.length === 0) add("lines", "An e-invoice needs at least one line (BR-16).");
  for (const line of doc.lines) {
    if (!present(line.description)) add(`lines.${line.position - 1}.description`, `Line ${line.position} needs a description: it is the item name (BR-25).`);
    if (!/^[A-Z0-9]{1,3}$/.test(line.unitCode ?? "")) add(`lines.${line.position - 1}.unit_code`, `Line ${line.position} needs a UN/ECE Recommendation 20 unit code (BR-23).`);
  }
  for (const group of doc.vatGroups) {
    const label = `VAT category ${group.category} at ${formatCents(group.rateBp)} %`;
    if (group.category !== "S" && group.rateBp !== 0) add("vat_rates.rate", `${label}: only standard-rated (S) VAT may have a rate above 0 (BR-${group.category === "K" ? "IC" : group.category}-05).`);
    if (group.category === "S" && group.rateBp <= 0) add("vat_rates.rate", `${label}: a standard rate must be above 0 (BR-S-05).`);
    if (group.category === "E" && !present(group.exemptionReasonCode) && !present(group.exemptionReason)) {
      add("vat_rates.exemption_reason_code", `${label}: an exempt supply needs its exemption reason code (VATEX) or text (BR-E-10).`);
    }
  }
  return errors;
}


/**
 * What Peppol BIS Billing 3.0 adds to EN 16931: both parties' Peppol ids (the endpoints it delivers
 * to), a Belgian company number with valid check digits, a buyer or an order reference.
 */
export function missingForPeppol(doc: IssuedDocument): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => void (errors[field] ??= []).push(message);
  for (const [who, party] of [["organization", doc.seller], ["customer", doc.buyer]] as const) {
    const rule = who === "organization" ? "PEPPOL-EN16931-R020" : "PEPPOL-EN16931-R010";
    if (!present(party.peppolId)) {
      add(
        `${who}.peppol_id`,
        who === "customer"
          ? `The customer's Peppol id is required: Peppol delivers to a Peppol id only, not to an e-mail address (${rule}).`
          : `The organization's Peppol id is required (${rule}).`,
      );
    } else if (!endpoint(party.peppolId!)) {
      add(`${who}.peppol_id`, `The ${who}'s Peppol id must be "<scheme>:<id>" with a scheme from the Peppol EAS code list (PEPPOL-EN16931-CL008) and a valid identifier for it.`);
    } else if (!checkScheme(endpoint(party.peppolId!)!)) {
      add(`${who}.peppol_id`, `The ${who}'s Peppol id does not hold a valid identifier for its scheme.`);
    }
  }
  if (present(doc.seller.companyNumber) && legalScheme(doc.seller) === "0208" && !isBelgianEnterpriseNumber(digits(doc.seller.companyNumber!).padStart(10, "0"))) {
    add("organization.company_number", "The organization's company number is not a valid Belgian enterprise number (PEPPOL-COMMON-R043).");
  }

  // a buyer reference or an order reference (PEPPOL-EN16931-R003)
  if (!present(doc.buyerReference) && !present(doc.orderReference)) {
    add("buyer_reference", "Peppol needs a buyer reference or an order reference on the invoice (PEPPOL-EN16931-R003).");
  }
  return errors;
}

/**
 * What XRechnung 3.0 (KoSIT's CIUS for German public buyers) adds to EN 16931, each refusal naming
 * the fatal KoSIT rule it prevents (docs/einvoicing.md#what-finalize-refuses-for-xrechnung has the
 * table of them all, and the rules Kontor always writes right): the buyer reference, which carries
 * the Leitweg-ID (BR-DE-15); the seller's contact with name, phone and e-mail (BR-DE-2, BR-DE-5,
 * BR-DE-6, BR-DE-7); the seller's and buyer's city and postal code (BR-DE-3, BR-DE-4, BR-DE-8,
 * BR-DE-9), the buyer's also the delivery address of an intra-EU supply (BR-DE-10, BR-DE-11); the
 * seller's VAT identifier with any VAT category but O (BR-DE-16); payment instructions, which
 * Kontor writes from the organisation's bank account (BR-DE-1, BR-DE-23-a); payment terms whose
 * lines starting with "#" are Skonto lines (BR-DE-18); both parties' electronic addresses (BT-34,
 * BT-49, mandatory in XRechnung 3.0): a Peppol id, else an e-mail address.
 */
export function missingForXRechnung(doc: IssuedDocument): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => void (errors[field] ??= []).push(message);
  const { seller, buyer } = doc;
  const categories = new Set<VatCategory>([...doc.lines.map((l) => l.vatCategory), ...(doc.allowanceCharges ?? []).map((ac) => ac.vatCategory), ...doc.vatGroups.map((g) => g.category)]);
  // an intra-EU supply's delivery address (BG-15) is the buyer's (ubl.ts, cii.ts)
  const delivered = categories.has("K");
  if (!present(doc.buyerReference)) add("buyer_reference", "XRechnung needs the buyer reference: a German public buyer's Leitweg-ID (BR-DE-15).");
  // without any of the three, the seller contact group (BG-6) itself is missing
  if (!present(seller.contactName) && !present(seller.phone) && !present(seller.email)) {
    add("organization.contact_name", "XRechnung needs the seller contact: its name, phone number and e-mail address (BR-DE-2).");
  }
  if (!present(seller.contactName)) add("organization.contact_name", "XRechnung needs the seller's contact name (BR-DE-5).");
  if (!present(seller.phone)) add("organization.phone", "XRechnung needs the seller's contact phone number (BR-DE-6).");
  if (!present(seller.email)) add("organization.email", "XRechnung needs the seller's contact e-mail address (BR-DE-7).");
  if (!present(seller.city)) add("organization.city", "XRechnung needs the seller's city (BR-DE-3).");
  if (!present(seller.postalCode)) add("organization.postal_code", "XRechnung needs the seller's postal code (BR-DE-4).");
  if (!present(buyer.city)) add("customer.city", `XRechnung needs the buyer's city (BR-DE-8${delivered ? "; an intra-EU supply's delivery address, BR-DE-10" : ""}).`);
  if (!present(buyer.postalCode)) add("customer.postal_code", `XRechnung needs the buyer's postal code (BR-DE-9${delivered ? "; an intra-EU supply's delivery address, BR-DE-11" : ""}).`);
  // BT-31 is Kontor's only seller tax identifier (it writes no BT-32 nor a tax representative)
  if ([...categories].some((c) => c !== "O") && !vatIdentifier(seller)) {
    add("organization.vat_number", "XRechnung needs the seller's VAT identifier on a document with VAT categories S, Z, E, AE, K or G (BR-DE-16).");
  }
  if (!doc.payee) add("organization.bank_account", "XRechnung needs payment instructions: the organisation's default bank account (BR-DE-1).");
  if (breaksSkontoSyntax(doc.paymentTerms)) {
    add(
      "payment_terms",
      'XRechnung reads a payment-terms line that starts with "#" as a Skonto line: write it as #SKONTO#TAGE=14#PROZENT=2.00# (optionally with #BASISBETRAG=100.00 before the last #), in capitals, without spaces, followed by a line break; or start the line otherwise (BR-DE-18).',
    );
  }
  for (const [who, party] of [["organization", seller], ["customer", buyer]] as const) {
    if (!electronicAddress(party)) add(`${who}.peppol_id`, `XRechnung needs the ${who}'s electronic address: a valid Peppol id, else an e-mail address (BT-${who === "organization" ? 34 : 49}).`);
  }
  return errors;
}

/** KoSIT's Skonto line (XR-SKONTO-REGEX of its rules), as the rules read it: whitespace collapsed. */
const SKONTO_LINE = /^#SKONTO#TAGE=[0-9]+#PROZENT=[0-9]+\.[0-9]{2}(#BASISBETRAG=-?[0-9]+\.[0-9]{2})?#$/;
/** XPath's normalize-space: XML whitespace trimmed and each run of it one space. */
const normalizeSpace = (text: string) => text.replace(/[ \t\n\r]+/g, " ").replace(/^ | $/g, "");

/**
 * Whether payment terms break BR-DE-18 as KoSIT tests it: every line starting with "#" must be a
 * Skonto line, and the text after the last "#…#" must begin with a line break (a Skonto line ends
 * with one). Terms without such a line are free text.
 */
export function breaksSkontoSyntax(terms: string | null): boolean {
  if (!present(terms)) return false;
  const lines = terms!.split(/\r?\n/).filter((l) => normalizeSpace(l).startsWith("#"));
  if (lines.length === 0) return false;
  // XPath's "." stops at a line break, as [^\n\r] does
  const rest = terms!.split(/#[^\n\r]+#/).at(-1) ?? "";
  return !lines.every((l) => SKONTO_LINE.test(normalizeSpace(l))) || !/^[ \t\n\r]*\n/.test(rest);
}

/** Field errors of several rule sets in one: a field named twice keeps every message once. */
export function mergeFieldErrors(...sets: FieldErrors[]): FieldErrors {
  const out: FieldErrors = {};
  for (const set of sets) {
    for (const [field, messages] of Object.entries(set)) {
      for (const message of messages) if (!(out[field] ??= []).includes(message)) out[field].push(message);
    }
  }
  return out;
}

/** UNCL5189 95, "Discount": the reason code of a line discount (BR-42 wants a reason or a code; a reason given is added). */
export const DISCOUNT_REASON_CODE = "95";

/** BT-106: the lines' net amounts (a document without allowances or charges: its subtotal). */
export const lineTotal = (doc: IssuedDocument) => doc.lineTotalCents ?? doc.subtotalCents;

/** A rate in percent as EN 16931 writes it: 10.00 → "10", 12.50 → "12.5". */
export const percentText = (bp: number) => formatCents(bp).replace(/\.?0+$/, "");

/**
 * A line's net figures for an e-invoice. With net prices they are the line's own: the unit price, its
 * amount before the discount, the discount. With gross prices (EN 16931 has no VAT-inclusive
 * invoice) they are derived from the line's net share: the discount's net is discount × 100 /
 * (100 + rate), rounded half-up, the amount before it is the share plus that, and the net unit
 * price (BT-146) is that amount over the quantity, with as many decimals as keep quantity × price
 * within half a cent of it (PEPPOL-EN16931-R120 allows two).
 */
export function netLinePrice(line: DocumentLine, pricesIncludeVat: boolean): { price: string; baseCents: number; discountCents: number } {
  const discount = line.discount?.cents ?? 0;
  if (!pricesIncludeVat) {
    return { price: formatCents(line.unitPriceCents), baseCents: line.amountCents + discount, discountCents: discount };
  }
  const netDiscount = discount === 0 ? 0 : Number(divRoundHalfUp(BigInt(discount) * 10_000n, BigInt(10_000 + line.vatRateBp)));
  const baseCents = line.amountCents + netDiscount;
  return { price: decimalQuotient(baseCents, line.quantityCents), baseCents, discountCents: netDiscount };
}

/** cents / hundredths as a decimal string with at least 2 decimals and as many as 10^decimals ≥ the quantity in hundredths. */
function decimalQuotient(cents: number, quantityHundredths: number): string {
  const decimals = Math.max(2, String(quantityHundredths).length);
  const scaled = divRoundHalfUp(BigInt(cents) * 10n ** BigInt(decimals), BigInt(quantityHundredths));
  const text = scaled.toString().padStart(decimals + 1, "0");
  const whole = text.slice(0, -decimals);
  const fraction = text.slice(-decimals).replace(/0+$/, "").padEnd(2, "0");
  return `${whole}.${fraction}`;
}

/** Item name (BT-153) is the description's first line, cut at 100 characters; the full text, when longer, is the description (BT-154). */
/**
 * What a line (BG-25) says in either syntax: its quantity and net price (an item price is never
 * negative, BR-27: a negative line is a negative quantity at a positive price), item name and
 * description, and its discount (BG-27) with its percentage only where that is the net amount's
 * (with gross prices it would be the gross one's, PEPPOL-EN16931-R040).
 */
export function lineTerms(line: DocumentLine, pricesIncludeVat: boolean) {
  const negativePrice = line.unitPriceCents < 0;
  const net = netLinePrice(line, pricesIncludeVat);
  const discount = line.discount && net.discountCents > 0 ? line.discount : null;
  return {
    quantity: negativePrice ? -line.quantityCents : line.quantityCents,
    ...itemName(line.description),
    net,
    price: negativePrice ? formatCents(-line.unitPriceCents) : net.price,
    discount,
    percent: discount?.percentBp && !pricesIncludeVat ? discount.percentBp : null,
  };
}

export function itemName(text: string): { name: string; description: string | null } {
  const trimmed = text.trim();
  const first = trimmed.split(/\r?\n/)[0]!.trim();
  const chars = Array.from(first); // by code point: never split a surrogate pair
  const name = chars.length > 100 ? `${chars.slice(0, 99).join("").trimEnd()}…` : first;
  return { name, description: name === trimmed ? null : trimmed };
}

/** Totals a renderer must not paper over: a mismatch is a bug upstream, not a 422. */
export function assertReconciles(doc: IssuedDocument): void {
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const problems: string[] = [];
  const acs = doc.allowanceCharges ?? [];
  if (sum(doc.lines.map((l) => l.amountCents)) !== lineTotal(doc)) problems.push("line amounts ≠ line total (BR-CO-10)");
  if (sum(acs.filter((ac) => !ac.isCharge).map((ac) => ac.netCents)) !== (doc.allowanceCents ?? 0)) problems.push("allowances ≠ allowance total (BR-CO-11)");
  if (sum(acs.filter((ac) => ac.isCharge).map((ac) => ac.netCents)) !== (doc.chargeCents ?? 0)) problems.push("charges ≠ charge total (BR-CO-12)");
  if (lineTotal(doc) - (doc.allowanceCents ?? 0) + (doc.chargeCents ?? 0) !== doc.subtotalCents) problems.push("line total − allowances + charges ≠ subtotal (BR-CO-13)");
  if (sum(doc.vatGroups.map((g) => g.taxableCents)) !== doc.subtotalCents) problems.push("VAT breakdown taxable amounts ≠ subtotal");
  if (sum(doc.vatGroups.map((g) => g.vatCents)) !== doc.vatCents) problems.push("VAT breakdown ≠ VAT total (BR-CO-14)");
  if (doc.subtotalCents + doc.vatCents !== doc.totalCents) problems.push("subtotal + VAT ≠ total (BR-CO-15)");
  // what is due is what payments and credit allocation left (BR-CO-16 through PrepaidAmount above)
  if (doc.dueCents < 0 || doc.dueCents > doc.totalCents - doc.paidCents) problems.push("due outside 0 … total − paid (BR-CO-16)");
  if (problems.length > 0) throw new Error(`document ${doc.number} does not reconcile: ${problems.join("; ")}`);
}

// ---------------------------------------------------------------------------------------------
// Identifiers

export const present = (value: string | null | undefined): boolean => typeof value === "string" && value.trim() !== "";
export const digits = (value: string): string => value.replace(/\D/g, "");

/**
 * `<scheme>:<id>` split, when the scheme is on Peppol's EAS list (PEPPOL-EN16931-CL008). That list
 * has no e-mail scheme: "EM" was withdrawn, so a buyer without a Peppol id cannot be addressed,
 * whatever its e-mail.
 */
export function endpoint(peppolId: string): { scheme: string; id: string } | null {
  const m = /^\s*(\d{4}):(\S+)\s*$/.exec(peppolId);
  return m && isPeppolId(`${m[1]}:${m[2]}`) ? { scheme: m[1]!, id: m[2]! } : null;
}

/**
 * A party's electronic address (BT-34, BT-49) outside Peppol (CII, XRechnung): its Peppol id when
 * valid, else its e-mail address under the EAS scheme "EM", which EN 16931 and XRechnung accept.
 */
export function electronicAddress(p: DocumentParty): { scheme: string; id: string } | null {
  const ep = present(p.peppolId) ? endpoint(p.peppolId!) : null;
  if (ep && checkScheme(ep)) return ep;
  return present(p.email) ? { scheme: "EM", id: p.email!.trim() } : null;
}

/** The check digits Peppol verifies for a scheme (PEPPOL-COMMON-R040…R050), for the schemes Kontor's users meet. */
export function checkScheme({ scheme, id }: { scheme: string; id: string }): boolean {
  if (scheme === "0208") return isBelgianEnterpriseNumber(id);
  if (scheme === "0088") return /^\d+$/.test(id) && gln(id);
  return true;
}

function gln(id: string): boolean {
  const body = id.slice(0, -1);
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[body.length - 1 - i]) * (i % 2 === 0 ? 3 : 1);
  return (10 - (sum % 10)) % 10 === Number(id.at(-1));
}

const isVatPrefix = (prefix: string) => prefix === "EL" || prefix === "XI" || isCountryCode(prefix);

/**
 * The VAT identifier with its country prefix (BR-CO-09): "BE 0123.456.749" → "BE0123456749"; a
 * number stored without prefix takes the party's country's (Greece's is EL). Null when neither works.
 */
export function vatIdentifier(p: DocumentParty): string | null {
  if (!present(p.vatNumber)) return null;
  const compact = p.vatNumber!.replace(/[\s.\-/]/g, "").toUpperCase();
  // BR-CO-09: the prefix is an ISO 3166-1 alpha-2 code, with Greece's EL and Northern Ireland's XI
  if (/^[A-Z]{2}[0-9A-Z+*]{2,13}$/.test(compact)) return isVatPrefix(compact.slice(0, 2)) ? compact : null;
  const c = p.country?.trim().toUpperCase();
  if (/^[0-9A-Z+*]{2,13}$/.test(compact) && c && /^[A-Z]{2}$/.test(c)) return `${c === "GR" ? "EL" : c}${compact}`;
  return null;
}

/**
 * The ICD scheme of a party's legal registration number (BT-30 scheme), where one is certain: the
 * Peppol id's own scheme when it holds the same number, the Belgian enterprise number (0208) for a
 * Belgian party, the Dutch KVK number (0106) for a Dutch one (NL-R-003), the SIREN (0002) for a
 * French one. Else none, which EN 16931 allows.
 */
export function legalScheme(p: DocumentParty): string | null {
  if (!present(p.companyNumber)) return null;
  const number = digits(p.companyNumber!);
  const ep = p.peppolId ? endpoint(p.peppolId) : null;
  if (ep && ep.scheme.startsWith("0") && digits(ep.id) === number && number.length > 0) return ep.scheme;
  const c = p.country?.trim().toUpperCase();
  if (c === "BE" && (number.length === 10 || number.length === 9)) return "0208";
  if (c === "NL" && number.length === 8) return "0106";
  // a French SIREN (9 digits): the French e-invoicing rules want the seller's under 0002 (BR-FR-10)
  if (c === "FR" && number.length === 9) return "0002";
  return null;
}

/** BT-30 as written under its scheme: a Belgian enterprise number as 10 digits, a KVK number as 8, a SIREN as 9. */
export function legalId(p: DocumentParty): { scheme: string | null; id: string | null } {
  const scheme = legalScheme(p);
  const id = p.companyNumber && (scheme === "0208" ? digits(p.companyNumber).padStart(10, "0") : scheme === "0106" || scheme === "0002" ? digits(p.companyNumber) : p.companyNumber.trim());
  return { scheme, id: id || null };
}

/** The street lines of an address: the first is the street (BT-35), the second BT-36, the rest one line (BT-162). */
export function addressLines(p: DocumentParty): string[] {
  return (p.address ?? "").split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
}

/** Dates are ISO calendar dates (PEPPOL-EN16931-F001); a timestamp is cut to its date. */
export function date(value: string): string {
  const d = value.slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(d)) throw new Error(`not an ISO date: ${value}`);
  return d;
}

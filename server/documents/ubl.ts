/**
 * Peppol BIS Billing 3.0 (EN 16931 CIUS) as UBL 2.1: an `Invoice`, or a `CreditNote` for a credit
 * note. Takes an `IssuedDocument` and nothing else (no database, no clock), so a finalized
 * document renders to the same bytes every time.
 *
 * What EN 16931 or Peppol needs and the document lacks is answered by `missingForUbl` as field
 * errors (a 422 naming them); `renderUbl` refuses to write a file that would break a rule, never
 * an invalid file. The rule ids in comments (BR-…, PEPPOL-…) are those of the official rule files
 * the tests run (tests/einvoicing/).
 *
 * XML is written by a small builder below rather than a library: every text and attribute value
 * goes through `escapeText`/`escapeAttr`, elements without content are dropped (Peppol forbids
 * empty elements, PEPPOL-EN16931-R008), and the output is plain string joins, well under 1 ms for
 * a 20-line invoice.
 */
import { isCountryCode } from "../lib/iso-codes.ts";
import { ValidationFailed, type FieldErrors } from "../lib/errors.ts";
import { divRoundHalfUp, formatCents } from "../lib/money.ts";
import type { DocumentAllowanceCharge, DocumentLine, DocumentParty, DocumentVatGroup, IssuedDocument, VatCategory } from "./model.ts";
import { isBelgianEnterpriseNumber, isPeppolId } from "./peppol.ts";

export const UBL_CUSTOMIZATION_ID = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0";
export const UBL_PROFILE_ID = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0";

const NS = {
  Invoice: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
  CreditNote: "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2",
  cac: "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  cbc: "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
} as const;

/** Categories that carry a 0 % rate and need an exemption reason (BR-E-10, BR-AE-10, BR-IC-10, BR-G-10, BR-O-10). */
const EXEMPT: ReadonlySet<VatCategory> = new Set(["E", "AE", "K", "G", "O"]);
/** The reason code a category implies when the rate names none; E has no single one (VATEX-EU-132, -143, …). */
const DEFAULT_VATEX: Partial<Record<VatCategory, string>> = { AE: "VATEX-EU-AE", K: "VATEX-EU-IC", G: "VATEX-EU-G", O: "VATEX-EU-O" };

// ---------------------------------------------------------------------------------------------
// What the document lacks

/**
 * What EN 16931 / Peppol BIS 3.0 needs that the document does not have, as field errors for a 422:
 * `organization.*` for the seller, `customer.*` for the buyer, bare names for the invoice itself,
 * `vat_rates.*` for a rate's category data. Empty when the document can be rendered.
 */
export function missingForUbl(doc: IssuedDocument): FieldErrors {
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
  if (present(seller.companyNumber) && legalScheme(seller) === "0208" && !isBelgianEnterpriseNumber(digits(seller.companyNumber!).padStart(10, "0"))) {
    add("organization.company_number", "The organization's company number is not a valid Belgian enterprise number (PEPPOL-COMMON-R043).");
  }

  // a buyer reference or an order reference (PEPPOL-EN16931-R003)
  if (!present(doc.buyerReference) && !present(doc.orderReference)) {
    add("buyer_reference", "Peppol needs a buyer reference or an order reference on the invoice (PEPPOL-EN16931-R003).");
  }
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

// ---------------------------------------------------------------------------------------------
// Rendering

/**
 * The document as a Peppol BIS Billing 3.0 UBL 2.1 file. Throws `ValidationFailed` (422) with the
 * fields of `missingForUbl` when the document lacks what the rules need.
 */
export function renderUbl(doc: IssuedDocument): string {
  const missing = missingForUbl(doc);
  if (Object.keys(missing).length > 0) throw new ValidationFailed(missing);
  assertReconciles(doc);

  const credit = doc.type === "credit_note";
  const root = credit ? "CreditNote" : "Invoice";
  const cur = { currencyID: doc.currency };
  const money = (name: string, cents: number) => el(name, cur, formatCents(cents));
  const notSubject = doc.vatGroups.some((g) => g.category === "O");
  const dueDate = date(doc.dueDate);

  const body = [
    el("cbc:CustomizationID", null, UBL_CUSTOMIZATION_ID),
    el("cbc:ProfileID", null, UBL_PROFILE_ID),
    el("cbc:ID", null, doc.number),
    el("cbc:IssueDate", null, date(doc.issueDate)),
    // an Invoice has its own due date (BT-9); a CreditNote carries it in PaymentMeans
    credit ? null : el("cbc:DueDate", null, dueDate),
    // an interest note is a debit note (UNCL1001 383, which Peppol BIS 3.0 allows: PEPPOL-EN16931-P0100)
    el(credit ? "cbc:CreditNoteTypeCode" : "cbc:InvoiceTypeCode", null, credit ? "381" : doc.type === "interest_note" ? "383" : "380"),
    el("cbc:Note", null, doc.notes),
    el("cbc:DocumentCurrencyCode", null, doc.currency),
    el("cbc:BuyerReference", null, doc.buyerReference),
    doc.servicePeriod &&
      el("cac:InvoicePeriod", null, el("cbc:StartDate", null, date(doc.servicePeriod.start)), el("cbc:EndDate", null, date(doc.servicePeriod.end))),
    el("cac:OrderReference", null, el("cbc:ID", null, doc.orderReference)),
    doc.credited &&
      el(
        "cac:BillingReference",
        null,
        el("cac:InvoiceDocumentReference", null, el("cbc:ID", null, doc.credited.number), el("cbc:IssueDate", null, date(doc.credited.issueDate))),
      ),
    el("cac:AccountingSupplierParty", null, party(doc.seller, notSubject)),
    el("cac:AccountingCustomerParty", null, party(doc.buyer, notSubject)),
    // an intra-community supply states where and when the goods went (BR-IC-11, BR-IC-12); Kontor
    // records no separate delivery date, so the supply is dated on the invoice date
    doc.vatGroups.some((g) => g.category === "K") &&
      el(
        "cac:Delivery",
        null,
        el("cbc:ActualDeliveryDate", null, date(doc.issueDate)),
        el("cac:DeliveryLocation", null, el("cac:Address", null, country(doc.buyer.country))),
      ),
    doc.payee &&
      el(
        "cac:PaymentMeans",
        null,
        // SEPA credit transfer for euro, else a plain credit transfer (UNCL4461)
        el("cbc:PaymentMeansCode", null, doc.currency === "EUR" ? "58" : "30"),
        credit ? el("cbc:PaymentDueDate", null, dueDate) : null,
        el("cbc:PaymentID", null, doc.paymentReference),
        el(
          "cac:PayeeFinancialAccount",
          null,
          el("cbc:ID", null, doc.payee.iban.replace(/\s+/g, "").toUpperCase()),
          el("cbc:Name", null, doc.payee.accountName),
          doc.payee.bic ? el("cac:FinancialInstitutionBranch", null, el("cbc:ID", null, doc.payee.bic.replace(/\s+/g, "").toUpperCase())) : null,
        ),
      ),
    el("cac:PaymentTerms", null, el("cbc:Note", null, doc.paymentTerms)),
    ...(doc.allowanceCharges ?? []).map((ac) => documentAllowanceCharge(ac, !!doc.pricesIncludeVat, money)),
    el("cac:TaxTotal", null, money("cbc:TaxAmount", doc.vatCents), ...doc.vatGroups.map((g) => taxSubtotal(g, money))),
    el(
      "cac:LegalMonetaryTotal",
      null,
      money("cbc:LineExtensionAmount", lineTotal(doc)),
      money("cbc:TaxExclusiveAmount", doc.subtotalCents),
      money("cbc:TaxInclusiveAmount", doc.totalCents),
      // BT-107 and BT-108, when the document has any (BR-CO-11, BR-CO-12)
      doc.allowanceCharges?.some((ac) => !ac.isCharge) ? money("cbc:AllowanceTotalAmount", doc.allowanceCents ?? 0) : null,
      doc.allowanceCharges?.some((ac) => ac.isCharge) ? money("cbc:ChargeTotalAmount", doc.chargeCents ?? 0) : null,
      // BT-113: what was settled, by payments and by credit notes allocated to it (BR-CO-16: payable = total − prepaid)
      doc.totalCents !== doc.dueCents ? money("cbc:PrepaidAmount", doc.totalCents - doc.dueCents) : null,
      money("cbc:PayableAmount", doc.dueCents),
    ),
    ...doc.lines.map((line) => documentLine(line, credit, !!doc.pricesIncludeVat, money, doc.currency)),
  ];

  const rootEl = el(root, { xmlns: NS[root], "xmlns:cac": NS.cac, "xmlns:cbc": NS.cbc }, ...body)!;
  return `<?xml version="1.0" encoding="UTF-8"?>\n${rootEl.lines.join("\n")}\n`;
}

function party(p: DocumentParty, notSubject: boolean): Xml | null {
  const ep = endpoint(p.peppolId!)!;
  const lines = (p.address ?? "").split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const vat = notSubject ? null : vatIdentifier(p);
  const scheme = legalScheme(p);
  const companyId = p.companyNumber && (scheme === "0208" ? digits(p.companyNumber).padStart(10, "0") : scheme === "0106" ? digits(p.companyNumber) : p.companyNumber.trim());
  return el(
    "cac:Party",
    null,
    el("cbc:EndpointID", { schemeID: ep.scheme }, ep.id),
    el("cac:PartyName", null, el("cbc:Name", null, p.name)),
    el(
      "cac:PostalAddress",
      null,
      el("cbc:StreetName", null, lines[0]),
      el("cbc:AdditionalStreetName", null, lines[1]),
      el("cbc:CityName", null, p.city),
      el("cbc:PostalZone", null, p.postalCode),
      // Peppol allows one address line (BT-162): whatever is left over
      el("cac:AddressLine", null, el("cbc:Line", null, lines.slice(2).join(", "))),
      country(p.country),
    ),
    vat ? el("cac:PartyTaxScheme", null, el("cbc:CompanyID", null, vat), el("cac:TaxScheme", null, el("cbc:ID", null, "VAT"))) : null,
    el("cac:PartyLegalEntity", null, el("cbc:RegistrationName", null, p.name), el("cbc:CompanyID", scheme ? { schemeID: scheme } : null, companyId)),
    // the seller's contact is the invoice's "contact us"; the buyer's is where questions go
    el("cac:Contact", null, el("cbc:Telephone", null, p.phone), el("cbc:ElectronicMail", null, p.email)),
  );
}

function taxCategory(name: string, category: VatCategory, rateBp: number, reason?: { code: string | null; text: string | null }): Xml | null {
  return el(
    name,
    null,
    el("cbc:ID", null, category),
    // "not subject to VAT" has no rate at all (BR-O-05, BR-O-09)
    category === "O" ? null : el("cbc:Percent", null, formatCents(rateBp)),
    reason ? el("cbc:TaxExemptionReasonCode", null, reason.code) : null,
    reason ? el("cbc:TaxExemptionReason", null, reason.text) : null,
    el("cac:TaxScheme", null, el("cbc:ID", null, "VAT")),
  );
}

function taxSubtotal(g: DocumentVatGroup, money: (name: string, cents: number) => Xml | null): Xml | null {
  // S and Z must not carry a reason (BR-S-10, BR-Z-10); the others must (BR-E-10, BR-AE-10, …)
  const reason = EXEMPT.has(g.category)
    ? { code: present(g.exemptionReasonCode) ? g.exemptionReasonCode : present(g.exemptionReason) ? null : (DEFAULT_VATEX[g.category] ?? null), text: g.exemptionReason }
    : undefined;
  return el("cac:TaxSubtotal", null, money("cbc:TaxableAmount", g.taxableCents), money("cbc:TaxAmount", g.vatCents), taxCategory("cac:TaxCategory", g.category, g.rateBp, reason));
}

/** UNCL5189 95, "Discount": the reason code of a line discount (BR-42 wants a reason or a code; a reason given is added). */
const DISCOUNT_REASON_CODE = "95";

/** BT-106: the lines' net amounts (a document without allowances or charges: its subtotal). */
const lineTotal = (doc: IssuedDocument) => doc.lineTotalCents ?? doc.subtotalCents;

/** A rate in percent as EN 16931 writes it: 10.00 → "10", 12.50 → "12.5". */
const percentText = (bp: number) => formatCents(bp).replace(/\.?0+$/, "");

/**
 * A line's net figures for the UBL. With net prices they are the line's own: the unit price, its
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

function documentLine(
  line: DocumentLine,
  credit: boolean,
  pricesIncludeVat: boolean,
  money: (name: string, cents: number) => Xml | null,
  currency: string,
): Xml | null {
  // an item price is never negative (BR-27): a negative line is a negative quantity at a positive price
  const negativePrice = line.unitPriceCents < 0;
  const quantity = negativePrice ? -line.quantityCents : line.quantityCents;
  const { name, description } = itemName(line.description);
  const net = netLinePrice(line, pricesIncludeVat);
  const price = negativePrice ? formatCents(-line.unitPriceCents) : net.price;
  const discount = line.discount && net.discountCents > 0 ? line.discount : null;
  // a percentage and its base only where they are the net amount's (R040): with gross prices they are the gross one's
  const percent = discount?.percentBp && !pricesIncludeVat ? discount.percentBp : null;
  return el(
    credit ? "cac:CreditNoteLine" : "cac:InvoiceLine",
    null,
    el("cbc:ID", null, String(line.position)),
    el(credit ? "cbc:CreditedQuantity" : "cbc:InvoicedQuantity", { unitCode: line.unitCode }, formatCents(quantity)),
    money("cbc:LineExtensionAmount", line.amountCents),
    discount &&
      el(
        "cac:AllowanceCharge",
        null,
        el("cbc:ChargeIndicator", null, "false"),
        el("cbc:AllowanceChargeReasonCode", null, DISCOUNT_REASON_CODE),
        el("cbc:AllowanceChargeReason", null, discount.reason ?? "Discount"),
        percent ? el("cbc:MultiplierFactorNumeric", null, percentText(percent)) : null,
        money("cbc:Amount", net.discountCents),
        percent ? money("cbc:BaseAmount", net.baseCents) : null,
      ),
    el("cac:Item", null, el("cbc:Description", null, description), el("cbc:Name", null, name), taxCategory("cac:ClassifiedTaxCategory", line.vatCategory, line.vatRateBp)),
    el("cac:Price", null, el("cbc:PriceAmount", { currencyID: currency }, price)),
  );
}

/**
 * A document-level allowance or charge (BG-20, BG-21) with its VAT category (BR-32, BR-37) and
 * its net amount; its percentage and base only with net prices (with gross prices they are of
 * gross amounts, which EN 16931 does not carry).
 */
function documentAllowanceCharge(ac: DocumentAllowanceCharge, pricesIncludeVat: boolean, money: (name: string, cents: number) => Xml | null): Xml | null {
  const percent = ac.percentBp !== null && ac.baseCents !== null && !pricesIncludeVat;
  return el(
    "cac:AllowanceCharge",
    null,
    el("cbc:ChargeIndicator", null, ac.isCharge ? "true" : "false"),
    el("cbc:AllowanceChargeReasonCode", null, ac.reasonCode),
    el("cbc:AllowanceChargeReason", null, ac.reason),
    percent ? el("cbc:MultiplierFactorNumeric", null, percentText(ac.percentBp!)) : null,
    money("cbc:Amount", ac.netCents),
    percent ? money("cbc:BaseAmount", ac.baseCents!) : null,
    taxCategory("cac:TaxCategory", ac.vatCategory, ac.vatRateBp),
  );
}

/** Item name (BT-153) is the description's first line, cut at 100 characters; the full text, when longer, is the description (BT-154). */
function itemName(text: string): { name: string; description: string | null } {
  const trimmed = text.trim();
  const first = trimmed.split(/\r?\n/)[0]!.trim();
  const chars = Array.from(first); // by code point: never split a surrogate pair
  const name = chars.length > 100 ? `${chars.slice(0, 99).join("").trimEnd()}…` : first;
  return { name, description: name === trimmed ? null : trimmed };
}

function country(code: string | null): Xml | null {
  return el("cac:Country", null, el("cbc:IdentificationCode", null, code?.trim().toUpperCase()));
}

/** Totals a renderer must not paper over: a mismatch is a bug upstream, not a 422. */
function assertReconciles(doc: IssuedDocument): void {
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

const present = (value: string | null | undefined): boolean => typeof value === "string" && value.trim() !== "";
const digits = (value: string): string => value.replace(/\D/g, "");

/**
 * `<scheme>:<id>` split, when the scheme is on Peppol's EAS list (PEPPOL-EN16931-CL008). That list
 * has no e-mail scheme: "EM" was withdrawn, so a buyer without a Peppol id cannot be addressed,
 * whatever its e-mail.
 */
function endpoint(peppolId: string): { scheme: string; id: string } | null {
  const m = /^\s*(\d{4}):(\S+)\s*$/.exec(peppolId);
  return m && isPeppolId(`${m[1]}:${m[2]}`) ? { scheme: m[1]!, id: m[2]! } : null;
}

/** The check digits Peppol verifies for a scheme (PEPPOL-COMMON-R040…R050), for the schemes Kontor's users meet. */
function checkScheme({ scheme, id }: { scheme: string; id: string }): boolean {
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
function vatIdentifier(p: DocumentParty): string | null {
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
 * Belgian party, the Dutch KVK number (0106) for a Dutch one (NL-R-003). Else none, which EN 16931 allows.
 */
function legalScheme(p: DocumentParty): string | null {
  if (!present(p.companyNumber)) return null;
  const number = digits(p.companyNumber!);
  const ep = p.peppolId ? endpoint(p.peppolId) : null;
  if (ep && ep.scheme.startsWith("0") && digits(ep.id) === number && number.length > 0) return ep.scheme;
  const c = p.country?.trim().toUpperCase();
  if (c === "BE" && (number.length === 10 || number.length === 9)) return "0208";
  if (c === "NL" && number.length === 8) return "0106";
  return null;
}

// ---------------------------------------------------------------------------------------------
// XML

/** A rendered element: its lines, indented relative to itself. */
type Xml = { readonly lines: string[] };
type Child = Xml | string | null | undefined | false;

/**
 * One element. Text children are escaped; an element whose content is empty or only whitespace is
 * dropped (null), so optional data never yields an empty element (PEPPOL-EN16931-R008).
 */
function el(name: string, attrs: Record<string, string> | null, ...children: Child[]): Xml | null {
  const open = attrs ? `<${name}${Object.entries(attrs).map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join("")}>` : `<${name}>`;
  const kids = children.filter((c): c is Xml | string => c !== null && c !== undefined && c !== false);
  if (kids.length === 1 && typeof kids[0] === "string") {
    const text = kids[0].trim();
    return text === "" ? null : { lines: [`${open}${escapeText(text)}</${name}>`] };
  }
  const lines: string[] = [];
  for (const kid of kids) {
    if (typeof kid === "string") throw new Error(`mixed content in <${name}>`);
    for (const line of kid.lines) lines.push(`  ${line}`);
  }
  return lines.length === 0 ? null : { lines: [open, ...lines, `</${name}>`] };
}

/** Characters XML 1.0 cannot carry at all (C0 controls but tab/newline/return, lone surrogates, U+FFFE/F). */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function escapeText(value: string): string {
  return value.replace(NOT_XML, "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\r/g, "&#13;");
}

export function escapeAttr(value: string): string {
  return escapeText(value).replace(/"/g, "&quot;").replace(/\n/g, "&#10;").replace(/\t/g, "&#9;");
}

/** Dates are ISO calendar dates (PEPPOL-EN16931-F001); a timestamp is cut to its date. */
function date(value: string): string {
  const d = value.slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(d)) throw new Error(`not an ISO date: ${value}`);
  return d;
}

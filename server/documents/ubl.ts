/**
 * Peppol BIS Billing 3.0 (EN 16931 CIUS) as UBL 2.1: an `Invoice`, or a `CreditNote` for a credit
 * note. Takes an `IssuedDocument` and nothing else (no database, no clock), so a finalized
 * document renders to the same bytes every time.
 *
 * With `profile: "xrechnung"` it is the XRechnung 3.0 CIUS instead (KoSIT's, for German public
 * buyers): the same file with XRechnung's CustomizationID and what XRechnung needs.
 *
 * What EN 16931 (en16931.ts, shared with the CII) and Peppol or XRechnung need and the document
 * lacks is answered by `missingForUbl` as field errors (a 422 naming them); `renderUbl` refuses
 * to write a file that would break a rule, never an invalid file. The rule ids in comments
 * (BR-…, PEPPOL-…) are those of the official rule files the tests run (tests/einvoicing/).
 * XML is written by xml-writer.ts.
 */
import { ValidationFailed, type FieldErrors } from "../lib/errors.ts";
import { formatCents } from "../lib/money.ts";
import {
  addressLines,
  assertReconciles,
  date,
  DISCOUNT_REASON_CODE,
  electronicAddress,
  endpoint,
  exemptionOf,
  lineTerms,
  legalId,
  lineTotal,
  mergeFieldErrors,
  missingForEn16931,
  missingForPeppol,
  missingForXRechnung,
  percentText,
  vatIdentifier,
} from "./en16931.ts";
import type { DocumentAllowanceCharge, DocumentLine, DocumentParty, DocumentVatGroup, IssuedDocument, VatCategory } from "./model.ts";
import { el, xmlDocument, type Xml } from "./xml-writer.ts";

export const UBL_CUSTOMIZATION_ID = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0";
export const UBL_PROFILE_ID = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0";
/** XRechnung 3.0 (BR-DE-21), the same CustomizationID in UBL and CII */
export const XRECHNUNG_CUSTOMIZATION_ID = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0";

/** Which specification the UBL follows: Peppol BIS Billing 3.0 (the default) or XRechnung 3.0. */
export const UBL_PROFILES = ["peppol", "xrechnung"] as const;
export type UblProfile = (typeof UBL_PROFILES)[number];

const NS = {
  Invoice: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
  CreditNote: "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2",
  cac: "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  cbc: "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
} as const;

// ---------------------------------------------------------------------------------------------
// What the document lacks

/**
 * What the UBL needs that the document does not have, as field errors for a 422 (en16931.ts says
 * how they are named): EN 16931's, and Peppol's or XRechnung's. Empty when it can be rendered.
 */
export function missingForUbl(doc: IssuedDocument, profile: UblProfile = "peppol"): FieldErrors {
  return mergeFieldErrors(missingForEn16931(doc), profile === "xrechnung" ? missingForXRechnung(doc) : missingForPeppol(doc));
}

// ---------------------------------------------------------------------------------------------
// Rendering

/**
 * The document as a Peppol BIS Billing 3.0 UBL 2.1 file. Throws `ValidationFailed` (422) with the
 * fields of `missingForUbl` when the document lacks what the rules need.
 */
export function renderUbl(doc: IssuedDocument, profile: UblProfile = "peppol"): string {
  const missing = missingForUbl(doc, profile);
  if (Object.keys(missing).length > 0) throw new ValidationFailed(missing);
  assertReconciles(doc);

  const credit = doc.type === "credit_note";
  const root = credit ? "CreditNote" : "Invoice";
  const cur = { currencyID: doc.currency };
  const money = (name: string, cents: number) => el(name, cur, formatCents(cents));
  const notSubject = doc.vatGroups.some((g) => g.category === "O");
  const dueDate = date(doc.dueDate);
  const intraCommunity = doc.vatGroups.some((g) => g.category === "K");

  const body = [
    el("cbc:CustomizationID", null, profile === "xrechnung" ? XRECHNUNG_CUSTOMIZATION_ID : UBL_CUSTOMIZATION_ID),
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
    el("cac:AccountingSupplierParty", null, party(doc.seller, notSubject, profile)),
    el("cac:AccountingCustomerParty", null, party(doc.buyer, notSubject, profile)),
    // an intra-community supply states where and when the goods went (BR-IC-11, BR-IC-12): to the
    // buyer's address, all of it that is known (XRechnung wants its city and post code, BR-DE-10 and
    // BR-DE-11), on the date of supply (BT-72), else the invoice date; any document with a date of
    // supply states it (a German seller's Leistungsdatum)
    (intraCommunity || doc.deliveryDate) &&
      el(
        "cac:Delivery",
        null,
        el("cbc:ActualDeliveryDate", null, date(doc.deliveryDate ?? doc.issueDate)),
        intraCommunity ? el("cac:DeliveryLocation", null, el("cac:Address", null, ...addressOf(doc.buyer))) : null,
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

  return xmlDocument(el(root, { xmlns: NS[root], "xmlns:cac": NS.cac, "xmlns:cbc": NS.cbc }, ...body));
}

function party(p: DocumentParty, notSubject: boolean, profile: UblProfile): Xml | null {
  // Peppol delivers to the Peppol id; XRechnung also takes an e-mail address
  const ep = profile === "xrechnung" ? electronicAddress(p)! : endpoint(p.peppolId!)!;
  const vat = notSubject ? null : vatIdentifier(p);
  const { scheme, id: companyId } = legalId(p);
  return el(
    "cac:Party",
    null,
    el("cbc:EndpointID", { schemeID: ep.scheme }, ep.id),
    el("cac:PartyName", null, el("cbc:Name", null, p.name)),
    el("cac:PostalAddress", null, ...addressOf(p)),
    vat ? el("cac:PartyTaxScheme", null, el("cbc:CompanyID", null, vat), el("cac:TaxScheme", null, el("cbc:ID", null, "VAT"))) : null,
    el("cac:PartyLegalEntity", null, el("cbc:RegistrationName", null, p.name), el("cbc:CompanyID", scheme ? { schemeID: scheme } : null, companyId)),
    // the seller's contact is the invoice's "contact us"; the buyer's is where questions go
    el("cac:Contact", null, el("cbc:Name", null, p.contactName), el("cbc:Telephone", null, p.phone), el("cbc:ElectronicMail", null, p.email)),
  );
}

/** A party's address as UBL writes it (a postal address, or the delivery location's address). */
function addressOf(p: DocumentParty): (Xml | null)[] {
  const lines = addressLines(p);
  return [
    el("cbc:StreetName", null, lines[0]),
    el("cbc:AdditionalStreetName", null, lines[1]),
    el("cbc:CityName", null, p.city),
    el("cbc:PostalZone", null, p.postalCode),
    // Peppol allows one address line (BT-162): whatever is left over
    el("cac:AddressLine", null, el("cbc:Line", null, lines.slice(2).join(", "))),
    country(p.country),
  ];
}

/**
 * A tax category: of the VAT breakdown (`cac:TaxCategory` of a TaxSubtotal, with its exemption
 * reason) or of a line, an allowance or a charge. "Not subject to VAT" has no rate on a line, an
 * allowance or a charge (BR-O-05 to BR-O-07); its breakdown states 0.00, which XRechnung requires
 * of every breakdown (BR-DE-14) and EN 16931 allows.
 */
function taxCategory(name: string, category: VatCategory, rateBp: number, breakdown?: { reason: { code: string | null; text: string | null } | null }): Xml | null {
  const reason = breakdown?.reason;
  const percent = category !== "O" || breakdown !== undefined;
  return el(
    name,
    null,
    el("cbc:ID", null, category),
    percent ? el("cbc:Percent", null, formatCents(rateBp)) : null,
    reason ? el("cbc:TaxExemptionReasonCode", null, reason.code) : null,
    reason ? el("cbc:TaxExemptionReason", null, reason.text) : null,
    el("cac:TaxScheme", null, el("cbc:ID", null, "VAT")),
  );
}

function taxSubtotal(g: DocumentVatGroup, money: (name: string, cents: number) => Xml | null): Xml | null {
  return el("cac:TaxSubtotal", null, money("cbc:TaxableAmount", g.taxableCents), money("cbc:TaxAmount", g.vatCents), taxCategory("cac:TaxCategory", g.category, g.rateBp, { reason: exemptionOf(g) }));
}

function documentLine(
  line: DocumentLine,
  credit: boolean,
  pricesIncludeVat: boolean,
  money: (name: string, cents: number) => Xml | null,
  currency: string,
): Xml | null {
  const { quantity, name, description, net, price, discount, percent } = lineTerms(line, pricesIncludeVat);
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

function country(code: string | null): Xml | null {
  return el("cac:Country", null, el("cbc:IdentificationCode", null, code?.trim().toUpperCase()));
}

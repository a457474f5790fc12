/**
 * The same document as ubl.ts writes, in the other syntax EN 16931 allows: a UN/CEFACT Cross
 * Industry Invoice (CII D16B), EN 16931 profile (guideline `urn:cen.eu:en16931:2017`, which is
 * also Factur-X's and ZUGFeRD's "EN 16931" profile), type 380 for an invoice and 381 for a credit
 * note. With `profile: "xrechnung"` it is the XRechnung 3.0 CIUS (KoSIT's, for German public
 * buyers). Takes an `IssuedDocument` and nothing else, so a finalized document renders to the
 * same bytes every time.
 *
 * What it says is decided once, in en16931.ts (the readiness rules, net prices with VAT-inclusive
 * pricing, identifiers, exemption reasons): the two syntaxes differ only in where they write it.
 * The element order is the CII D16B schema's; the rule ids in comments (BR-…, BR-DE-…) are those of
 * the official rule files the tests run (tests/einvoicing/).
 */
import { ValidationFailed, type FieldErrors } from "../lib/errors.ts";
import { formatCents } from "../lib/money.ts";
import {
  addressLines,
  assertReconciles,
  date,
  DISCOUNT_REASON_CODE,
  electronicAddress,
  exemptionOf,
  lineTerms,
  legalId,
  lineTotal,
  mergeFieldErrors,
  missingForEn16931,
  missingForXRechnung,
  percentText,
  vatIdentifier,
} from "./en16931.ts";
import type { DocumentAllowanceCharge, DocumentLine, DocumentParty, DocumentVatGroup, IssuedDocument, VatCategory } from "./model.ts";
import { XRECHNUNG_CUSTOMIZATION_ID } from "./ubl.ts";
import { el, required, xmlDocument, type Xml } from "./xml-writer.ts";
import { fixedMentions, fixedMentionText, frenchBillingMode } from "./legal-mentions.ts";

/** BT-24 of a plain EN 16931 invoice: Factur-X's and ZUGFeRD's EN 16931 profile too. */
export const CII_GUIDELINE_ID = "urn:cen.eu:en16931:2017";
/** BT-23, the business process: Peppol's billing process, which XRechnung names too. */
const BUSINESS_PROCESS_ID = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0";

/** Which specification the CII follows: plain EN 16931 (the default) or XRechnung 3.0. */
export const CII_PROFILES = ["en16931", "xrechnung"] as const;
export type CiiProfile = (typeof CII_PROFILES)[number];

const NS = {
  rsm: "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
  ram: "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
  qdt: "urn:un:unece:uncefact:data:standard:QualifiedDataType:100",
  udt: "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
} as const;

/** What the CII needs that the document does not have: EN 16931's, and XRechnung's for that profile. CII adds nothing of its own. */
export function missingForCii(doc: IssuedDocument, profile: CiiProfile = "en16931"): FieldErrors {
  return mergeFieldErrors(missingForEn16931(doc), profile === "xrechnung" ? missingForXRechnung(doc) : {});
}

type Money = (name: string, cents: number) => Xml | null;

/**
 * The document as a CII D16B file. Throws `ValidationFailed` (422) with the fields of
 * `missingForCii` when the document lacks what the rules need.
 */
export function renderCii(doc: IssuedDocument, profile: CiiProfile = "en16931"): string {
  const missing = missingForCii(doc, profile);
  if (Object.keys(missing).length > 0) throw new ValidationFailed(missing);
  assertReconciles(doc);

  const credit = doc.type === "credit_note";
  const money: Money = (name, cents) => el(name, null, formatCents(cents));
  const notSubject = doc.vatGroups.some((g) => g.category === "O");
  const gross = !!doc.pricesIncludeVat;
  const acs = doc.allowanceCharges ?? [];

  // a French seller's CII states its billing mode in BT-23 (the French rules' BR-FR-08), and its
  // legal mentions as notes with their subject codes (BR-FR-05): PMD, PMT, AAB (legal-mentions.ts)
  const french = profile === "en16931" && doc.seller.country?.toUpperCase() === "FR";
  const businessProcess = profile === "xrechnung" ? BUSINESS_PROCESS_ID : french ? frenchBillingMode(doc) : null;
  const context = el(
    "rsm:ExchangedDocumentContext",
    null,
    businessProcess ? el("ram:BusinessProcessSpecifiedDocumentContextParameter", null, el("ram:ID", null, businessProcess)) : null,
    el("ram:GuidelineSpecifiedDocumentContextParameter", null, el("ram:ID", null, profile === "xrechnung" ? XRECHNUNG_CUSTOMIZATION_ID : CII_GUIDELINE_ID)),
  );
  const header = el(
    "rsm:ExchangedDocument",
    null,
    el("ram:ID", null, doc.number),
    el("ram:TypeCode", null, credit ? "381" : "380"),
    el("ram:IssueDateTime", null, dateTime("udt", doc.issueDate)),
    el("ram:IncludedNote", null, el("ram:Content", null, doc.notes)),
    ...(french ? fixedMentions(doc.seller) : []).map((code) =>
      el("ram:IncludedNote", null, el("ram:Content", null, fixedMentionText(code, doc.seller, doc.language)), el("ram:SubjectCode", null, code)),
    ),
  );

  const agreement = el(
    "ram:ApplicableHeaderTradeAgreement",
    null,
    el("ram:BuyerReference", null, doc.buyerReference),
    el("ram:SellerTradeParty", null, ...party(doc.seller, notSubject)),
    el("ram:BuyerTradeParty", null, ...party(doc.buyer, notSubject)),
    el("ram:BuyerOrderReferencedDocument", null, el("ram:IssuerAssignedID", null, doc.orderReference)),
  );
  // required by the schema even when empty; an intra-community supply states where and when the
  // goods went (BR-IC-11, BR-IC-12): to the buyer's address, all of it that is known (XRechnung wants
  // its city and post code, BR-DE-10 and BR-DE-11), dated on the date of supply (BT-72), else the
  // invoice date, as the UBL does; any document with a date of supply states it (a German seller's
  // Leistungsdatum)
  const intraCommunity = doc.vatGroups.some((g) => g.category === "K");
  const supplied = doc.deliveryDate ?? (intraCommunity ? doc.issueDate : null);
  const delivery = required(
    "ram:ApplicableHeaderTradeDelivery",
    intraCommunity && el("ram:ShipToTradeParty", null, postalTradeAddress(doc.buyer)),
    supplied && el("ram:ActualDeliverySupplyChainEvent", null, el("ram:OccurrenceDateTime", null, dateTime("udt", supplied))),
  );

  const settlement = el(
    "ram:ApplicableHeaderTradeSettlement",
    null,
    el("ram:PaymentReference", null, doc.paymentReference),
    el("ram:InvoiceCurrencyCode", null, doc.currency),
    doc.payee &&
      el(
        "ram:SpecifiedTradeSettlementPaymentMeans",
        null,
        // SEPA credit transfer for euro, else a plain credit transfer (UNCL4461)
        el("ram:TypeCode", null, doc.currency === "EUR" ? "58" : "30"),
        el(
          "ram:PayeePartyCreditorFinancialAccount",
          null,
          el("ram:IBANID", null, doc.payee.iban.replace(/\s+/g, "").toUpperCase()),
          el("ram:AccountName", null, doc.payee.accountName),
        ),
        doc.payee.bic ? el("ram:PayeeSpecifiedCreditorFinancialInstitution", null, el("ram:BICID", null, doc.payee.bic.replace(/\s+/g, "").toUpperCase())) : null,
      ),
    ...doc.vatGroups.map((g) => vatBreakdown(g, money)),
    // BG-14, the service the document bills (a recurring invoice's period), as the UBL's InvoicePeriod
    doc.servicePeriod &&
      el("ram:BillingSpecifiedPeriod", null, el("ram:StartDateTime", null, dateTime("udt", doc.servicePeriod.start)), el("ram:EndDateTime", null, dateTime("udt", doc.servicePeriod.end))),
    ...acs.map((ac) => documentAllowanceCharge(ac, gross, money)),
    el("ram:SpecifiedTradePaymentTerms", null, el("ram:Description", null, doc.paymentTerms), el("ram:DueDateDateTime", null, dateTime("udt", doc.dueDate))),
    el(
      "ram:SpecifiedTradeSettlementHeaderMonetarySummation",
      null,
      money("ram:LineTotalAmount", lineTotal(doc)),
      // BT-108 and BT-107, when the document has any (BR-CO-11, BR-CO-12)
      acs.some((ac) => ac.isCharge) ? money("ram:ChargeTotalAmount", doc.chargeCents ?? 0) : null,
      acs.some((ac) => !ac.isCharge) ? money("ram:AllowanceTotalAmount", doc.allowanceCents ?? 0) : null,
      money("ram:TaxBasisTotalAmount", doc.subtotalCents),
      // the VAT total carries its currency (BR-CO-14's amount in the document currency)
      el("ram:TaxTotalAmount", { currencyID: doc.currency }, formatCents(doc.vatCents)),
      money("ram:GrandTotalAmount", doc.totalCents),
      // BT-113: what payments and allocated credit notes settled (BR-CO-16: due = total − prepaid)
      doc.totalCents !== doc.dueCents ? money("ram:TotalPrepaidAmount", doc.totalCents - doc.dueCents) : null,
      money("ram:DuePayableAmount", doc.dueCents),
    ),
    doc.credited &&
      el(
        "ram:InvoiceReferencedDocument",
        null,
        el("ram:IssuerAssignedID", null, doc.credited.number),
        el("ram:FormattedIssueDateTime", null, dateTime("qdt", doc.credited.issueDate)),
      ),
  );

  const transaction = el(
    "rsm:SupplyChainTradeTransaction",
    null,
    ...doc.lines.map((line) => documentLine(line, gross, money)),
    agreement,
    delivery,
    settlement,
  );
  return xmlDocument(
    el("rsm:CrossIndustryInvoice", { "xmlns:rsm": NS.rsm, "xmlns:qdt": NS.qdt, "xmlns:ram": NS.ram, "xmlns:udt": NS.udt }, context, header, transaction),
  );
}

/** A date as CII writes it: `<udt:DateTimeString format="102">20260302</…>` (or qdt:, for a referenced document's date). */
function dateTime(prefix: "udt" | "qdt", value: string): Xml | null {
  return el(`${prefix}:DateTimeString`, { format: "102" }, date(value).replace(/-/g, ""));
}

/** A trade party's children (BG-4, BG-7): name, legal registration, contact, address, electronic address, VAT identifier. */
/** A party's address as CII writes it (its own, or where the goods were delivered). */
function postalTradeAddress(p: DocumentParty): Xml | null {
  const lines = addressLines(p);
  return el(
    "ram:PostalTradeAddress",
    null,
    el("ram:PostcodeCode", null, p.postalCode),
    el("ram:LineOne", null, lines[0]),
    el("ram:LineTwo", null, lines[1]),
    el("ram:LineThree", null, lines.slice(2).join(", ")),
    el("ram:CityName", null, p.city),
    el("ram:CountryID", null, p.country?.trim().toUpperCase()),
  );
}

function party(p: DocumentParty, notSubject: boolean): (Xml | null)[] {
  const vat = notSubject ? null : vatIdentifier(p);
  const legal = legalId(p);
  const address = electronicAddress(p);
  return [
    el("ram:Name", null, p.name),
    el("ram:SpecifiedLegalOrganization", null, el("ram:ID", legal.scheme ? { schemeID: legal.scheme } : null, legal.id)),
    el(
      "ram:DefinedTradeContact",
      null,
      el("ram:PersonName", null, p.contactName),
      el("ram:TelephoneUniversalCommunication", null, el("ram:CompleteNumber", null, p.phone)),
      el("ram:EmailURIUniversalCommunication", null, el("ram:URIID", null, p.email)),
    ),
    postalTradeAddress(p),
    address && el("ram:URIUniversalCommunication", null, el("ram:URIID", { schemeID: address.scheme }, address.id)),
    vat ? el("ram:SpecifiedTaxRegistration", null, el("ram:ID", { schemeID: "VA" }, vat)) : null,
  ];
}

/** A line's or an allowance's VAT: type, category and (but for "not subject to VAT", BR-O-05) rate. */
function tradeTax(name: string, category: VatCategory, rateBp: number): Xml | null {
  return el(name, null, el("ram:TypeCode", null, "VAT"), el("ram:CategoryCode", null, category), category === "O" ? null : el("ram:RateApplicablePercent", null, formatCents(rateBp)));
}

/** A row of the VAT breakdown (BG-23); its rate always, 0 for "not subject to VAT" (XRechnung's BR-DE-14 wants it there). */
function vatBreakdown(g: DocumentVatGroup, money: Money): Xml | null {
  const reason = exemptionOf(g);
  return el(
    "ram:ApplicableTradeTax",
    null,
    money("ram:CalculatedAmount", g.vatCents),
    el("ram:TypeCode", null, "VAT"),
    el("ram:ExemptionReason", null, reason?.text),
    money("ram:BasisAmount", g.taxableCents),
    el("ram:CategoryCode", null, g.category),
    el("ram:ExemptionReasonCode", null, reason?.code),
    el("ram:RateApplicablePercent", null, formatCents(g.rateBp)),
  );
}

/** A line (BG-25): its net price, quantity, VAT, discount and net amount, as the UBL's (en16931.ts netLinePrice). */
function documentLine(line: DocumentLine, pricesIncludeVat: boolean, money: Money): Xml | null {
  const { quantity, name, description, net, price, discount, percent } = lineTerms(line, pricesIncludeVat);
  return el(
    "ram:IncludedSupplyChainTradeLineItem",
    null,
    el("ram:AssociatedDocumentLineDocument", null, el("ram:LineID", null, String(line.position))),
    el("ram:SpecifiedTradeProduct", null, el("ram:Name", null, name), el("ram:Description", null, description)),
    el("ram:SpecifiedLineTradeAgreement", null, el("ram:NetPriceProductTradePrice", null, el("ram:ChargeAmount", null, price))),
    el("ram:SpecifiedLineTradeDelivery", null, el("ram:BilledQuantity", { unitCode: line.unitCode }, formatCents(quantity))),
    el(
      "ram:SpecifiedLineTradeSettlement",
      null,
      tradeTax("ram:ApplicableTradeTax", line.vatCategory, line.vatRateBp),
      discount &&
        el(
          "ram:SpecifiedTradeAllowanceCharge",
          null,
          el("ram:ChargeIndicator", null, el("udt:Indicator", null, "false")),
          percent ? el("ram:CalculationPercent", null, percentText(percent)) : null,
          percent ? money("ram:BasisAmount", net.baseCents) : null,
          money("ram:ActualAmount", net.discountCents),
          el("ram:ReasonCode", null, DISCOUNT_REASON_CODE),
          el("ram:Reason", null, discount.reason ?? "Discount"),
        ),
      el("ram:SpecifiedTradeSettlementLineMonetarySummation", null, money("ram:LineTotalAmount", line.amountCents)),
    ),
  );
}

/** A document-level allowance or charge (BG-20, BG-21), its percentage and base only with net prices (as the UBL's). */
function documentAllowanceCharge(ac: DocumentAllowanceCharge, pricesIncludeVat: boolean, money: Money): Xml | null {
  const percent = ac.percentBp !== null && ac.baseCents !== null && !pricesIncludeVat;
  return el(
    "ram:SpecifiedTradeAllowanceCharge",
    null,
    el("ram:ChargeIndicator", null, el("udt:Indicator", null, ac.isCharge ? "true" : "false")),
    percent ? el("ram:CalculationPercent", null, percentText(ac.percentBp!)) : null,
    percent ? money("ram:BasisAmount", ac.baseCents!) : null,
    money("ram:ActualAmount", ac.netCents),
    el("ram:ReasonCode", null, ac.reasonCode),
    el("ram:Reason", null, ac.reason),
    tradeTax("ram:CategoryTradeTax", ac.vatCategory, ac.vatRateBp),
  );
}

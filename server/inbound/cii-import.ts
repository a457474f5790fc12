/**
 * Reads a supplier's UN/CEFACT Cross Industry Invoice (CII D16B: EN 16931, XRechnung, the XML of a
 * Factur-X / ZUGFeRD PDF from the BASIC profile up) into the same reader model as a UBL document
 * (einvoice-model.ts), with the same totals check and the same text and amount rules (ubl-import.ts
 * `plain`, `documentAmount`). It only maps CII's elements to EN 16931's terms. Pure: no database,
 * no HTTP; every refusal is an InboundDocumentError naming the element and saying why.
 */
import { isCountryCode, isCurrencyCode } from "../lib/iso-codes.ts";
import { isValidDate } from "../lib/time.ts";
import { addDecimals, parseDecimal, percentToBasisPoints, roundHalfUpCents } from "./decimal.ts";
import { checkTotals, EN16931_PREFIX, type Located, type SupplierAddress, type SupplierDocument, type SupplierDocumentLine } from "./einvoice-model.ts";
import { InboundDocumentError } from "./errors.ts";
import { checkImportedCount, MAX_IMPORTED_LINES, MAX_IMPORTED_VAT_ROWS, type ImportedTerm } from "./import-limits.ts";
import { documentAmount, plain } from "./ubl-import.ts";
import { Lookup, type XmlElement } from "./xml.ts";

export const CII_NS = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100";
const cii = new Lookup({
  rsm: CII_NS,
  ram: "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
  udt: "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
  qdt: "urn:un:unece:uncefact:data:standard:QualifiedDataType:100",
});

/** UNTDID 1001 codes of credit notes (BT-3); every other code is an invoice (380, 384 corrective, 389 self-billed, 751, …). */
const CREDIT_NOTE_CODES = new Set(["81", "83", "261", "262", "296", "308", "381", "396", "420", "458", "532"]);

/** The Factur-X / ZUGFeRD 2.x profiles below EN 16931 (no invoice lines), by their BT-24 identifiers. */
const LINELESS_PROFILES = [
  { name: "MINIMUM", pattern: /^urn:(factur-x\.eu:1p0|zugferd\.de:2p0):minimum$/i, what: "carries only the totals (no lines, no VAT breakdown per line)" },
  { name: "BASIC WL", pattern: /^urn:(factur-x\.eu:1p0|zugferd\.de:2p0):basicwl$/i, what: "carries no invoice lines" },
];

const ROOT = "/rsm:CrossIndustryInvoice";
const TX = `${ROOT}/rsm:SupplyChainTradeTransaction`;
const AGREEMENT = `${TX}/ram:ApplicableHeaderTradeAgreement`;
const SETTLEMENT = `${TX}/ram:ApplicableHeaderTradeSettlement`;
const SUMMATION = `${SETTLEMENT}/ram:SpecifiedTradeSettlementHeaderMonetarySummation`;

export function readCiiDocument(root: XmlElement): SupplierDocument {
  if (root.ns !== CII_NS || root.name !== "CrossIndustryInvoice") throw new InboundDocumentError(`/${root.name}`, `The root element is ${root.name}, not a CII CrossIndustryInvoice.`);
  const guidelinePath = "rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID";
  const guideline = cii.text(root, guidelinePath);
  if (guideline === null) throw new InboundDocumentError(`${ROOT}/${guidelinePath}`, "The document names no specification (BT-24, GuidelineSpecifiedDocumentContextParameter); an EN 16931 document names it there.");
  if (!guideline.startsWith(EN16931_PREFIX)) {
    const profile = LINELESS_PROFILES.find((p) => p.pattern.test(guideline));
    if (profile) {
      throw new InboundDocumentError(
        `${ROOT}/${guidelinePath}`,
        `The document is a Factur-X / ZUGFeRD ${profile.name} profile file ('${guideline}', BT-24): that profile ${profile.what} and is not an EN 16931 invoice, so it is not supported. ` +
          "Kontor imports CII of the BASIC, EN 16931 (COMFORT), EXTENDED and XRechnung profiles.",
      );
    }
    throw new InboundDocumentError(
      `${ROOT}/${guidelinePath}`,
      `The specification '${guideline}' (BT-24) is not EN 16931 (it must start with '${EN16931_PREFIX}').`,
    );
  }

  const number = plain(required(root, "rsm:ExchangedDocument/ram:ID"), `${ROOT}/rsm:ExchangedDocument/ram:ID`, "BT-1");
  const typeCode = required(root, "rsm:ExchangedDocument/ram:TypeCode");
  const type = CREDIT_NOTE_CODES.has(typeCode) ? "credit_note" : "invoice";
  const issueDate = date(root, "rsm:ExchangedDocument/ram:IssueDateTime/udt:DateTimeString", true)!;
  const tx = cii.one(root, "rsm:SupplyChainTradeTransaction");
  if (!tx) throw new InboundDocumentError(TX, "The document has no SupplyChainTradeTransaction.");
  const agreement = cii.one(tx, "ram:ApplicableHeaderTradeAgreement");
  if (!agreement) throw new InboundDocumentError(AGREEMENT, "The document has no ApplicableHeaderTradeAgreement.");
  const settlement = cii.one(tx, "ram:ApplicableHeaderTradeSettlement");
  if (!settlement) throw new InboundDocumentError(SETTLEMENT, "The document has no ApplicableHeaderTradeSettlement.");

  const currency = required(settlement, "ram:InvoiceCurrencyCode", SETTLEMENT);
  if (!isCurrencyCode(currency)) {
    throw new InboundDocumentError(`${SETTLEMENT}/ram:InvoiceCurrencyCode`, `The currency '${currency}' (BT-5) is not an ISO 4217 currency code that EN 16931 accepts (BR-CL-04).`);
  }
  const dueDate = date(settlement, "ram:SpecifiedTradePaymentTerms/ram:DueDateDateTime/udt:DateTimeString", false, SETTLEMENT);

  const summation = cii.one(settlement, "ram:SpecifiedTradeSettlementHeaderMonetarySummation");
  if (!summation) throw new InboundDocumentError(SUMMATION, "The document has no SpecifiedTradeSettlementHeaderMonetarySummation.");
  const located = (name: string): Located => ({ path: `${SUMMATION}/ram:${name}`, name });
  const total = (name: string, needed: boolean): number => {
    const el = cii.one(summation, `ram:${name}`);
    if (el === null && needed) throw new InboundDocumentError(located(name).path, `The document has no ${name}.`);
    return el === null ? 0 : documentAmount(el, located(name).path, currency);
  };
  const lineTotal = total("LineTotalAmount", true);
  const subtotal = total("TaxBasisTotalAmount", true);
  const grandTotal = total("GrandTotalAmount", true);
  const allowances = total("AllowanceTotalAmount", false);
  const charges = total("ChargeTotalAmount", false);
  const prepaid = total("TotalPrepaidAmount", false);
  const rounding = total("RoundingAmount", false);
  const payable = total("DuePayableAmount", true);
  // BT-110 in the document currency; a second TaxTotalAmount may give the VAT in the tax currency (BT-111)
  const vatEl = cii.all(summation, "ram:TaxTotalAmount").find((el) => (el.attrs.currencyID?.trim() ?? currency) === currency) ?? null;
  const vat = vatEl === null ? 0 : documentAmount(vatEl, located("TaxTotalAmount").path, currency);

  const lines = readLines(tx, currency);
  const linesSum = roundHalfUpCents(addDecimals(lines.map((l) => l.exact)));
  if (linesSum === null) throw new InboundDocumentError(located("LineTotalAmount").path, "The sum of the line amounts is too large.");

  const taxes = cii.all(settlement, "ram:ApplicableTradeTax");
  if (taxes.length === 0) throw new InboundDocumentError(`${SETTLEMENT}/ram:ApplicableTradeTax`, "The document has no ApplicableTradeTax (VAT breakdown).");
  checkImportedCount(taxes.length, MAX_IMPORTED_VAT_ROWS, `${SETTLEMENT}/ram:ApplicableTradeTax`, "ApplicableTradeTaxes (VAT breakdown, BG-23)");
  const vatBreakdown = taxes.map((tax, i) => {
    const path = `${SETTLEMENT}/ram:ApplicableTradeTax[${i + 1}]`;
    const category = cii.text(tax, "ram:CategoryCode");
    if (category === null) throw new InboundDocumentError(`${path}/ram:CategoryCode`, "An ApplicableTradeTax has no VAT category.");
    const percent = cii.text(tax, "ram:RateApplicablePercent");
    const rateBp = percent === null ? null : percentToBasisPoints(percent);
    if (percent !== null && rateBp === null) throw new InboundDocumentError(`${path}/ram:RateApplicablePercent`, `The VAT rate '${percent}' is not a percentage with at most 2 decimals.`);
    const amount = (name: string) => {
      const el = cii.one(tax, `ram:${name}`);
      if (el === null) throw new InboundDocumentError(`${path}/ram:${name}`, `An ApplicableTradeTax has no ${name}.`);
      return documentAmount(el, `${path}/ram:${name}`, currency);
    };
    return { category, rateBp, baseCents: amount("BasisAmount"), vatCents: amount("CalculatedAmount") };
  });
  checkTotals(
    {
      linesSum,
      lineCount: lines.length,
      lineTotal,
      allowances,
      charges,
      subtotal,
      vat,
      total: grandTotal,
      prepaid,
      rounding,
      payable,
      breakdownVat: vatBreakdown.reduce((sum, b) => sum + b.vatCents, 0),
    },
    {
      lines: "line LineTotalAmounts",
      lineTotal: located("LineTotalAmount"),
      allowances: located("AllowanceTotalAmount"),
      charges: located("ChargeTotalAmount"),
      subtotal: located("TaxBasisTotalAmount"),
      vat: located("TaxTotalAmount"),
      total: located("GrandTotalAmount"),
      prepaid: located("TotalPrepaidAmount"),
      rounding: located("RoundingAmount"),
      payable: located("DuePayableAmount"),
      breakdownVat: "ApplicableTradeTax CalculatedAmounts",
    },
    guideline,
  );

  const seller = cii.one(agreement, "ram:SellerTradeParty");
  if (!seller) throw new InboundDocumentError(`${AGREEMENT}/ram:SellerTradeParty`, "The document names no seller (SellerTradeParty).");
  const buyer = cii.one(agreement, "ram:BuyerTradeParty");
  if (!buyer) throw new InboundDocumentError(`${AGREEMENT}/ram:BuyerTradeParty`, "The document names no buyer (BuyerTradeParty).");
  const sellerPath = `${AGREEMENT}/ram:SellerTradeParty`;
  const optional = (value: string | null, path: string, term: ImportedTerm) => (value === null ? null : plain(value, path, term));
  const endpoint = cii.one(seller, "ram:URIUniversalCommunication/ram:URIID");
  const endpointValue = endpoint?.text.trim() || null;
  const legal = cii.one(seller, "ram:SpecifiedLegalOrganization/ram:ID");
  const means = cii.all(settlement, "ram:SpecifiedTradeSettlementPaymentMeans");
  const iban = means.map((m) => cii.text(m, "ram:PayeePartyCreditorFinancialAccount/ram:IBANID")).find((v) => v !== null) ?? null;

  return {
    type,
    number,
    issueDate,
    dueDate,
    currency,
    supplier: {
      name: plain(partyName(seller, sellerPath), `${sellerPath}/ram:Name`, "BT-27"),
      // as written, even with wrong check digits: a supplier is created with it only when it is valid
      vatNumber: optional(vatNumber(seller), `${sellerPath}/ram:SpecifiedTaxRegistration/ram:ID`, "BT-31"),
      endpoint: endpointValue === null ? null : { scheme: endpoint?.attrs.schemeID?.trim() || null, id: plain(endpointValue, `${sellerPath}/ram:URIUniversalCommunication/ram:URIID`, "BT-34") },
      companyId: optional(legal?.text.trim() || null, `${sellerPath}/ram:SpecifiedLegalOrganization/ram:ID`, "BT-30"),
      companyIdScheme: legal?.attrs.schemeID?.trim() || null,
      address: address(seller, sellerPath),
      iban: optional(iban?.replace(/\s+/g, "") ?? null, `${SETTLEMENT}/ram:SpecifiedTradeSettlementPaymentMeans/ram:PayeePartyCreditorFinancialAccount/ram:IBANID`, "BT-84"),
    },
    buyer: { name: partyName(buyer, `${AGREEMENT}/ram:BuyerTradeParty`), vatNumber: vatNumber(buyer) },
    paymentReference: optional(cii.text(settlement, "ram:PaymentReference"), `${SETTLEMENT}/ram:PaymentReference`, "BT-83"),
    subtotalCents: subtotal,
    vatCents: vat,
    totalCents: grandTotal,
    prepaidCents: prepaid,
    roundingCents: rounding,
    payableCents: payable,
    vatBreakdown,
    lines: lines.map(({ exact: _exact, ...line }) => line),
    syntax: "cii",
    locations: {
      subtotal: located("TaxBasisTotalAmount"),
      payable: located("DuePayableAmount"),
      vatBreakdown: { path: `${SETTLEMENT}/ram:ApplicableTradeTax`, name: "ApplicableTradeTax BasisAmounts" },
      vatCategories: vatBreakdown.map((_, i) => `${SETTLEMENT}/ram:ApplicableTradeTax[${i + 1}]/ram:CategoryCode`),
    },
  };
}

function required(from: XmlElement, path: string, base = ROOT): string {
  const text = cii.text(from, path);
  if (text === null) throw new InboundDocumentError(`${base}/${path}`, `The document has no ${path.split("/").pop()!.replace(/^\w+:/, "")}.`);
  return text;
}

/** A CII date: format 102 (YYYYMMDD), the only one EN 16931 allows (CII-DT-014). */
function date(from: XmlElement, path: string, needed: boolean, base = ROOT): string | null {
  const el = cii.one(from, path);
  const text = el?.text.trim() || null;
  if (text === null) {
    if (needed) throw new InboundDocumentError(`${base}/${path}`, `The document has no ${path.split("/").slice(-2, -1)[0]!.replace(/^\w+:/, "")}.`);
    return null;
  }
  const format = el!.attrs.format?.trim();
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(text);
  const iso = m ? `${m[1]}-${m[2]}-${m[3]}` : null;
  if ((format !== undefined && format !== "102") || iso === null || !isValidDate(iso)) {
    throw new InboundDocumentError(`${base}/${path}`, `'${text}' is not a date in format 102 (YYYYMMDD) between 1900 and 2999.`);
  }
  return iso;
}

type ReadLine = SupplierDocumentLine & { exact: NonNullable<ReturnType<typeof parseDecimal>> };

function readLines(tx: XmlElement, currency: string): ReadLine[] {
  const items = cii.all(tx, "ram:IncludedSupplyChainTradeLineItem");
  if (items.length === 0) throw new InboundDocumentError(`${TX}/ram:IncludedSupplyChainTradeLineItem`, "The document has no IncludedSupplyChainTradeLineItem.");
  checkImportedCount(items.length, MAX_IMPORTED_LINES, `${TX}/ram:IncludedSupplyChainTradeLineItem`, "IncludedSupplyChainTradeLineItems (lines, BG-25)");
  return items.map((item, i) => {
    const path = `${TX}/ram:IncludedSupplyChainTradeLineItem[${i + 1}]`;
    const amountPath = `${path}/ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount`;
    const amountEl = cii.one(item, "ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount");
    const amountText = amountEl?.text.trim() ?? "";
    const exact = parseDecimal(amountText);
    if (exact === null) throw new InboundDocumentError(amountPath, `The line amount '${amountText}' is not a decimal amount.`);
    const amountCurrency = amountEl?.attrs.currencyID?.trim();
    if (amountCurrency !== undefined && amountCurrency !== currency) throw new InboundDocumentError(amountPath, `The line amount is in ${amountCurrency}, not in the document currency ${currency}.`);
    const lineExtensionCents = roundHalfUpCents(exact);
    if (lineExtensionCents === null) throw new InboundDocumentError(amountPath, `The line amount ${amountText} is out of range.`);
    const quantityEl = cii.one(item, "ram:SpecifiedLineTradeDelivery/ram:BilledQuantity");
    const quantity = quantityEl?.text.trim() ?? "";
    if (parseDecimal(quantity) === null) throw new InboundDocumentError(`${path}/ram:SpecifiedLineTradeDelivery/ram:BilledQuantity`, `The quantity '${quantity}' is not a decimal number.`);
    const name = cii.text(item, "ram:SpecifiedTradeProduct/ram:Name");
    const percent = cii.text(item, "ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax/ram:RateApplicablePercent");
    return {
      id: cii.text(item, "ram:AssociatedDocumentLineDocument/ram:LineID") ?? String(i + 1),
      name: name === null ? null : plain(name, `${path}/ram:SpecifiedTradeProduct/ram:Name`, "BT-153"),
      quantity,
      unitCode: quantityEl?.attrs.unitCode?.trim() || null,
      lineExtensionAmount: amountText,
      lineExtensionCents,
      vatCategory: cii.text(item, "ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax/ram:CategoryCode"),
      vatRateBp: percent === null ? null : percentToBasisPoints(percent),
      exact,
    };
  });
}

function partyName(party: XmlElement, path: string): string {
  const name = cii.text(party, "ram:Name") ?? cii.text(party, "ram:SpecifiedLegalOrganization/ram:TradingBusinessName");
  if (name === null) throw new InboundDocumentError(`${path}/ram:Name`, "The party has no name.");
  return name;
}

/** The SpecifiedTaxRegistration whose scheme is VA (BT-31, BT-48); FC is a national tax number (BT-32). */
function vatNumber(party: XmlElement): string | null {
  const id = cii.all(party, "ram:SpecifiedTaxRegistration/ram:ID").find((el) => el.attrs.schemeID?.trim() === "VA");
  return id?.text.trim() || null;
}

function address(party: XmlElement, partyPath: string): SupplierAddress | null {
  const postal = cii.one(party, "ram:PostalTradeAddress");
  const country = postal && cii.text(postal, "ram:CountryID");
  if (!postal || !country) return null;
  const path = `${partyPath}/ram:PostalTradeAddress`;
  if (!isCountryCode(country)) {
    throw new InboundDocumentError(`${path}/ram:CountryID`, `The seller's country code '${country}' (BT-40) is not an ISO 3166-1 alpha-2 code that EN 16931 accepts (BR-CL-14).`);
  }
  const text = (name: string, term: ImportedTerm) => {
    const value = cii.text(postal, `ram:${name}`);
    return value === null ? null : plain(value, `${path}/ram:${name}`, term);
  };
  return { line1: text("LineOne", "BT-35"), line2: text("LineTwo", "BT-36"), city: text("CityName", "BT-37"), postalCode: text("PostcodeCode", "BT-38"), country };
}

/**
 * Reads a supplier's UBL 2.1 Invoice or CreditNote (EN 16931, Peppol BIS Billing 3.0 and XRechnung
 * included) into the reader model (einvoice-model.ts), after checking that its totals add up the
 * way EN 16931 says (BR-CO-10, -13, -14, -15, -16; einvoice-model.ts checkTotals). Pure: no
 * database, no HTTP. Every refusal is an InboundDocumentError naming the element and saying why.
 * The CII reader (cii-import.ts) shares the text and amount rules below.
 *
 * Money: document-level amounts are integer cents and must have at most two decimals (trailing
 * zeros allowed: "4900.0"); line amounts are summed exactly and the sum is rounded half up
 * before it is compared with LineExtensionAmount, as the CEN schematron does.
 *
 * Reference data: what becomes Kontor's data (the currency, the supplier's country, the texts of
 * the supplier, the number and the line names) follows the API's rules (docs/api.md, "Reference
 * data"): a code EN 16931 accepts, no control or bidirectional character. XML whitespace inside
 * a text (a line break, a tab) becomes a space. The supplier's VAT number is read as written.
 */
import { isCountryCode, isCurrencyCode } from "../lib/iso-codes.ts";
import { forbiddenCharacter } from "../lib/characters.ts";
import { addDecimals, exactCents, parseDecimal, percentToBasisPoints, roundHalfUpCents, type ExactDecimal } from "./decimal.ts";
import { isValidDate } from "../lib/time.ts";
import { checkTotals, EN16931_PREFIX, type SupplierAddress, type SupplierDocument, type SupplierDocumentLine } from "./einvoice-model.ts";
import { InboundDocumentError } from "./errors.ts";
import { checkImportedCount, checkImportedLength, MAX_IMPORTED_LINES, MAX_IMPORTED_VAT_ROWS, type ImportedTerm } from "./import-limits.ts";
import { Lookup, parseXml, type XmlElement } from "./xml.ts";

export type { SupplierAddress, SupplierDocument, SupplierDocumentLine, SupplierVatBreakdown } from "./einvoice-model.ts";

export const UBL_INVOICE_NS = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2";
export const UBL_CREDIT_NOTE_NS = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2";
const CAC = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2";
const CBC = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2";

const ubl = new Lookup({ cac: CAC, cbc: CBC });

/** A UBL document's text (the UBL reader alone; einvoice.ts readEInvoiceXml reads either syntax). */
export function readSupplierDocument(xml: string): SupplierDocument {
  return readUblDocument(parseXml(xml));
}

export function readUblDocument(root: XmlElement): SupplierDocument {
  const type = documentType(root);
  const rootPath = `/${root.name}`;
  const at = (path: string) => `${rootPath}/${path}`;

  const customization = ubl.text(root, "cbc:CustomizationID");
  if (customization === null) throw new InboundDocumentError(at("cbc:CustomizationID"), "The document has no CustomizationID; an EN 16931 document names its specification there.");
  if (!customization.startsWith(EN16931_PREFIX)) {
    throw new InboundDocumentError(at("cbc:CustomizationID"), `The CustomizationID '${customization}' is not EN 16931 (it must start with '${EN16931_PREFIX}').`);
  }

  const number = plain(required(root, "cbc:ID", rootPath), at("cbc:ID"), "BT-1");
  const issueDate = date(root, "cbc:IssueDate", rootPath, true)!;
  const dueDate = date(root, "cbc:DueDate", rootPath, false) ?? date(root, "cac:PaymentMeans/cbc:PaymentDueDate", rootPath, false);
  const currency = required(root, "cbc:DocumentCurrencyCode", rootPath);
  if (!isCurrencyCode(currency)) {
    throw new InboundDocumentError(at("cbc:DocumentCurrencyCode"), `The currency '${currency}' (BT-5) is not an ISO 4217 currency code that EN 16931 accepts (BR-CL-04).`);
  }

  // amounts: every document-level amount is in the document currency (BR-CL-03 allows only it there)
  const money = (el: XmlElement | null, path: string): number | null => (el === null ? null : documentAmount(el, path, currency));
  const total = (name: string, needed: boolean): number => {
    const path = `cac:LegalMonetaryTotal/cbc:${name}`;
    const cents = money(ubl.one(root, path), at(path));
    if (cents === null && needed) throw new InboundDocumentError(at(path), `The document has no ${name}.`);
    return cents ?? 0;
  };
  if (ubl.one(root, "cac:LegalMonetaryTotal") === null) throw new InboundDocumentError(at("cac:LegalMonetaryTotal"), "The document has no LegalMonetaryTotal.");
  const lineExtension = total("LineExtensionAmount", true);
  const taxExclusive = total("TaxExclusiveAmount", true);
  const taxInclusive = total("TaxInclusiveAmount", true);
  const allowances = total("AllowanceTotalAmount", false);
  const charges = total("ChargeTotalAmount", false);
  const prepaid = total("PrepaidAmount", false);
  const rounding = total("PayableRoundingAmount", false);
  const payable = total("PayableAmount", true);

  const lines = readLines(root, type, rootPath, currency);
  const linesSum = roundHalfUpCents(addDecimals(lines.map((l) => l.exact)));
  if (linesSum === null) throw new InboundDocumentError(at("cac:LegalMonetaryTotal/cbc:LineExtensionAmount"), "The sum of the line amounts is too large.");
  const lineName = type === "invoice" ? "InvoiceLine" : "CreditNoteLine";

  // the TaxTotal in the document currency carries the breakdown; a second one may give the VAT in
  // the tax currency (BT-111) and is not part of the sums
  const taxTotals = ubl.all(root, "cac:TaxTotal");
  const taxTotal = taxTotals.find((t) => ubl.one(t, "cbc:TaxAmount")?.attrs.currencyID?.trim() === currency);
  if (!taxTotal) throw new InboundDocumentError(at("cac:TaxTotal"), `The document has no TaxTotal in its currency ${currency}.`);
  const vat = money(ubl.one(taxTotal, "cbc:TaxAmount"), at("cac:TaxTotal/cbc:TaxAmount"))!;

  const subtotals = ubl.all(taxTotal, "cac:TaxSubtotal");
  checkImportedCount(subtotals.length, MAX_IMPORTED_VAT_ROWS, at("cac:TaxTotal/cac:TaxSubtotal"), "TaxSubtotals (VAT breakdown, BG-23)");
  const vatBreakdown = subtotals.map((subtotal, i) => {
    const path = at(`cac:TaxTotal/cac:TaxSubtotal[${i + 1}]`);
    const category = ubl.text(subtotal, "cac:TaxCategory/cbc:ID");
    if (category === null) throw new InboundDocumentError(`${path}/cac:TaxCategory/cbc:ID`, "A TaxSubtotal has no VAT category.");
    const percent = ubl.text(subtotal, "cac:TaxCategory/cbc:Percent");
    const rateBp = percent === null ? null : percentToBasisPoints(percent);
    if (percent !== null && rateBp === null) throw new InboundDocumentError(`${path}/cac:TaxCategory/cbc:Percent`, `The VAT rate '${percent}' is not a percentage with at most 2 decimals.`);
    const base = money(ubl.one(subtotal, "cbc:TaxableAmount"), `${path}/cbc:TaxableAmount`);
    const tax = money(ubl.one(subtotal, "cbc:TaxAmount"), `${path}/cbc:TaxAmount`);
    if (base === null) throw new InboundDocumentError(`${path}/cbc:TaxableAmount`, "A TaxSubtotal has no TaxableAmount.");
    if (tax === null) throw new InboundDocumentError(`${path}/cbc:TaxAmount`, "A TaxSubtotal has no TaxAmount.");
    return { category, rateBp, baseCents: base, vatCents: tax };
  });
  if (vatBreakdown.length === 0) throw new InboundDocumentError(at("cac:TaxTotal/cac:TaxSubtotal"), "The TaxTotal has no TaxSubtotal (VAT breakdown).");
  const monetary = (name: string) => ({ path: at(`cac:LegalMonetaryTotal/cbc:${name}`), name: `LegalMonetaryTotal/${name}` });
  // the XRechnung extension's third-party payments (BG-DEX-09) add to PayableAmount what the
  // buyer owes others (BR-DEX-09): not an amount the supplier asks, and not EN 16931's arithmetic
  const thirdParty = ubl.all(root, "cac:PrepaidPayment");
  if (thirdParty.length > 0) {
    throw new InboundDocumentError(
      at("cac:PrepaidPayment"),
      `The document uses the XRechnung extension's third-party payments (BG-DEX-09, ${thirdParty.length} cac:PrepaidPayment), which add amounts owed to others to the amount payable. ` +
        "That extension is not supported: Kontor imports EN 16931 and XRechnung invoices without it.",
    );
  }
  checkTotals(
    {
      linesSum,
      lineCount: lines.length,
      lineTotal: lineExtension,
      allowances,
      charges,
      subtotal: taxExclusive,
      vat,
      total: taxInclusive,
      prepaid,
      rounding,
      payable,
      breakdownVat: vatBreakdown.reduce((sum, b) => sum + b.vatCents, 0),
    },
    {
      lines: `${lineName} LineExtensionAmounts`,
      lineTotal: monetary("LineExtensionAmount"),
      allowances: monetary("AllowanceTotalAmount"),
      charges: monetary("ChargeTotalAmount"),
      subtotal: monetary("TaxExclusiveAmount"),
      vat: { path: at("cac:TaxTotal/cbc:TaxAmount"), name: "TaxTotal/TaxAmount" },
      total: monetary("TaxInclusiveAmount"),
      prepaid: monetary("PrepaidAmount"),
      rounding: monetary("PayableRoundingAmount"),
      payable: monetary("PayableAmount"),
      breakdownVat: "TaxSubtotal TaxAmounts",
    },
    customization,
  );

  const supplierParty = ubl.one(root, "cac:AccountingSupplierParty/cac:Party");
  if (!supplierParty) throw new InboundDocumentError(at("cac:AccountingSupplierParty"), "The document names no supplier (AccountingSupplierParty/Party).");
  const buyerParty = ubl.one(root, "cac:AccountingCustomerParty/cac:Party");
  if (!buyerParty) throw new InboundDocumentError(at("cac:AccountingCustomerParty"), "The document names no buyer (AccountingCustomerParty/Party).");
  const supplierPath = at("cac:AccountingSupplierParty/cac:Party");
  const endpoint = ubl.one(supplierParty, "cbc:EndpointID");
  const endpointValue = endpoint?.text.trim() || null;
  const endpointScheme = endpoint?.attrs.schemeID?.trim() || null;
  const paymentMeans = ubl.all(root, "cac:PaymentMeans");
  const optional = (value: string | null, path: string, term: ImportedTerm) => (value === null ? null : plain(value, path, term));
  // as written, even with wrong check digits (a supplier's typo must not keep its bill out): a
  // supplier is created with it only when it is valid (suppliers/service.ts supplierForDocument)
  const supplierVat = optional(vatNumber(supplierParty), `${supplierPath}/cac:PartyTaxScheme/cbc:CompanyID`, "BT-31");

  return {
    type,
    number,
    issueDate,
    dueDate,
    currency,
    supplier: {
      name: plain(partyName(supplierParty, supplierPath), `${supplierPath}/cac:PartyLegalEntity/cbc:RegistrationName`, "BT-27"),
      vatNumber: supplierVat,
      endpoint: endpointValue === null ? null : { scheme: endpointScheme, id: plain(endpointValue, `${supplierPath}/cbc:EndpointID`, "BT-34") },
      companyId: optional(ubl.text(supplierParty, "cac:PartyLegalEntity/cbc:CompanyID"), `${supplierPath}/cac:PartyLegalEntity/cbc:CompanyID`, "BT-30"),
      companyIdScheme: ubl.one(supplierParty, "cac:PartyLegalEntity/cbc:CompanyID")?.attrs.schemeID?.trim() || null,
      address: address(supplierParty, supplierPath),
      iban: optional(firstText(paymentMeans, "cac:PayeeFinancialAccount/cbc:ID")?.replace(/\s+/g, "") ?? null, at("cac:PaymentMeans/cac:PayeeFinancialAccount/cbc:ID"), "BT-84"),
    },
    buyer: { name: partyName(buyerParty, at("cac:AccountingCustomerParty/cac:Party")), vatNumber: vatNumber(buyerParty) },
    paymentReference: optional(firstText(paymentMeans, "cbc:PaymentID"), at("cac:PaymentMeans/cbc:PaymentID"), "BT-83"),
    subtotalCents: taxExclusive,
    vatCents: vat,
    totalCents: taxInclusive,
    prepaidCents: prepaid,
    roundingCents: rounding,
    payableCents: payable,
    vatBreakdown,
    lines: lines.map(({ exact: _exact, ...line }) => line),
    syntax: "ubl",
    locations: {
      subtotal: monetary("TaxExclusiveAmount"),
      payable: monetary("PayableAmount"),
      vatBreakdown: { path: at("cac:TaxTotal/cac:TaxSubtotal"), name: "TaxSubtotal TaxableAmounts" },
      vatCategories: vatBreakdown.map((_, i) => at(`cac:TaxTotal/cac:TaxSubtotal[${i + 1}]/cac:TaxCategory/cbc:ID`)),
    },
  };
}

function documentType(root: XmlElement): SupplierDocument["type"] {
  if (root.ns === UBL_INVOICE_NS && root.name === "Invoice") return "invoice";
  if (root.ns === UBL_CREDIT_NOTE_NS && root.name === "CreditNote") return "credit_note";
  const what = root.ns ? `{${root.ns}}${root.name}` : `${root.name} (in no namespace)`;
  throw new InboundDocumentError(
    `/${root.name}`,
    `The root element is ${what}, not a UBL 2.1 Invoice or CreditNote. Kontor imports those and UN/CEFACT CII CrossIndustryInvoice (EN 16931, XRechnung, Factur-X / ZUGFeRD 2.x).`,
  );
}

function required(from: XmlElement, path: string, rootPath: string): string {
  const text = ubl.text(from, path);
  if (text === null) throw new InboundDocumentError(`${rootPath}/${path}`, `The document has no ${path.split("/").pop()!.replace(/^\w+:/, "")}.`);
  return text;
}

function date(from: XmlElement, path: string, rootPath: string, needed: boolean): string | null {
  const text = ubl.text(from, path);
  if (text === null) {
    if (needed) throw new InboundDocumentError(`${rootPath}/${path}`, `The document has no ${path.split("/").pop()!.replace(/^\w+:/, "")}.`);
    return null;
  }
  if (!isValidDate(text)) throw new InboundDocumentError(`${rootPath}/${path}`, `'${text}' is not a date (YYYY-MM-DD) between 1900 and 2999.`);
  return text;
}

/** A document-level amount: exact cents, in the document currency. */
export function documentAmount(el: XmlElement, path: string, currency: string): number {
  const text = el.text.trim();
  const d = parseDecimal(text);
  if (d === null) throw new InboundDocumentError(path, `'${text}' is not a decimal amount.`);
  const cents = exactCents(d);
  if (cents === null) throw new InboundDocumentError(path, `The amount ${text} has more than 2 decimals (or is out of range); document totals are in cents.`);
  const amountCurrency = el.attrs.currencyID?.trim();
  if (amountCurrency !== undefined && amountCurrency !== currency) {
    throw new InboundDocumentError(path, `The amount is in ${amountCurrency}, not in the document currency ${currency}.`);
  }
  return cents;
}

type ReadLine = SupplierDocumentLine & { exact: ExactDecimal };

function readLines(root: XmlElement, type: SupplierDocument["type"], rootPath: string, currency: string): ReadLine[] {
  const lineName = type === "invoice" ? "InvoiceLine" : "CreditNoteLine";
  const quantityName = type === "invoice" ? "InvoicedQuantity" : "CreditedQuantity";
  const lines = ubl.all(root, `cac:${lineName}`);
  if (lines.length === 0) throw new InboundDocumentError(`${rootPath}/cac:${lineName}`, `The document has no ${lineName}.`);
  checkImportedCount(lines.length, MAX_IMPORTED_LINES, `${rootPath}/cac:${lineName}`, `${lineName}s (BG-25)`);
  return lines.map((line, i) => {
    const path = `${rootPath}/cac:${lineName}[${i + 1}]`;
    const amountEl = ubl.one(line, "cbc:LineExtensionAmount");
    const amountText = amountEl?.text.trim() ?? "";
    const exact = parseDecimal(amountText);
    if (exact === null) throw new InboundDocumentError(`${path}/cbc:LineExtensionAmount`, `The line amount '${amountText}' is not a decimal amount.`);
    const amountCurrency = amountEl?.attrs.currencyID?.trim();
    if (amountCurrency !== undefined && amountCurrency !== currency) {
      throw new InboundDocumentError(`${path}/cbc:LineExtensionAmount`, `The line amount is in ${amountCurrency}, not in the document currency ${currency}.`);
    }
    const lineExtensionCents = roundHalfUpCents(exact);
    if (lineExtensionCents === null) throw new InboundDocumentError(`${path}/cbc:LineExtensionAmount`, `The line amount ${amountText} is out of range.`);
    const quantityEl = ubl.one(line, `cbc:${quantityName}`);
    const quantity = quantityEl?.text.trim() ?? "";
    if (parseDecimal(quantity) === null) throw new InboundDocumentError(`${path}/cbc:${quantityName}`, `The quantity '${quantity}' is not a decimal number.`);
    const percent = ubl.text(line, "cac:Item/cac:ClassifiedTaxCategory/cbc:Percent");
    return {
      id: ubl.text(line, "cbc:ID") ?? String(i + 1),
      name: ((name) => (name === null ? null : plain(name, `${path}/cac:Item/cbc:Name`, "BT-153")))(ubl.text(line, "cac:Item/cbc:Name")),
      quantity,
      unitCode: quantityEl?.attrs.unitCode?.trim() || null,
      lineExtensionAmount: amountText,
      lineExtensionCents,
      vatCategory: ubl.text(line, "cac:Item/cac:ClassifiedTaxCategory/cbc:ID"),
      vatRateBp: percent === null ? null : percentToBasisPoints(percent),
      exact,
    };
  });
}

function partyName(party: XmlElement, path: string): string {
  const name = ubl.text(party, "cac:PartyLegalEntity/cbc:RegistrationName") ?? ubl.text(party, "cac:PartyName/cbc:Name");
  if (name === null) throw new InboundDocumentError(`${path}/cac:PartyLegalEntity/cbc:RegistrationName`, "The party has no name (RegistrationName or PartyName).");
  return name;
}

/** The CompanyID of the PartyTaxScheme whose scheme is VAT (BT-31, BT-48). */
function vatNumber(party: XmlElement): string | null {
  const scheme = ubl.all(party, "cac:PartyTaxScheme").find((s) => ubl.text(s, "cac:TaxScheme/cbc:ID") === "VAT");
  return scheme ? ubl.text(scheme, "cbc:CompanyID") : null;
}

function address(party: XmlElement, partyPath: string): SupplierAddress | null {
  const postal = ubl.one(party, "cac:PostalAddress");
  const country = postal && ubl.text(postal, "cac:Country/cbc:IdentificationCode");
  if (!postal || !country) return null;
  const path = `${partyPath}/cac:PostalAddress`;
  if (!isCountryCode(country)) {
    throw new InboundDocumentError(
      `${path}/cac:Country/cbc:IdentificationCode`,
      `The seller's country code '${country}' (BT-40) is not an ISO 3166-1 alpha-2 code that EN 16931 accepts (BR-CL-14).`,
    );
  }
  const text = (name: string, term: ImportedTerm) => {
    const value = ubl.text(postal, `cbc:${name}`);
    return value === null ? null : plain(value, `${path}/cbc:${name}`, term);
  };
  return { line1: text("StreetName", "BT-35"), line2: text("AdditionalStreetName", "BT-36"), city: text("CityName", "BT-37"), postalCode: text("PostalZone", "BT-38"), country };
}

/**
 * A text that becomes Kontor's data: refused with a control or bidirectional character (as the
 * API refuses them) or when longer than the API field it becomes takes, XML whitespace inside it
 * (line breaks, tabs) made one space.
 */
export function plain(value: string, path: string, term: ImportedTerm): string {
  const text = value.replace(/\s*[\t\n\r]\s*/g, " ");
  // within the API's limit of the field it becomes (import-limits.ts), or refused
  checkImportedLength(text, path, term);
  const found = forbiddenCharacter(text);
  if (found) {
    const what = found.kind === "surrogate" ? "a lone UTF-16 surrogate" : found.kind === "bidi" ? "a bidirectional control character" : "a control character";
    throw new InboundDocumentError(path, `The ${term} text contains ${what} (${found.codePoint}); a document's texts may not.`);
  }
  return text;
}

function firstText(elements: XmlElement[], path: string): string | null {
  for (const el of elements) {
    const text = ubl.text(el, path);
    if (text !== null) return text;
  }
  return null;
}

/**
 * The one place that says how long an imported text may be: each text of a supplier's e-invoice
 * that Kontor keeps, by its EN 16931 business term, mapped to the API field it becomes and that
 * field's own limit (docs/api.md, "Limits"). The UBL and CII readers check every such text here
 * (ubl-import.ts `plain`), so an import can store nothing the API itself would refuse. A longer
 * text refuses the document with a 422 naming the element's path and the business term: it is
 * never cut short, since a shortened invoice number or reference would be a different one.
 *
 * Lengths are counted in characters (Unicode code points), as the API counts them.
 */
import { codePoints } from "../lib/schemas.ts";
import { InboundDocumentError } from "./errors.ts";

type Limit = { /** EN 16931's name of the term */ name: string; /** what it becomes in Kontor */ becomes: string; maxLength: number };

export const IMPORTED_TEXT_LIMITS = {
  // supplier_invoice_number: the API never takes it, so its limit is set here (generous for any supplier's numbering)
  "BT-1": { name: "Invoice number", becomes: "the expense's supplier_invoice_number", maxLength: 200 },
  "BT-27": { name: "Seller name", becomes: "the expense's vendor and the supplier's name", maxLength: 255 },
  "BT-30": { name: "Seller legal registration identifier", becomes: "the supplier's company_number", maxLength: 50 },
  "BT-31": { name: "Seller VAT identifier", becomes: "the supplier's vat_number", maxLength: 50 },
  // an e-mail endpoint (EM) is an e-mail address (255); a Peppol participant id is shorter still
  "BT-34": { name: "Seller electronic address", becomes: "the supplier's peppol_id or e-mail", maxLength: 255 },
  // both lines become the supplier's address (500), joined by a line break
  "BT-35": { name: "Seller address line 1", becomes: "the supplier's address (with line 2)", maxLength: 249 },
  "BT-36": { name: "Seller address line 2", becomes: "the supplier's address (with line 1)", maxLength: 250 },
  "BT-37": { name: "Seller city", becomes: "the supplier's city", maxLength: 100 },
  "BT-38": { name: "Seller post code", becomes: "the supplier's postal_code", maxLength: 10 },
  "BT-83": { name: "Remittance information", becomes: "the expense's payment_reference", maxLength: 140 },
  "BT-84": { name: "Payment account identifier", becomes: "the expense's payee_iban", maxLength: 42 },
  // an item's name is what an invoice line's description is (2,000); the expense's description names the first few
  "BT-153": { name: "Item name", becomes: "a line's description (the expense's description lists them)", maxLength: 2000 },
} as const satisfies Record<string, Limit>;

export type ImportedTerm = keyof typeof IMPORTED_TEXT_LIMITS;

/** Lines of one imported document (BG-25): more than any supplier's invoice has, few enough to read in one request. */
export const MAX_IMPORTED_LINES = 1000;
/** VAT breakdown rows of one imported document (BG-23): one per category and rate, so a handful; each becomes a row of the expense. */
export const MAX_IMPORTED_VAT_ROWS = 100;

/** Refuses `text` (the element at `path`, business term `term`) when it is longer than the field it becomes takes. */
export function checkImportedLength(text: string, path: string, term: ImportedTerm): void {
  const limit: Limit = IMPORTED_TEXT_LIMITS[term];
  // a UTF-16 length within the limit is within it in code points too: count only when it may not be
  if (text.length <= limit.maxLength) return;
  const length = codePoints(text);
  if (length <= limit.maxLength) return;
  throw new InboundDocumentError(
    path,
    `The ${limit.name} (${term}) is ${length} characters long; it becomes ${limit.becomes}, which takes at most ${limit.maxLength}. The document is refused rather than cut short.`,
  );
}

/** Refuses a document with more than `max` of an element (lines, VAT breakdown rows). */
export function checkImportedCount(count: number, max: number, path: string, what: string): void {
  if (count > max) throw new InboundDocumentError(path, `The document has ${count} ${what}; Kontor imports at most ${max} per document.`);
}

/**
 * The texts of a bank statement line that Kontor keeps, by the CAMT.053 element (and its CODA
 * counterpart) they come from, mapped to the bank line's API field and its limit. ISO 20022 sets
 * the lengths (Max35Text, Max140Text); the communication joins every Ustrd of an entry (CODA:
 * records 2.1 to 2.3, which a file may repeat), so it gets the limit of a description. A longer
 * text refuses the file with a 422 naming the element, never cut short: a reference cut short
 * would match another payment. CODA's fixed-width fields other than the communication cannot be
 * longer than their columns (name 35, bank reference 21, client reference 35).
 */
export const STATEMENT_TEXT_LIMITS = {
  statement_id: { element: "Stmt/Id", becomes: "the statement's id", maxLength: 35 },
  entry_ref: { element: "Ntry/AcctSvcrRef (else Ntry/NtryRef)", becomes: "the bank line's entry_ref", maxLength: 35 },
  counterparty_name: { element: "TxDtls/RltdPties/Dbtr|Cdtr/Nm", becomes: "the bank line's counterparty_name", maxLength: 140 },
  communication: { element: "TxDtls/RmtInf/Ustrd (all of an entry's, joined)", becomes: "the bank line's communication", maxLength: 1000 },
  structured_reference: { element: "TxDtls/RmtInf/Strd/CdtrRefInf/Ref", becomes: "the bank line's structured_reference", maxLength: 35 },
  end_to_end_id: { element: "TxDtls/Refs/EndToEndId", becomes: "the end-to-end id a payment run's transfer is matched on", maxLength: 35 },
} as const satisfies Record<string, { element: string; becomes: string; maxLength: number }>;

/** Refuses a statement's `text` (at `path`) longer than the field it becomes takes. */
export function checkStatementLength(text: string | null | undefined, path: string, field: keyof typeof STATEMENT_TEXT_LIMITS): void {
  if (text == null) return;
  const limit = STATEMENT_TEXT_LIMITS[field];
  if (text.length <= limit.maxLength) return;
  const length = codePoints(text);
  if (length <= limit.maxLength) return;
  throw new InboundDocumentError(
    path,
    `The text is ${length} characters long; it becomes ${limit.becomes}, which takes at most ${limit.maxLength}. The file is refused rather than cut short.`,
  );
}

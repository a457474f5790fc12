/**
 * A supplier's EN 16931 e-invoice as Kontor reads it, whatever its syntax: the one reader model
 * (`SupplierDocument`) that the UBL reader (ubl-import.ts) and the CII reader (cii-import.ts) map
 * their syntax to, and the totals check both apply (EN 16931's BR-CO-10, -13, -14, -15, -16).
 * What becomes of the document (supplier matching, duplicates, prepaid amounts, VAT lines) is
 * decided in one place, server/expenses/import.ts, from this model alone. The entry point that
 * picks the reader is einvoice.ts's `readEInvoiceXml`.
 */
import { formatCents } from "../lib/money.ts";
import { InboundDocumentError } from "./errors.ts";

/** EN 16931 and every CIUS/extension of it (Peppol BIS 3, XRechnung: "urn:cen.eu:en16931:2017#compliant#…"). */
export const EN16931_PREFIX = "urn:cen.eu:en16931:2017";

export type SupplierAddress = {
  line1: string | null;
  line2: string | null;
  city: string | null;
  postalCode: string | null;
  country: string;
};

export type SupplierDocumentLine = {
  id: string;
  name: string | null;
  /** As written (xs:decimal), e.g. "1.5". */
  quantity: string;
  unitCode: string | null;
  /** As written, possibly with more than two decimals. */
  lineExtensionAmount: string;
  /** lineExtensionAmount rounded half up to cents. */
  lineExtensionCents: number;
  vatCategory: string | null;
  vatRateBp: number | null;
};

export type SupplierVatBreakdown = {
  /** UNCL 5305 category: S, Z, E, AE, K, G, O, L, M. */
  category: string;
  /** 21.00 % → 2100; null when the category carries no rate (O). */
  rateBp: number | null;
  baseCents: number;
  vatCents: number;
};

export type SupplierDocument = {
  type: "invoice" | "credit_note";
  /** BT-1 */
  number: string;
  /** YYYY-MM-DD */
  issueDate: string;
  /** BT-9 (UBL: cbc:DueDate, else a credit note's PaymentMeans/PaymentDueDate) */
  dueDate: string | null;
  currency: string;
  supplier: {
    /** BT-27 (UBL: PartyLegalEntity/RegistrationName, else PartyName/Name) */
    name: string;
    vatNumber: string | null;
    /**
     * EndpointID (BT-34) as written: an EAS scheme ("0208") makes it a Peppol participant id, but
     * a scheme such as "EM" (an e-mail address, which many sellers may share) does not
     */
    endpoint: { scheme: string | null; id: string } | null;
    /** BT-30 and its scheme, e.g. "0208" */
    companyId: string | null;
    companyIdScheme: string | null;
    address: SupplierAddress | null;
    /** BT-84 of the first payment means */
    iban: string | null;
  };
  buyer: { name: string; vatNumber: string | null };
  /** BT-83 */
  paymentReference: string | null;
  /** BT-109 */
  subtotalCents: number;
  /** BT-110, in the document currency */
  vatCents: number;
  /** BT-112 */
  totalCents: number;
  /** BT-113, 0 when absent */
  prepaidCents: number;
  /** BT-114, 0 when absent */
  roundingCents: number;
  /** BT-115 = BT-112 − BT-113 + BT-114 */
  payableCents: number;
  vatBreakdown: SupplierVatBreakdown[];
  lines: SupplierDocumentLine[];
  /** the syntax it was written in */
  syntax: "ubl" | "cii";
  /** where the figures the expense is refused on stand in the document, and their names there */
  locations: DocumentLocations;
};

/** A figure's element: its path (an error's field) and what the syntax calls it (in messages). */
export type Located = { path: string; name: string };

export type DocumentLocations = {
  /** BT-109, the total without VAT */
  subtotal: Located;
  /** BT-115, the amount due */
  payable: Located;
  /** BG-23, the VAT breakdown, named by its taxable amounts */
  vatBreakdown: Located;
  /** each breakdown row's VAT category (BT-118) */
  vatCategories: string[];
};


/** The totals of a document as written, and how its syntax names each (for the refusals). */
export type Totals = {
  /** the line amounts, summed exactly and rounded half up to cents, as the CEN rules compare them */
  linesSum: number;
  lineCount: number;
  lineTotal: number;
  allowances: number;
  charges: number;
  subtotal: number;
  vat: number;
  total: number;
  prepaid: number;
  rounding: number;
  payable: number;
  breakdownVat: number;
};
export type TotalsNames = Record<Exclude<keyof Totals, "linesSum" | "lineCount" | "breakdownVat">, Located> & {
  /** "InvoiceLine LineExtensionAmounts" */
  lines: string;
  /** "TaxSubtotal TaxAmounts" */
  breakdownVat: string;
};

/**
 * EN 16931's arithmetic between the totals (BR-CO-10, -13, -15, -16, -14), a refusal naming the
 * first that fails. `specification` is the document's BT-24: a document of the XRechnung
 * extension whose amount payable does not add up is told so (the extension's additions to it are
 * not supported), not merely that its totals are wrong.
 */
export function checkTotals(t: Totals, n: TotalsNames, specification = ""): void {
  try {
    checkSums(t, n);
  } catch (e) {
    if (e instanceof InboundDocumentError && e.path === n.payable.path && XRECHNUNG_EXTENSION.test(specification)) {
      throw new InboundDocumentError(
        e.path,
        `${e.message} The document follows the XRechnung extension ('${specification}'), whose additions to the amount payable (such as third-party payments, BG-DEX-09) are not supported.`,
      );
    }
    throw e;
  }
}

/** BT-24 of a document of the XRechnung extension ("…#conformant#urn:xeinkauf.de:kosit:extension:xrechnung_3.0"). */
const XRECHNUNG_EXTENSION = /urn:xeinkauf\.de:kosit:extension:xrechnung/;

function checkSums(t: Totals, n: TotalsNames): void {
  const f = formatCents;
  if (t.linesSum !== t.lineTotal) {
    throw new InboundDocumentError(n.lineTotal.path, `${n.lineTotal.name} ${f(t.lineTotal)} is not the sum of the ${t.lineCount} ${n.lines}, ${f(t.linesSum)}.`);
  }
  if (t.subtotal !== t.lineTotal - t.allowances + t.charges) {
    throw new InboundDocumentError(
      n.subtotal.path,
      `${n.subtotal.name} ${f(t.subtotal)} is not ${short(n.lineTotal)} ${f(t.lineTotal)} − allowances ${f(t.allowances)} + charges ${f(t.charges)}.`,
    );
  }
  if (t.total !== t.subtotal + t.vat) {
    throw new InboundDocumentError(n.total.path, `${n.total.name} ${f(t.total)} is not ${short(n.subtotal)} ${f(t.subtotal)} + ${n.vat.name} ${f(t.vat)}.`);
  }
  if (t.payable !== t.total - t.prepaid + t.rounding) {
    throw new InboundDocumentError(
      n.payable.path,
      `${n.payable.name} ${f(t.payable)} is not ${short(n.total)} ${f(t.total)} − ${short(n.prepaid)} ${f(t.prepaid)} + ${short(n.rounding)} ${f(t.rounding)}.`,
    );
  }
  if (t.breakdownVat !== t.vat) throw new InboundDocumentError(n.vat.path, `${n.vat.name} ${f(t.vat)} is not the sum of the ${n.breakdownVat}, ${f(t.breakdownVat)}.`);
}

/** A name without its container: "LegalMonetaryTotal/TaxExclusiveAmount" → "TaxExclusiveAmount". */
const short = (l: Located) => l.name.split("/").pop()!;

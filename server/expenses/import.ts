/**
 * Supplier e-invoices (issues 20 and 31): a UBL 2.1 Invoice or CreditNote (EN 16931, Peppol BIS
 * 3.0, XRechnung) or a UN/CEFACT CII invoice (EN 16931, XRechnung) becomes a pending expense, its
 * original kept byte for byte. The rules below are the same for every syntax: they see only the
 * reader model (server/inbound/einvoice-model.ts).
 *
 * - A PDF is taken when it carries the e-invoice as an embedded file (Factur-X, ZUGFeRD,
 *   XRechnung in a PDF): its XML is what is read (server/inbound/pdf-attachments.ts),
 *   and the PDF, byte for byte, is what is kept as the original. A PDF without one is a 422.
 *
 * - The document is read and its totals checked by server/inbound/einvoice.ts readEInvoiceXml
 *   (a 422 naming the element and saying why).
 * - The supplier is the one the seller is by identity (suppliers/identity.ts sameSupplier: VAT
 *   number, else legal registration, else Peppol id, never an e-mail endpoint, else the name
 *   without its legal form), and created when missing (suppliers/service.ts supplierForDocument).
 * - amount = TaxExclusiveAmount, vat_amount = TaxAmount, and the VAT breakdown per category and
 *   rate is kept (expense_vat_lines): approval posts one base and VAT pair per rate.
 * - A CreditNote, or an Invoice whose totals are negative (a corrective invoice), becomes an
 *   expense of document_type credit_note with positive amounts: the supplier owes it back, and
 *   its approval posts the reverse.
 * - What is owed is what the document says is due (BT-115): its prepaid amount (BT-113) and
 *   rounding (BT-114) are kept, and amount_due is the total less the one plus the other. An
 *   invoice whose payable amount is negative (more prepaid than its total) is an expense of its
 *   total whose supplier owes the excess back: amount_due 0.00, refund_due the excess once
 *   approved (settlement/due.ts). A credit note so is a 422.
 * - A valid document whose totals are all 0.00 (a free delivery) cannot be an expense (minimum
 *   0.01): it is kept as a received document (./received-documents.ts) with its supplier.
 * - Its payment means fill what paying it needs: due_date (BT-9, cbc:DueDate or a credit note's
 *   PaymentDueDate), payee_iban (BT-84) and payment_reference (BT-83, cbc:PaymentID).
 * - The same supplier's document of the same type and number is imported once: 409 naming the
 *   expense. Keyed on supplier_id (the unique index expenses_org_supplier_document): since a
 *   supplier is only ever the company the document identifies (by VAT number or registration,
 *   else name), two sellers' invoice 12345 land on two suppliers and are two documents.
 */
import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { expenseDocuments, expenses, expenseVatLines, vatRates } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { VAT_CATEGORIES, type VatCategory } from "../documents/model.ts";
import { canonicalPaymentReference } from "../documents/payment-reference.ts";
import type { DocumentUpload } from "../http/kernel.ts";
import { decodeXml, looksLikePdf } from "../inbound/decode.ts";
import type { SupplierDocument } from "../inbound/einvoice.ts";
import { InboundDocumentError } from "../inbound/errors.ts";
import { Conflict, NotFound } from "../lib/errors.ts";
import { formatCents } from "../lib/money.ts";
import { codePoints } from "../lib/schemas.ts";
import { findInOrg, inOrg, snapshot, unitOfWork, type Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import { validIban } from "../lib/iban.ts";
import { supplierForDocument } from "../suppliers/service.ts";
import { keepReceivedDocument } from "./received-documents.ts";
import { showExpense } from "./service.ts";
import { firstRow } from "../../db/client.ts";

/**
 * The UBL and CII readers, loaded by the first import (synchronously: the import is one
 * transaction): an HTTP thread that never imports an e-invoice never loads them.
 */
const einvoiceReader = () => require("../inbound/einvoice.ts") as typeof import("../inbound/einvoice.ts");

type ExpenseRow = typeof expenses.$inferSelect;

/** The category of an imported expense unless the request names one (`?category=`). */
export const DEFAULT_IMPORT_CATEGORY = "Purchases";

/** A supplier's file as received: the bytes kept as its original, and the e-invoice XML they are or carry. */
export type ReceivedFile = { original: Uint8Array; contentType: "application/xml" | "application/pdf"; xml: string };

/** The e-invoice of an upload: the XML sent, or the one embedded in a PDF (a 422 when the PDF carries none or cannot be read). */
export async function receivedFileOf(upload: DocumentUpload): Promise<ReceivedFile> {
  if (upload.mediaType !== "application/pdf" && !looksLikePdf(upload.bytes)) return xmlFileOf(upload);
  // the PDF reader (pdf-lib) is loaded when a PDF is first imported
  const { embeddedInvoiceXml, INVOICE_XML_NAMES } = await import("../inbound/pdf-attachments.ts");
  const embedded = await embeddedInvoiceXml(upload.bytes);
  if (!embedded) {
    throw new InboundDocumentError(
      "body",
      `The PDF carries no embedded e-invoice (an attached file named ${INVOICE_XML_NAMES.slice(0, -1).join(", ")} or ${INVOICE_XML_NAMES.at(-1)}): ` +
        "Kontor imports a Factur-X, ZUGFeRD or XRechnung PDF, or the e-invoice XML itself.",
    );
  }
  // the XML's own declaration says its encoding; the request's charset is the PDF's, not the XML's
  return { original: upload.bytes, contentType: "application/pdf", xml: decodeXml(embedded.xml, null) };
}

/** An upload of the XML itself as a ReceivedFile (a PDF needs receivedFileOf, which reads it asynchronously). */
function xmlFileOf(upload: DocumentUpload): ReceivedFile {
  return { original: upload.bytes, contentType: "application/xml", xml: decodeXml(upload.bytes, upload.charset) };
}

/** `received`: a file read by receivedFileOf, or an XML document's bytes as they came (e.g. over Peppol). */
export async function importSupplierDocument(scope: Scope, received: ReceivedFile | DocumentUpload, options: { category?: string }) {
  const file = "xml" in received ? received : xmlFileOf(received);
  // the one place an e-invoice's XML is read: UBL or CII, by its root element
  const doc = einvoiceReader().readEInvoiceXml(file.xml);
  // a corrective invoice with negative totals is a credit note in all but name
  const negative = doc.type === "invoice" && doc.subtotalCents < 0;
  const documentType = doc.type === "credit_note" || negative ? "credit_note" : "invoice";
  const sign = negative ? -1 : 1;
  const amountCents = sign * doc.subtotalCents;
  const vatCents = sign * doc.vatCents;
  if (doc.subtotalCents === 0 && doc.vatCents === 0 && doc.payableCents === 0) return { kind: "received_document" as const, data: await keepReceivedDocument(scope, file, doc) };
  if (amountCents <= 0 || vatCents < 0) {
    throw new InboundDocumentError(
      doc.locations.subtotal.path,
      `An expense needs a total without VAT of at least 0.01 and VAT of at least 0.00; the document has ${formatCents(doc.subtotalCents)} and ${formatCents(doc.vatCents)} VAT.`,
    );
  }
  const prepaidCents = sign * doc.prepaidCents;
  const roundingCents = sign * doc.roundingCents;
  // an invoice prepaid beyond its total is taken: its supplier owes the excess back (refund_due);
  // a credit note whose payable amount turns the other way names no one's debt Kontor can book
  if (documentType === "credit_note" && sign * doc.payableCents < 0) {
    throw new InboundDocumentError(
      doc.locations.payable.path,
      `A credit note's amount payable is at least 0.00; the document's ${doc.locations.payable.name.split("/").pop()} is ${formatCents(doc.payableCents)} (more prepaid than its total).`,
    );
  }
  const breakdown = vatLines(doc, sign);
  const category = options.category?.trim() || DEFAULT_IMPORT_CATEGORY;

  return await unitOfWork(scope.db, async (tx) => {
    const supplierId = await supplierForDocument(tx, scope, doc.supplier);
    const existing = await firstRow(tx
      .select({ id: expenses.id, date: expenses.date, amountCents: expenses.amountCents, vatCents: expenses.vatCents })
      .from(expenses)
      .where(
        inOrg(expenses, scope.org.id, eq(expenses.supplierId, supplierId), eq(expenses.documentType, documentType), eq(expenses.supplierInvoiceNumber, doc.number)),
      ));
    if (existing) {
      const what = documentType === "credit_note" ? "credit note" : "invoice";
      const before = `The supplier's ${what} ${doc.number} was imported before, as expense ${existing.id}`;
      const same = existing.date === doc.issueDate && existing.amountCents === amountCents && existing.vatCents === vatCents;
      // a supplier numbers each of its documents once: another document under the same number is its mistake, said as such
      throw new Conflict(
        same
          ? `${before}.`
          : `${before} (dated ${existing.date}, total ${formatCents(existing.amountCents + existing.vatCents)}); this document under the same number is dated ${doc.issueDate}, total ${formatCents(amountCents + vatCents)}. ` +
              "A supplier numbers each invoice once: ask the supplier which one stands.",
      );
    }
    const now = nowIso();
    const row: ExpenseRow = {
      id: newId(),
      organizationId: scope.org.id,
      category,
      description: describe(doc),
      amountCents,
      vatCents,
      vatRateId: await singleRate(tx, scope.org.id, breakdown),
      date: doc.issueDate,
      vendor: doc.supplier.name.trim(),
      supplierId,
      status: "pending",
      currency: doc.currency,
      rejectionReason: null,
      paidCents: 0,
      documentType,
      supplierInvoiceNumber: doc.number,
      payeeIban: doc.supplier.iban ? validIban(doc.supplier.iban) : null,
      // BT-83 as bank matching compares it: a structured reference in its canonical form
      paymentReference: doc.paymentReference?.trim() ? (canonicalPaymentReference(doc.paymentReference) ?? doc.paymentReference.trim()) : null,
      // BT-9; one before the issue date is a slip of the supplier's, not a date to pay by
      dueDate: doc.dueDate !== null && doc.dueDate >= doc.issueDate ? doc.dueDate : null,
      prepaidCents,
      roundingCents,
      selfAssessedVatRateId: null,
      externalId: null,
      metadata: {},
      createdAt: now,
      updatedAt: now,
    };
    await tx.insert(expenses).values(row);
    await tx.insert(expenseVatLines)
      .values(breakdown.map((b) => ({ id: newId(), organizationId: scope.org.id, expenseId: row.id, ...b })));
    await tx.insert(expenseDocuments)
      .values({
        expenseId: row.id,
        organizationId: scope.org.id,
        contentType: file.contentType,
        // a view of the received bytes, not a copy: a 10 MiB original is not held twice while it is stored
        body: Buffer.from(file.original.buffer, file.original.byteOffset, file.original.byteLength),
        sha256: createHash("sha256").update(file.original).digest("hex"),
        createdAt: now,
      });
    const shown = await showExpense(tx, scope.org.id, row.id);
    await recordChange(tx, scope, { action: "expense.imported", resource: { type: "expense", id: row.id }, event: "expense.created", data: shown });
    return { kind: "expense" as const, data: shown };
  });
}

/** The original document of an imported expense, as it was received (404 when the expense has none). */
export async function expenseDocument(scope: Scope, id: string): Promise<{ contentType: string; body: Uint8Array }> {
  const doc = await snapshot(scope.db, async (tx) => {
    await findInOrg(tx, expenses, scope.org.id, id);
    return await firstRow(tx
      .select()
      .from(expenseDocuments)
      .where(and(eq(expenseDocuments.organizationId, scope.org.id), eq(expenseDocuments.expenseId, id))));
  });
  if (!doc) throw new NotFound();
  return { contentType: doc.contentType, body: doc.body };
}

/** The VAT breakdown as the expense keeps it: Kontor's categories, rates in basis points, the expense's sign. */
function vatLines(doc: SupplierDocument, sign: number) {
  const lines = doc.vatBreakdown.map((b, i) => {
    if (!(VAT_CATEGORIES as readonly string[]).includes(b.category)) {
      throw new InboundDocumentError(
        doc.locations.vatCategories[i]!,
        `The VAT category ${b.category} is not one Kontor books (${VAT_CATEGORIES.join(", ")}).`,
      );
    }
    return { category: b.category as VatCategory, rateBp: b.rateBp ?? 0, baseCents: sign * b.baseCents, vatCents: sign * b.vatCents };
  });
  const bases = lines.reduce((sum, l) => sum + l.baseCents, 0);
  if (bases !== sign * doc.subtotalCents) {
    throw new InboundDocumentError(
      doc.locations.vatBreakdown.path,
      `The ${doc.locations.vatBreakdown.name} add up to ${formatCents(sign * bases)}, not to ${doc.locations.subtotal.name.split("/").pop()} ${formatCents(doc.subtotalCents)}.`,
    );
  }
  return lines;
}

/** The organisation's VAT rate of a document with one category and rate, if it has that rate. */
async function singleRate(tx: Tx, orgId: string, lines: { category: VatCategory; rateBp: number }[]): Promise<string | null> {
  if (lines.length !== 1) return null;
  const rate = await firstRow(tx
    .select({ id: vatRates.id })
    .from(vatRates)
    .where(inOrg(vatRates, orgId, eq(vatRates.category, lines[0]!.category), eq(vatRates.rateBp, lines[0]!.rateBp))));
  return rate?.id ?? null;
}

/** The API's limit of an expense's description (ExpenseModel), which the summary below keeps to. */
const DESCRIPTION_MAX = 5000;

/**
 * What the document is for, in a line: its item names (the first five, as many as fit the
 * description's limit whole; never a name cut short), and how many more there are.
 */
function describe(doc: SupplierDocument): string {
  const names = [...new Set(doc.lines.map((l) => l.name).filter((n): n is string => Boolean(n)))];
  const what = doc.type === "credit_note" ? "Credit note" : "Invoice";
  const summary = (listed: string[]) => {
    const more = names.length - listed.length;
    const items = listed.join("; ") + (more > 0 ? `${listed.length > 0 ? "; and " : ""}${more} more` : "");
    return `${what} ${doc.number}${items ? `: ${items}` : ""}`;
  };
  let listed: string[] = [];
  for (const name of names.slice(0, 5)) {
    if (codePoints(summary([...listed, name])) > DESCRIPTION_MAX) break;
    listed = [...listed, name];
  }
  return summary(listed);
}

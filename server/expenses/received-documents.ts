/**
 * Received documents: a valid supplier e-invoice Kontor cannot book as an expense —
 * all its totals 0.00 (a free delivery), below the expense minimum of 0.01 — is still kept,
 * byte for byte, with the supplier the import matched or created, and listed and shown the way
 * an imported expense's document is. Nothing posts: there is nothing to book.
 */
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { t } from "elysia";
import { receivedDocuments } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import type { SupplierDocument } from "../inbound/einvoice-model.ts";
import { Conflict } from "../lib/errors.ts";
import { listPage, type ListQuery, type ListSpec } from "../lib/list.ts";
import { formatCents } from "../lib/money.ts";
import { Currency, DateString, Uuid } from "../lib/schemas.ts";
import { findInOrg, inOrg, snapshot, unitOfWork, type Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import { supplierForDocument } from "../suppliers/service.ts";
import { firstRow } from "../../db/client.ts";

type ReceivedDocumentRow = typeof receivedDocuments.$inferSelect;

/** Keeps a zero-total document with its supplier (409 naming it when kept before); the document as shown. */
export async function keepReceivedDocument(scope: Scope, file: { original: Uint8Array; contentType: string }, doc: SupplierDocument) {
  return await unitOfWork(scope.db, async (tx) => {
    const supplierId = await supplierForDocument(tx, scope, doc.supplier);
    const existing = await firstRow(tx
      .select({ id: receivedDocuments.id })
      .from(receivedDocuments)
      .where(
        inOrg(
          receivedDocuments,
          scope.org.id,
          eq(receivedDocuments.supplierId, supplierId),
          eq(receivedDocuments.documentType, doc.type),
          eq(receivedDocuments.supplierInvoiceNumber, doc.number),
        ),
      ));
    if (existing) {
      const what = doc.type === "credit_note" ? "credit note" : "invoice";
      throw new Conflict(`The supplier's ${what} ${doc.number} was received before, as received document ${existing.id}.`);
    }
    const row: ReceivedDocumentRow = {
      id: newId(),
      organizationId: scope.org.id,
      supplierId,
      documentType: doc.type,
      supplierInvoiceNumber: doc.number,
      date: doc.issueDate,
      vendor: doc.supplier.name.trim(),
      currency: doc.currency,
      contentType: file.contentType,
      // a view of the received bytes, not a copy: a 10 MiB original is not held twice while it is stored
      body: Buffer.from(file.original.buffer, file.original.byteOffset, file.original.byteLength),
      sha256: createHash("sha256").update(file.original).digest("hex"),
      createdAt: nowIso(),
    };
    await tx.insert(receivedDocuments).values(row);
    // no event for it (docs/webhooks.md#events names none): audited only
    await recordChange(tx, scope, { action: "received_document.kept", resource: { type: "received_document", id: row.id } });
    return presentReceivedDocument(row);
  });
}

export function presentReceivedDocument(row: ReceivedDocumentRow) {
  return {
    id: row.id,
    document_type: row.documentType,
    supplier_invoice_number: row.supplierInvoiceNumber,
    date: row.date,
    vendor: row.vendor,
    supplier_id: row.supplierId,
    currency: row.currency,
    total: formatCents(0),
    document_url: `/api/v1/received-documents/${row.id}/document`,
    sha256: row.sha256,
    created_at: row.createdAt,
  };
}

export const receivedDocumentList: ListSpec<typeof receivedDocuments> = {
  table: receivedDocuments,
  sorts: { date: receivedDocuments.date, created_at: receivedDocuments.createdAt },
  defaultSort: "-date",
  filters: {
    supplier_id: { column: receivedDocuments.supplierId, schema: Uuid },
    currency: { column: receivedDocuments.currency, schema: Currency },
    date_from: { column: receivedDocuments.date, op: "gte", schema: t.String({ ...DateString, description: "On or after this date" }) },
    date_to: { column: receivedDocuments.date, op: "lte", schema: t.String({ ...DateString, description: "On or before this date" }) },
  },
  // a received document never changes: it was last updated when it was kept
  updatedAt: receivedDocuments.createdAt,
};

export const receivedDocumentService = {
  list(scope: Scope, query: ListQuery, url: string) {
    return listPage(scope, receivedDocumentList, query, url, (rows) => rows.map(presentReceivedDocument));
  },
  get(scope: Scope, id: string) {
    return snapshot(scope.db, async (tx) => presentReceivedDocument(await findInOrg(tx, receivedDocuments, scope.org.id, id)));
  },
  /** The original, as it was received. */
  async document(scope: Scope, id: string): Promise<{ contentType: string; body: Uint8Array }> {
    const row = await snapshot(scope.db, (tx) => findInOrg(tx, receivedDocuments, scope.org.id, id));
    return { contentType: row.contentType, body: row.body };
  },
};

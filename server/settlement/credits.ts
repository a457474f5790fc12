/**
 * Credit allocation (docs/invoicing.md#credit-notes): a credit note finalized settles the invoice it
 * credits for what is still due on it, and owes the rest back to the customer (a refund, recorded
 * as a payment of the credit note). `credited_cents` holds the allocation on both sides; the
 * statuses follow the one rule of due.ts. The allocation posts nothing: the invoice and its credit
 * note sit on the same receivables account, so the trial balance already nets them.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { invoices } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { findInOrg, inOrg, updateInOrg, type Scope } from "../lib/scope.ts";
import { nowIso } from "../lib/time.ts";
import { invoiceBalanceCents, invoiceDueCents, settledStatus } from "./due.ts";
import type { Show } from "./model.ts";
import { firstRow } from "../../db/client.ts";

type InvoiceRow = typeof invoices.$inferSelect;

/**
 * What a credit note settles of its invoice, the one rule of finalize, reallocation and the
 * upgrade: what is still due there, at most what the note has neither settled nor had refunded
 * (its own amount due; at its finalize, its total).
 */
export const allocationCents = (note: Pick<InvoiceRow, "totalCents" | "paidCents" | "creditedCents">, invoice: InvoiceRow): number =>
  invoice.status === "cancelled" || invoice.status === "draft" ? 0 : Math.max(0, Math.min(invoiceBalanceCents(note), invoiceDueCents(invoice)));

/**
 * Allocates a credit note that was just finalized (its row as stored, status finalized) to its
 * invoice: the invoice's credited amount grows by the allocation, the note's is the allocation,
 * and both statuses follow. The invoice's change (invoice.updated, audited as invoice.credited)
 * is recorded here, so integrators see its new amount due; the note's is its caller's.
 */
export async function allocateCreditNote(tx: Tx, scope: Scope, note: InvoiceRow, show: Show): Promise<number> {
  if (note.type !== "credit_note" || !note.relatedInvoiceId) return 0;
  const orgId = scope.org.id;
  const invoice = await findInOrg(tx, invoices, orgId, note.relatedInvoiceId);
  const cents = allocationCents(note, invoice);
  await updateInOrg(tx, invoices, orgId, note.id, { creditedCents: cents, status: settledStatus(note, note.paidCents, cents), updatedAt: nowIso() });
  if (cents === 0) return 0;
  await setCredited(tx, orgId, invoice, invoice.creditedCents + cents);
  await recordChange(tx, scope, { action: "invoice.credited", resource: { type: "invoice", id: invoice.id }, event: "invoice.updated", data: await show(tx, orgId, invoice.id) });
  return cents;
}

/**
 * Gives a cancelled credit note's allocation back to its invoice (the caller checked nothing was
 * refunded on the note): the invoice is owed it again, its status follows; the note keeps none.
 */
export async function releaseCreditNote(tx: Tx, scope: Scope, note: InvoiceRow, show: Show): Promise<void> {
  if (note.creditedCents === 0 || !note.relatedInvoiceId) return;
  const orgId = scope.org.id;
  const invoice = await findInOrg(tx, invoices, orgId, note.relatedInvoiceId);
  await updateInOrg(tx, invoices, orgId, note.id, { creditedCents: 0, updatedAt: nowIso() });
  await setCredited(tx, orgId, invoice, invoice.creditedCents - note.creditedCents);
  await recordChange(tx, scope, { action: "invoice.credit_released", resource: { type: "invoice", id: invoice.id }, event: "invoice.updated", data: await show(tx, orgId, invoice.id) });
}

/**
 * After a payment of `invoiceId` is deleted, or one of its credit notes cancelled: its issued credit notes that still owe a refund not
 * yet paid settle what is due on it again (oldest first), as at their finalize, so that an invoice
 * credited in full never asks money while its credit note owes it back. Each note's change is an
 * invoice.updated; the invoice's is its caller's. Whether anything was allocated.
 */
export async function reallocateCreditNotes(tx: Tx, scope: Scope, invoiceId: string, show: Show): Promise<boolean> {
  const orgId = scope.org.id;
  let invoice = await findInOrg(tx, invoices, orgId, invoiceId);
  if (invoice.type !== "invoice" || invoice.status === "cancelled" || invoice.status === "draft") return false;
  const notes = await tx
    .select()
    .from(invoices)
    .where(inOrg(invoices, orgId, eq(invoices.relatedInvoiceId, invoiceId), eq(invoices.type, "credit_note"), sql`${invoices.status} NOT IN ('draft', 'cancelled')`))
    .orderBy(invoices.issueDate, invoices.finalizedAt, invoices.id);
  let changed = false;
  for (const note of notes) {
    const cents = allocationCents(note, invoice);
    if (cents === 0) continue;
    const credited = note.creditedCents + cents;
    await updateInOrg(tx, invoices, orgId, note.id, { creditedCents: credited, status: settledStatus(note, note.paidCents, credited), updatedAt: nowIso() });
    await setCredited(tx, orgId, invoice, invoice.creditedCents + cents);
    invoice = await findInOrg(tx, invoices, orgId, invoiceId);
    await recordChange(tx, scope, { action: "invoice.credited", resource: { type: "invoice", id: note.id }, event: "invoice.updated", data: await show(tx, orgId, note.id) });
    changed = true;
  }
  return changed;
}

async function setCredited(tx: Tx, orgId: string, invoice: InvoiceRow, creditedCents: number): Promise<void> {
  await updateInOrg(tx, invoices, orgId, invoice.id, { creditedCents, status: settledStatus(invoice, invoice.paidCents, creditedCents), updatedAt: nowIso() });
}

/**
 * The upgrade's data migration: allocates the credit notes finalized before allocation existed,
 * in the order of their issue dates (then of their finalization), each to what was still due on
 * its invoice then. Run once, on databases whose credit notes all have credited_cents 0. No
 * change is recorded: the upgrade is no event, and nothing posts.
 */
export async function allocateIssuedCreditNotes(tx: Tx): Promise<void> {
  const notes = await tx
    .select()
    .from(invoices)
    .where(and(eq(invoices.type, "credit_note"), sql`${invoices.status} NOT IN ('draft', 'cancelled')`, sql`${invoices.relatedInvoiceId} IS NOT NULL`, eq(invoices.creditedCents, 0)))
    .orderBy(invoices.issueDate, invoices.finalizedAt, invoices.id);
  for (const note of notes) {
    const invoice = await firstRow(tx.select().from(invoices).where(inOrg(invoices, note.organizationId, eq(invoices.id, note.relatedInvoiceId!))));
    if (!invoice) continue;
    const cents = allocationCents(note, invoice);
    await tx.update(invoices).set({ creditedCents: cents, status: settledStatus(note, note.paidCents, cents) }).where(eq(invoices.id, note.id));
    if (cents > 0) {
      await tx.update(invoices)
        .set({ creditedCents: invoice.creditedCents + cents, status: settledStatus(invoice, invoice.paidCents, invoice.creditedCents + cents) })
        .where(eq(invoices.id, invoice.id));
    }
  }
}

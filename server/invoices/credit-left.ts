/** What is left to credit on an invoice: the bound of its credit notes, checked at their create, update and finalize. */
import { eq, ne, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { invoices } from "../../db/schema.ts";
import { formatCents } from "../lib/money.ts";
import { findInOrg, inOrg } from "../lib/scope.ts";
import type { InvoiceRow } from "./drafts.ts";
import { firstRow } from "../../db/client.ts";

/** The credit notes of an invoice that still count (drafts too, cancelled ones not), leaving out `exceptId`. */
export const creditNotesOf = (orgId: string, invoiceId: string, exceptId: string | null) =>
  inOrg(
    invoices,
    orgId,
    eq(invoices.relatedInvoiceId, invoiceId),
    eq(invoices.type, "credit_note"),
    ne(invoices.status, "cancelled"),
    ...(exceptId ? [ne(invoices.id, exceptId)] : []),
  );

/**
 * What is left to credit on an invoice: its total less the totals of its other credit notes,
 * drafts included (cancelled ones aside), leaving out `exceptId`. Counting drafts refuses the
 * excess when a note is created or edited, not only at its finalize (a note never credits more than is left); an
 * abandoned draft gives its amount back when it is deleted.
 */
export async function creditLeftCents(tx: Tx, orgId: string, invoice: InvoiceRow, exceptId: string | null): Promise<number> {
  const credited = (await firstRow(tx
    .select({ cents: sql<number>`coalesce(sum(${invoices.totalCents}), 0)` })
    .from(invoices)
    .where(creditNotesOf(orgId, invoice.id, exceptId))))!.cents;
  return invoice.totalCents - credited;
}

/** The invoice a credit note credits, with what is left to credit on it besides the note itself. */
export async function creditedBy(tx: Tx, orgId: string, note: InvoiceRow): Promise<{ invoice: InvoiceRow; leftCents: number }> {
  const invoice = await findInOrg(tx, invoices, orgId, note.relatedInvoiceId!);
  return { invoice, leftCents: await creditLeftCents(tx, orgId, invoice, note.id) };
}

/** The 422 on `lines` of a note that credits more than is left. */
export const tooMuchCredit = (invoice: InvoiceRow, leftCents: number) =>
  `A credit note must not credit more than is left to credit on invoice ${invoice.number} (${formatCents(leftCents)}).`;

/**
 * Deleting a draft (`DELETE /invoices/{id}`); its lines, allowances and charges go with it (ON
 * DELETE CASCADE), and a draft credit note gives back what it counted against its invoice.
 * Refuses: 404 for no such invoice; 409 once it is not a draft (an issued document is cancelled
 * instead).
 * Records: invoice.deleted (audit and event, the draft as it was).
 */
import { invoices } from "../../../db/schema.ts";
import { recordChange } from "../../changes/record.ts";
import { deleteInOrg, unitOfWork, type Scope } from "../../lib/scope.ts";
import { showInvoice } from "../read.ts";
import { findFor } from "../transitions.ts";

/** Drafts only; the event carries the invoice as it was. Lines go with it (ON DELETE CASCADE). */
export async function removeDraft(scope: Scope, id: string): Promise<void> {
  await unitOfWork(scope.db, async (tx) => {
    await findFor(tx, scope, id, "delete");
    const last = await showInvoice(tx, scope.org.id, id);
    await deleteInOrg(tx, invoices, scope.org.id, id);
    await recordChange(tx, scope, { action: "invoice.deleted", resource: { type: "invoice", id }, event: "invoice.deleted", data: last });
  });
}

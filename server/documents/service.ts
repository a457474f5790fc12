/**
 * An invoice as what its customer receives: the Peppol BIS Billing 3.0 UBL file and the PDF,
 * both rendered from one read of the document (read.ts), for the API and the CLI alike.
 */
import { Conflict } from "../lib/errors.ts";
import type { Scope } from "../lib/scope.ts";
import { loadDocument } from "./read.ts";
import type { IssuedDocument } from "./model.ts";
import { renderPdf } from "./pdf.ts";
import type { RenderTurns } from "../lib/render-turns.ts";
import { renderUbl } from "./ubl.ts";

const noun = (doc: IssuedDocument) => (doc.type === "credit_note" ? "credit note" : "invoice");

export const documentService = {
  /** The UBL file of an issued document: a draft is a 409; what EN 16931 needs and is missing, a 422 naming it. */
  ubl(scope: Scope, invoiceId: string): string {
    const doc = loadDocument(scope.db, scope.org.id, invoiceId);
    if (doc.status === "draft") throw new Conflict(`The ${noun(doc)} is draft; only a finalized document has an e-invoice (finalize it first).`);
    return renderUbl(doc);
  },

  /** The PDF, also of a draft (marked as such), rendered in the thread's turn (`turns`). */
  pdf(scope: Scope, invoiceId: string, turns: RenderTurns): Promise<Uint8Array> {
    const doc = loadDocument(scope.db, scope.org.id, invoiceId);
    return turns.run(() => renderPdf(doc));
  },
};

/**
 * An invoice as what its customer receives: the Peppol BIS Billing 3.0 UBL file and the PDF,
 * both rendered from one read of the document (read.ts), for the API and the CLI alike.
 */
import { Conflict } from "../lib/errors.ts";
import type { Scope } from "../lib/scope.ts";
import { loadDocument } from "./read.ts";
import type { IssuedDocument } from "./model.ts";
import { renderPdf } from "./pdf.ts";
import { renderUbl } from "./ubl.ts";

/** Where an invoice's documents are served: the links `invoice.finalized` deliveries carry. */
export function documentLinks(invoiceId: string): { pdf: string; ubl: string } {
  return { pdf: `/api/v1/invoices/${invoiceId}/pdf`, ubl: `/api/v1/invoices/${invoiceId}/ubl` };
}

const noun = (doc: IssuedDocument) => (doc.type === "credit_note" ? "credit note" : "invoice");

/**
 * PDFs rendered one at a time per thread, with the thread's other requests let through between
 * two: rendering is CPU work on the thread that answers reads too, and a hundred PDFs rendered
 * side by side (pdf-lib yields between batches of objects) made every read on the thread wait for
 * nearly all of them. One at a time, a read waits for one render at most.
 */
export class RenderTurns {
  #busy = false;
  readonly #waiting: (() => void)[] = [];

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#busy) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#busy = true;
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      // the next render starts after the I/O that came in meanwhile (setImmediate), not before it
      if (next) setImmediate(next);
      else this.#busy = false;
    }
  }
}

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

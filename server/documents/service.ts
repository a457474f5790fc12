/**
 * An issued document as what its customer receives: the Peppol BIS Billing 3.0 (or XRechnung) UBL
 * file, the same as a UN/CEFACT CII file, the PDF and the Factur-X PDF (the PDF with its CII
 * inside), each rendered from one read of the document, for the API and the CLI alike. The read is the
 * feature's own, handed in as a loader (the invoices': server/invoices/document.ts): the
 * documents import no feature.
 *
 * The PDF renderer (pdf-lib, fontkit, the fonts) is loaded on the first PDF, not with this module:
 * the invoice service imports its document read, and with it this module, in every CLI command.
 */
import { ApiError, Conflict, ValidationFailed, type FieldErrors } from "../lib/errors.ts";
import type { RenderTurns } from "../lib/render-turns.ts";
import type { Scope } from "../lib/scope.ts";
import type { IssuedDocument } from "./model.ts";
import { missingForCii, renderCii, type CiiProfile } from "./cii.ts";
import { missingForUbl, renderUbl, type UblProfile } from "./ubl.ts";

/** Reads the document with this id in the scope's organisation, in one snapshot (404 when there is none). */
export type DocumentLoader = (scope: Scope, id: string) => Promise<IssuedDocument>;

const noun = (doc: IssuedDocument) => (doc.type === "credit_note" ? "credit note" : doc.type === "interest_note" ? "interest note" : "invoice");

/**
 * An e-invoice of an issued document (`missing` its rules, `render` its writer); what EN 16931
 * needs and is missing, a 422 naming it. A draft has no e-invoice yet, but is checked as it would
 * be issued: what its e-invoice would lack is the same 422 (a draft can be checked before
 * finalize), and a draft that lacks nothing is a 409.
 */
function issuedEInvoice(doc: IssuedDocument, missingOf: (doc: IssuedDocument) => FieldErrors, render: (doc: IssuedDocument) => string, peppol = false): string {
  const missing = missingOf(doc);
  if (doc.status === "draft") {
    if (Object.keys(missing).length > 0) throw new ValidationFailed(missing);
    throw new Conflict(`The ${noun(doc)} is draft; its e-invoice lacks nothing, and is produced when it is finalized (finalize it first).`);
  }
  if (Object.keys(missing).length > 0) {
    // issued before finalize checked its e-invoice: the frozen parties cannot be fixed afterwards, so say so
    throw new ApiError(
      422,
      `The ${noun(doc)} ${doc.number} was issued without what its e-invoice needs (see errors): an issued document keeps the seller and buyer it was finalized with, ` +
        `so completing the organisation or customer now does not change it. Credit or cancel it and issue a new one.` +
        // what only Peppol needs: the customer may receive another e-invoice that needs none
        (peppol && Object.keys(missing).some((field) => field.endsWith("peppol_id"))
          ? " This is the Peppol BIS UBL; an XRechnung customer's is GET /ubl?profile=xrechnung, a Factur-X customer's GET /cii, and neither needs a Peppol id."
          : ""),
      missing,
    );
  }
  return render(doc);
}

/** The UBL file of an issued document: Peppol BIS Billing 3.0, or XRechnung 3.0. */
export function issuedUbl(doc: IssuedDocument, profile: UblProfile = "peppol"): string {
  return issuedEInvoice(doc, (d) => missingForUbl(d, profile), (d) => renderUbl(d, profile), profile === "peppol");
}

/** The CII file of an issued document: EN 16931 (Factur-X's profile), or XRechnung 3.0. */
export function issuedCii(doc: IssuedDocument, profile: CiiProfile = "en16931"): string {
  return issuedEInvoice(doc, (d) => missingForCii(d, profile), (d) => renderCii(d, profile));
}

/** The Factur-X PDF: the PDF made PDF/A-3b with the document's CII inside, when it has an e-invoice (as the UBL). */
export async function issuedFacturX(doc: IssuedDocument, turns: RenderTurns): Promise<Uint8Array> {
  // the CII its EN 16931 profile asks for: the same 422 and 409 as GET /cii
  const cii = issuedCii(doc, "en16931");
  return turns.run(async () => (await import("./pdf.ts")).renderPdf(doc, { facturx: cii }));
}

/** The PDF, also of a draft (marked as such), rendered in the thread's turn (`turns`). */
export function issuedPdf(doc: IssuedDocument, turns: RenderTurns): Promise<Uint8Array> {
  return turns.run(async () => (await import("./pdf.ts")).renderPdf(doc));
}

/** A document's file: its bytes, and its number as the name it is saved under (a draft's, DRAFT-…). */
export type DocumentFile<T> = { body: T; number: string };

/** The UBL, CII, PDF and Factur-X PDF of the documents `load` reads. */
export function documentServiceOf(load: DocumentLoader) {
  return {
    ubl: async (scope: Scope, id: string, profile: UblProfile = "peppol"): Promise<DocumentFile<string>> => {
      const doc = await load(scope, id);
      return { body: issuedUbl(doc, profile), number: doc.number };
    },
    cii: async (scope: Scope, id: string, profile: CiiProfile = "en16931"): Promise<DocumentFile<string>> => {
      const doc = await load(scope, id);
      return { body: issuedCii(doc, profile), number: doc.number };
    },
    pdf: async (scope: Scope, id: string, turns: RenderTurns): Promise<DocumentFile<Uint8Array>> => {
      const doc = await load(scope, id);
      return { body: await issuedPdf(doc, turns), number: doc.number };
    },
    facturx: async (scope: Scope, id: string, turns: RenderTurns): Promise<DocumentFile<Uint8Array>> => {
      const doc = await load(scope, id);
      return { body: await issuedFacturX(doc, turns), number: doc.number };
    },
  };
}

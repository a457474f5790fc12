/**
 * The one entry point for a supplier's e-invoice XML, whatever its syntax: `readEInvoiceXml` picks
 * the reader by the root element (UBL 2.1 Invoice or CreditNote: ubl-import.ts; UN/CEFACT CII
 * `rsm:CrossIndustryInvoice`: cii-import.ts) and returns the one reader model (einvoice-model.ts).
 * The expense import calls it with an uploaded XML file, and with the XML a Factur-X / ZUGFeRD /
 * XRechnung PDF carries.
 */
import { CII_NS, readCiiDocument } from "./cii-import.ts";
import { decodeXml } from "./decode.ts";
import type { SupplierDocument } from "./einvoice-model.ts";
import { readUblDocument } from "./ubl-import.ts";
import { InboundDocumentError } from "./errors.ts";
import { parseXml } from "./xml.ts";

/** ZUGFeRD 1.0's root element (CII D14 pre-EN 16931, `rsm:CrossIndustryDocument`): a syntax of its own, not read. */
const ZUGFERD_1_NS = "urn:ferd:CrossIndustryDocument:invoice:1p0";

export type { SupplierDocument } from "./einvoice-model.ts";

/**
 * Reads a supplier's e-invoice, UBL 2.1 (Invoice, CreditNote) or UN/CEFACT CII D16B
 * (`rsm:CrossIndustryInvoice`, EN 16931 and XRechnung, the XML of a Factur-X / ZUGFeRD PDF), into
 * the reader model, by its root element. Bytes are decoded as XML says (BOM, declaration; `charset`
 * the HTTP one, if any). Throws InboundDocumentError (a 422 naming the element) for anything else.
 */
export function readEInvoiceXml(input: string | Uint8Array, charset: string | null = null): SupplierDocument {
  const xml = typeof input === "string" ? input : decodeXml(input, charset);
  const root = parseXml(xml);
  if (root.name === "CrossIndustryDocument" && (root.ns === ZUGFERD_1_NS || root.ns === null || root.ns === "")) {
    throw new InboundDocumentError(
      `/${root.name}`,
      "The document is a ZUGFeRD 1.0 invoice (rsm:CrossIndustryDocument). ZUGFeRD 1.0 is not supported; CII (ZUGFeRD 2.x / Factur-X EN 16931, rsm:CrossIndustryInvoice) and UBL 2.1 are.",
    );
  }
  return root.ns === CII_NS && root.name === "CrossIndustryInvoice" ? readCiiDocument(root) : readUblDocument(root);
}


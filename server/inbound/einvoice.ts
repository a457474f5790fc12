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
import { parseXml } from "./xml.ts";

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
  return root.ns === CII_NS && root.name === "CrossIndustryInvoice" ? readCiiDocument(root) : readUblDocument(root);
}


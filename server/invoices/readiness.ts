/**
 * Whether an invoice or credit note could be issued: what finalize checks before it draws a number
 * (docs/invoicing.md), what a draft's `readiness` shows (GET /invoices/{id}). Its PDF always; its
 * UBL (Peppol BIS Billing 3.0) when it must be issued as an e-invoice: the customer has a Peppol
 * id, or the organisation issues e-invoices to its business customers (`einvoice_business_customers`)
 * and the customer is a Belgian business (`underBelgianMandate`); its XRechnung when the customer's `einvoice_profile` is
 * xrechnung; its CII (EN 16931, a Factur-X PDF's XML) when it is facturx.
 *
 * The document is read as finalize would freeze it (readDocument: the organisation and customer as
 * they are now), and the UBL's problems are the UBL renderer's own (`missingForUbl`, which also
 * answers a draft's GET /ubl), so there is one copy of the rules.
 */
import { eq, sql } from "drizzle-orm";
import { preparedQuery, type Tx } from "../../db/client.ts";
import { customers, invoices, organizations } from "../../db/schema.ts";
import { missingForCii } from "../documents/cii.ts";
import { mergeFieldErrors } from "../documents/en16931.ts";
import type { IssuedDocument } from "../documents/model.ts";
import { missingForUbl } from "../documents/ubl.ts";
import { missingLegalMentions } from "../documents/legal-mentions.ts";
import { FieldErrorBag, type FieldErrors } from "../lib/errors.ts";
import { readDocument } from "./document.ts";

/** Whether a draft can be issued, as finalize will judge it (the invoice's `readiness`). */
export type Readiness = {
  ready: boolean;
  /** also issued as a Peppol e-invoice, so its UBL is checked */
  einvoice_required: boolean;
  /** what must be fixed, by the field the client fixes: `organization.*`, `customer.*`, the invoice's own fields */
  problems: FieldErrors;
};

const filled = (value: string | null | undefined): boolean => typeof value === "string" && value.trim() !== "";

/**
 * What the PDF draws and cannot do without: the seller's and buyer's names (its header and
 * address block) and the lines, each with its description. Everything else on it is optional.
 */
function missingForPdf(doc: IssuedDocument): FieldErrors {
  const bag = new FieldErrorBag();
  if (!filled(doc.seller.name)) bag.add("organization.name", "The organization's name is required: it heads the document.");
  if (!filled(doc.buyer.name)) bag.add("customer.name", "The customer's name is required: the document is addressed to it.");
  if (doc.lines.length === 0) bag.add("lines", "A document needs at least one line.");
  for (const line of doc.lines) {
    if (!filled(line.description)) bag.add(`lines.${line.position - 1}.description`, `Line ${line.position} needs a description.`);
  }
  return bag.errors;
}

/**
 * The Belgian e-invoicing mandate: a business customer in Belgium (a Belgian VAT number) receives
 * a structured e-invoice. It covers Belgian business customers only; a customer elsewhere gets what
 * its own profile or Peppol id says (docs/einvoicing.md).
 */
export function underBelgianMandate(buyer: Pick<IssuedDocument["buyer"], "country" | "vatNumber">): boolean {
  const vatNumber = buyer.vatNumber;
  return buyer.country === "BE" && vatNumber !== null && filled(vatNumber) && /^BE/i.test(vatNumber.replace(/[\s.]/g, ""));
}

/**
 * Whether an issued document goes out as an e-invoice as well as a PDF: the buyer has a Peppol id,
 * or the organisation issues e-invoices to its business customers (`einvoice_business_customers`)
 * and the buyer is under the Belgian mandate. Finalize decides with it on the parties it freezes,
 * and the delivery worker on the same parties.
 */
export function issuedAsEinvoice(doc: Pick<IssuedDocument, "buyer">, einvoiceBusinessCustomers: boolean): boolean {
  return filled(doc.buyer.peppolId) || (einvoiceBusinessCustomers && underBelgianMandate(doc.buyer));
}

/**
 * readinessOf for a draft's GET, in its read snapshot: remembered by the connection until anything
 * commits (db/memory.ts), as it depends on the database alone. It reads the whole document (some
 * 90 µs), where the rest of the GET costs about 50. Not in a write transaction: what it read there
 * could be rolled back.
 */
export async function shownReadinessOf(tx: Tx, orgId: string, invoiceId: string): Promise<Readiness> {
  return await tx.connection.memory.refresh().rememberAsync(`readiness\u0000${orgId}\u0000${invoiceId}`, () => readinessOf(tx, orgId, invoiceId));
}

/**
 * The readiness of the invoice `invoiceId` as it is now, read in `tx`. A field both the PDF and
 * the UBL name keeps the UBL's message (it names the rule), so finalize's 422 is the UBL's when
 * an e-invoice is required.
 */
export async function readinessOf(tx: Tx, orgId: string, invoiceId: string): Promise<Readiness> {
  const doc = await readDocument(tx, orgId, invoiceId);
  const org = await preparedQuery(tx, "readiness: organisation", (tx) =>
    tx
      .select({ einvoiceBusinessCustomers: organizations.einvoiceBusinessCustomers, checkLegalMentions: organizations.checkLegalMentions })
      .from(organizations)
      .where(eq(organizations.id, sql.placeholder("orgId")))
      .prepare(),
  ).get({ orgId });
  // the e-invoice the customer receives: XRechnung's rules, or a Factur-X PDF's CII (EN 16931)
  const profile = (await preparedQuery(tx, "readiness: customer's e-invoice profile", (tx) =>
    tx
      .select({ profile: customers.einvoiceProfile })
      .from(invoices)
      .innerJoin(customers, eq(customers.id, invoices.customerId))
      .where(eq(invoices.id, sql.placeholder("invoiceId")))
      .prepare(),
  ).get({ invoiceId }))?.profile;
  const peppol = issuedAsEinvoice(doc, !!org?.einvoiceBusinessCustomers);
  const einvoiceRequired = peppol || profile === "xrechnung" || profile === "facturx";
  const einvoice =
    profile === "xrechnung" ? missingForUbl(doc, "xrechnung") : mergeFieldErrors(peppol ? missingForUbl(doc) : {}, profile === "facturx" ? missingForCii(doc) : {});
  // the mentions the seller's law requires (docs/invoicing.md#legal-mentions), for an organisation that checks them
  const legal = org?.checkLegalMentions ? missingLegalMentions(doc.seller) : {};
  const problems: FieldErrors = mergeFieldErrors({ ...missingForPdf(doc), ...einvoice }, legal);
  return { ready: Object.keys(problems).length === 0, einvoice_required: einvoiceRequired, problems };
}

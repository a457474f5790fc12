/**
 * Suppliers: the shared party logic (server/contacts/party-service.ts) on the suppliers table,
 * plus the vendor → supplier match that expenses use. Its events (supplier.created, .updated,
 * .deleted) are recorded by that shared logic.
 */
import { asc, count, eq, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { expenses, receivedDocuments, suppliers } from "../../db/schema.ts";
import type { SupplierDocument } from "../inbound/einvoice-model.ts";
import { partyService, presentParty } from "../contacts/party-service.ts";
import { inOrg, type Scope } from "../lib/scope.ts";
import { belgianEnterpriseNumberProblem, isVatNumber } from "../lib/vat-numbers.ts";
import { documentIdentity, findSupplier, refreshOwnIdentifiers, rememberDocumentIdentity, type SellerIdentity } from "./identity.ts";
import { firstRow } from "../../db/client.ts";
import { lowerAscii } from "../../db/dialect.ts";

export const supplierService = partyService({
  table: suppliers,
  resourceType: "supplier",
  searchTable: "suppliers_fts",
  events: { created: "supplier.created", updated: "supplier.updated", deleted: "supplier.deleted" },
  show: (_tx, row) => presentParty(row),
  // what identifies it when an e-invoice's seller is matched (./identity.ts)
  afterWrite: refreshOwnIdentifiers,
  deleteBlocker: async (tx, row) => {
    const n = (await firstRow(tx.select({ n: count() }).from(expenses).where(inOrg(expenses, row.organizationId, eq(expenses.supplierId, row.id)))))!.n;
    if (n > 0) return `The supplier has ${n} expense${n === 1 ? "" : "s"} and cannot be deleted.`;
    const kept = (await firstRow(tx.select({ n: count() }).from(receivedDocuments).where(inOrg(receivedDocuments, row.organizationId, eq(receivedDocuments.supplierId, row.id)))))!.n;
    return kept > 0 ? `The supplier has ${kept} received document${kept === 1 ? "" : "s"} and cannot be deleted.` : null;
  },
});

/**
 * The id of the supplier an expense's vendor names: the oldest supplier whose trimmed name
 * matches it case-insensitively, else a new supplier of that name (audited like any creation).
 * Runs in the caller's transaction. Both sides go through SQLite's `lower(trim(…))`, the
 * expression `suppliers_org_lower_name` indexes, so the lookup is one index probe; SQLite's
 * `lower()` folds ASCII letters only ("ÉCOLE" and "école" are two suppliers).
 */
export async function supplierForVendor(tx: Tx, scope: Scope, vendor: string): Promise<string> {
  const name = vendor.trim();
  const match = await firstRow(tx
    .select({ id: suppliers.id })
    .from(suppliers)
    .where(inOrg(suppliers, scope.org.id, sql`lower(trim(${suppliers.name})) = ${lowerAscii(sql`${name}`)}`))
    .orderBy(asc(suppliers.createdAt), asc(suppliers.id))
    .limit(1));
  return match ? match.id : (await supplierService.insert(tx, scope, { name })).id;
}

/**
 * The supplier of an imported e-invoice: the oldest supplier the document's seller is, as
 * ./identity.ts `sameSupplier` decides (VAT number, else legal registration, else Peppol
 * participant id, else the names; never an e-mail endpoint), else a new supplier with the
 * document's name, VAT number and registration (when valid: server/lib/vat-numbers.ts), Peppol
 * id and address. Either way the supplier remembers what the document said of its seller, so the
 * next document is judged on it too. Runs in the caller's transaction.
 */
export async function supplierForDocument(tx: Tx, scope: Scope, party: SupplierDocument["supplier"]): Promise<string> {
  const identity = documentIdentity(party);
  const id = await findSupplier(tx, scope.org.id, identity) ?? await newSupplierOf(tx, scope, party, identity);
  await rememberDocumentIdentity(tx, scope.org.id, id, identity);
  return id;
}

async function newSupplierOf(tx: Tx, scope: Scope, party: SupplierDocument["supplier"], identity: SellerIdentity): Promise<string> {
  const address = party.address;
  const country = address?.country ?? null;
  return (await supplierService.insert(tx, scope, {
    name: party.name.trim(),
    // an invalid number (wrong check digits) stays in the stored document and the supplier's identifiers, not in its vat_number
    vat_number: party.vatNumber !== null && isVatNumber(party.vatNumber) ? party.vatNumber : null,
    company_number: storableRegistration(party, identity.registration?.value ?? null, country),
    peppol_id: identity.peppolId,
    address: address ? [address.line1, address.line2].filter(Boolean).join("\n") || null : null,
    city: address?.city ?? null,
    postal_code: address?.postalCode ?? null,
    country,
  })).id;
}

/**
 * The document's legal registration as the new supplier's company_number, or null: a Belgian
 * one (a Belgian address, or the scheme 0208) only when it is a valid enterprise number, as
 * the API would take it; any other up to the field's 50 characters.
 */
function storableRegistration(party: SupplierDocument["supplier"], registration: string | null, country: string | null): string | null {
  if (registration === null || party.companyId === null || party.companyId.trim().length > 50) return null;
  const belgian = country === "BE" || party.companyIdScheme === "0208";
  return belgian && belgianEnterpriseNumberProblem(registration) !== null ? null : party.companyId.trim();
}

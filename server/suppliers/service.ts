/**
 * Suppliers: the shared party logic (server/contacts/party-service.ts) on the suppliers table,
 * plus the vendor → supplier match that expenses use. api-spec 6.1 names no supplier events.
 */
import { asc, count, eq, sql, type SQL } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { compactVat, expenses, receivedDocuments, suppliers } from "../../db/schema.ts";
import type { SupplierDocument } from "../inbound/einvoice-model.ts";
import { partyService, presentParty } from "../contacts/party-service.ts";
import { inOrg, type Scope } from "../lib/scope.ts";
// compact as suppliers_org_vat indexes it: "BE 0123.456.789" → "BE0123456789"
import { belgianEnterpriseNumberProblem, compactVatNumber, isVatNumber } from "../lib/vat-numbers.ts";
import { isPeppolId } from "../documents/peppol.ts";

export const supplierService = partyService({
  table: suppliers,
  resourceType: "supplier",
  searchTable: "suppliers_fts",
  events: { created: "supplier.created", updated: "supplier.updated", deleted: "supplier.deleted" },
  show: (_tx, row) => presentParty(row),
  deleteBlocker: (tx, row) => {
    const n = tx.select({ n: count() }).from(expenses).where(inOrg(expenses, row.organizationId, eq(expenses.supplierId, row.id))).get()!.n;
    if (n > 0) return `The supplier has ${n} expense${n === 1 ? "" : "s"} and cannot be deleted.`;
    const kept = tx.select({ n: count() }).from(receivedDocuments).where(inOrg(receivedDocuments, row.organizationId, eq(receivedDocuments.supplierId, row.id))).get()!.n;
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
export function supplierForVendor(tx: Tx, scope: Scope, vendor: string): string {
  const name = vendor.trim();
  const match = tx
    .select({ id: suppliers.id })
    .from(suppliers)
    .where(inOrg(suppliers, scope.org.id, sql`lower(trim(${suppliers.name})) = lower(${name})`))
    .orderBy(asc(suppliers.createdAt), asc(suppliers.id))
    .limit(1)
    .get();
  return match ? match.id : supplierService.insert(tx, scope, { name }).id;
}

/**
 * The supplier of an imported e-invoice, found by what identifies the seller, strongest first:
 * the oldest supplier with its VAT number (BT-31, compared in compact form), else with its legal
 * registration (BT-30, compact), else with its Peppol participant id (BT-34 with an EAS scheme),
 * else with its name (as an expense's vendor is matched). An EndpointID of another scheme, such as
 * "EM" (an e-mail address, which a bookkeeper or a test suite shares among many sellers), neither
 * matches nor is stored. A supplier whose VAT number or registration differs from the document's
 * is another company and is never matched, whatever else they share. Else a new supplier with the
 * document's name, VAT number and registration (when valid: server/lib/vat-numbers.ts), Peppol id
 * and address. Runs in the caller's transaction.
 */
export function supplierForDocument(tx: Tx, scope: Scope, party: SupplierDocument["supplier"]): string {
  const vat = party.vatNumber?.trim() ? compactVatNumber(party.vatNumber) : null;
  const registration = party.companyId?.trim() ? compactVatNumber(party.companyId) : null;
  const peppolId = documentPeppolId(party.endpoint);
  const notContradicting = [
    vat === null ? undefined : sql`(${suppliers.vatNumber} IS NULL OR ${compactVat(suppliers.vatNumber)} = ${vat})`,
    registration === null ? undefined : sql`(${suppliers.companyNumber} IS NULL OR ${compactVat(suppliers.companyNumber)} = ${registration})`,
  ];
  const oldest = (condition: SQL) =>
    tx
      .select({ id: suppliers.id })
      .from(suppliers)
      .where(inOrg(suppliers, scope.org.id, condition, ...notContradicting))
      .orderBy(asc(suppliers.createdAt), asc(suppliers.id))
      .limit(1)
      .get()?.id;
  const match =
    (vat === null ? undefined : oldest(sql`${compactVat(suppliers.vatNumber)} = ${vat}`)) ??
    (registration === null ? undefined : oldest(sql`${compactVat(suppliers.companyNumber)} = ${registration}`)) ??
    (peppolId === null ? undefined : oldest(sql`${suppliers.peppolId} = ${peppolId}`)) ??
    oldest(sql`lower(trim(${suppliers.name})) = lower(${party.name.trim()})`);
  if (match) return match;
  const address = party.address;
  const country = address?.country ?? null;
  return supplierService.insert(tx, scope, {
    name: party.name.trim(),
    // an invalid number (wrong check digits) stays in the stored document, not on the supplier
    vat_number: party.vatNumber !== null && isVatNumber(party.vatNumber) ? party.vatNumber : null,
    company_number: storableRegistration(party, registration, country),
    peppol_id: peppolId,
    address: address ? [address.line1, address.line2].filter(Boolean).join("\n") || null : null,
    city: address?.city ?? null,
    postal_code: address?.postalCode ?? null,
    country,
  }).id;
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

/** The document's EndpointID as a Peppol participant id when its scheme is an EAS code (and the id one Kontor accepts), else null. */
function documentPeppolId(endpoint: SupplierDocument["supplier"]["endpoint"]): string | null {
  if (endpoint === null || endpoint.scheme === null) return null;
  const id = `${endpoint.scheme}:${endpoint.id}`;
  return isPeppolId(id) ? id : null;
}

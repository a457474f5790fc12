/**
 * Suppliers: the shared party logic (server/contacts/party-service.ts) on the suppliers table,
 * plus the vendor → supplier match that expenses use. api-spec 6.1 names no supplier events.
 */
import { asc, count, eq, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { compactVat, expenses, suppliers } from "../../db/schema.ts";
import type { SupplierDocument } from "../inbound/ubl-import.ts";
import { partyService, presentParty } from "../contacts/party-service.ts";
import { inOrg, type Scope } from "../lib/scope.ts";
// compact as suppliers_org_vat indexes it: "BE 0123.456.789" → "BE0123456789"
import { compactVatNumber, isVatNumber } from "../lib/vat-numbers.ts";

export const supplierService = partyService({
  table: suppliers,
  resourceType: "supplier",
  searchTable: "suppliers_fts",
  show: (_tx, row) => presentParty(row),
  deleteBlocker: (tx, row) => {
    const n = tx.select({ n: count() }).from(expenses).where(inOrg(expenses, row.organizationId, eq(expenses.supplierId, row.id))).get()!.n;
    return n > 0 ? `The supplier has ${n} expense${n === 1 ? "" : "s"} and cannot be deleted.` : null;
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
 * The supplier of an imported e-invoice: the oldest with its VAT number (compared in compact
 * form), else with its Peppol id, else with its name (as an expense's vendor is matched); else a
 * new supplier with the document's name, VAT number (when it is a valid one: server/lib/vat-numbers.ts),
 * Peppol id and address. Runs in the caller's transaction.
 */
export function supplierForDocument(tx: Tx, scope: Scope, party: SupplierDocument["supplier"]): string {
  const oldest = (condition: ReturnType<typeof sql>) =>
    tx
      .select({ id: suppliers.id })
      .from(suppliers)
      .where(inOrg(suppliers, scope.org.id, condition))
      .orderBy(asc(suppliers.createdAt), asc(suppliers.id))
      .limit(1)
      .get()?.id;
  const byVat = party.vatNumber ? oldest(sql`${compactVat(suppliers.vatNumber)} = ${compactVatNumber(party.vatNumber)}`) : undefined;
  if (byVat) return byVat;
  const byPeppol = party.peppolId ? oldest(sql`${suppliers.peppolId} = ${party.peppolId}`) : undefined;
  if (byPeppol) return byPeppol;
  const byName = oldest(sql`lower(trim(${suppliers.name})) = lower(${party.name.trim()})`);
  if (byName) return byName;
  const address = party.address;
  return supplierService.insert(tx, scope, {
    name: party.name.trim(),
    // an invalid number (wrong check digits) stays in the stored document, not on the supplier
    vat_number: party.vatNumber !== null && isVatNumber(party.vatNumber) ? party.vatNumber : null,
    peppol_id: party.peppolId,
    address: address ? [address.line1, address.line2].filter(Boolean).join("\n") || null : null,
    city: address?.city ?? null,
    postal_code: address?.postalCode ?? null,
    country: address?.country ?? null,
  }).id;
}

/**
 * The customer an issued document embeds (docs/api.md#embedded-data): frozen at finalize, as
 * `GET /customers/{id}` showed it then, its party fields those of the buyer its PDF and e-invoice
 * carry (`invoices.issued_parties`). It never changes afterwards, so it needs no event; `id`
 * links the live customer. A draft embeds the live customer instead, and a change of it is an
 * `invoice.updated` of each draft (touchCustomerDrafts in service.ts).
 */
import { and, eq, isNotNull, isNull } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { customers, invoices } from "../../db/schema.ts";
import type { DocumentParty, IssuedCustomer } from "../../db/values.ts";
import { showCustomer } from "../customers/service.ts";
import type { PartyRow } from "../contacts/party-service.ts";

/** The customer as shown (showCustomer's shape), its party fields replaced by the buyer as issued. */
export function issuedCustomerOf(shown: { id: string } & Record<string, unknown>, buyer: DocumentParty): IssuedCustomer {
  return {
    ...shown,
    type: buyer.vatNumber ? "organization" : "individual",
    name: buyer.name,
    email: buyer.email,
    phone: buyer.phone,
    address: buyer.address,
    city: buyer.city,
    postal_code: buyer.postalCode,
    country: buyer.country,
    vat_number: buyer.vatNumber,
    company_number: buyer.companyNumber,
    peppol_id: buyer.peppolId,
  };
}

/** The customer an invoice being finalized freezes, read in the finalize's transaction. */
export function issuedCustomer(tx: Tx, row: PartyRow, buyer: DocumentParty): IssuedCustomer {
  return issuedCustomerOf(showCustomer(tx, row), buyer);
}

/**
 * Data migration: the documents issued before the customer was frozen with them embed the buyer
 * their documents carry, with the customer's other fields (contact persons, metadata, …) as they
 * are at the upgrade, from then on unchanged. One issued before the parties were frozen (no
 * issued_parties) keeps embedding the live customer, as its PDF shows the live one.
 */
export function backfillIssuedCustomers(tx: Tx): void {
  const pending = and(isNotNull(invoices.issuedParties), isNull(invoices.issuedCustomer));
  // customer by customer: each is read once, and no more than one customer's documents are held at a time
  const customerIds = tx.selectDistinct({ id: invoices.customerId }).from(invoices).where(pending).all();
  for (const { id } of customerIds) {
    const shown = showCustomer(tx, tx.select().from(customers).where(eq(customers.id, id)).get()!);
    const rows = tx.select({ id: invoices.id, parties: invoices.issuedParties }).from(invoices).where(and(pending, eq(invoices.customerId, id))).all();
    for (const row of rows) tx.update(invoices).set({ issuedCustomer: issuedCustomerOf(shown, row.parties!.buyer) }).where(eq(invoices.id, row.id)).run();
  }
}

/**
 * The customer an issued document embeds (docs/api.md#embedded-data): frozen at finalize, as
 * `GET /customers/{id}` showed it then, its party fields those of the buyer its PDF and e-invoice
 * carry (`invoices.issued_parties`). It never changes afterwards, so it needs no event; `id`
 * links the live customer. A draft embeds the live customer instead, and a change of it is an
 * `invoice.updated` of each draft (touchCustomerDrafts in service.ts). The documents issued before
 * the customer was frozen with them got theirs from migration 0050, in SQL, in the same shape.
 */
import type { Tx } from "../../db/client.ts";
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
export async function issuedCustomer(tx: Tx, row: PartyRow, buyer: DocumentParty): Promise<IssuedCustomer> {
  return issuedCustomerOf(await showCustomer(tx, row), buyer);
}

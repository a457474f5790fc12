/**
 * The same connector with @hey-api/openapi-ts (its fetch client and SDK, one function per
 * operationId). tests/openapi/generated-clients.test.ts generates `../generated/hey-api/` from
 * the served document, compiles this file with `tsc --strict` (no cast, no `any`) and runs it.
 */
import { createClient } from "../generated/hey-api/client";
import { createCustomerBatch, createInvoiceBatch, listCustomers, listInvoices, type Customer, type Invoice, type InvoiceCreate } from "../generated/hey-api";
import type { Synced } from "./openapi-fetch.ts";

export async function syncWithHeyApi(baseUrl: string, token: string, fetch: typeof globalThis.fetch, tag: string): Promise<Synced> {
  const client = createClient({ baseUrl, fetch, headers: { Authorization: `Bearer ${token}` } });
  const synced: Synced = { created: [], invalid: [], heldBy: [], tagged: [], invoices: [], invoicesFromShop: [] };

  const customers = await createCustomerBatch({
    client,
    body: {
      items: [
        { name: `First ${tag}`, external_id: `${tag}-c1`, metadata: { channel: tag } },
        { name: "" },
        { name: `Again ${tag}`, external_id: `${tag}-c1` },
        { name: `Second ${tag}`, metadata: { channel: tag } },
      ],
    },
  });
  if (!customers.data) throw new Error(`customers batch: ${JSON.stringify(customers.error)}`);
  for (const result of customers.data.data) {
    switch (result.status) {
      case 201: {
        const customer: Customer = result.data;
        synced.created.push(customer.id);
        break;
      }
      case 422:
        synced.invalid.push(result.errors);
        break;
      default:
        // 403, 404 or 409: the error body; a taken external_id names its holder
        if (result.holder_id !== undefined) synced.heldBy.push(result.holder_id);
    }
  }

  const tagged = await listCustomers({ client, query: { "filter[metadata]": { channel: tag }, per_page: 100 } });
  if (!tagged.data) throw new Error(`customers by metadata: ${JSON.stringify(tagged.error)}`);
  synced.tagged = tagged.data.data.map((customer) => customer.id);

  const customerId = synced.created[0];
  if (customerId === undefined) throw new Error("no customer created");
  const order = (reference: string, source: string): InvoiceCreate => ({
    customer_id: customerId,
    issue_date: "2026-06-01",
    external_id: reference,
    metadata: { source },
    lines: [{ description: "Order", quantity: "1", unit_price: "10.00" }],
  });
  const invoices = await createInvoiceBatch({
    client,
    body: { items: [order(`${tag}-o1`, `shop-${tag}`), order(`${tag}-o2`, `phone-${tag}`), order(`${tag}-o1`, `shop-${tag}`)] },
  });
  if (!invoices.data) throw new Error(`invoices batch: ${JSON.stringify(invoices.error)}`);
  for (const result of invoices.data.data) {
    if (result.status === 201) {
      const invoice: Invoice = result.data;
      synced.invoices.push(invoice.id);
    }
  }

  const fromShop = await listInvoices({ client, query: { "filter[metadata]": { source: `shop-${tag}` } } });
  if (!fromShop.data) throw new Error(`invoices by metadata: ${JSON.stringify(fromShop.error)}`);
  synced.invoicesFromShop = fromShop.data.data.map((invoice) => invoice.id);
  return synced;
}

/**
 * A connector as an integrator writes it with openapi-typescript + openapi-fetch: imports
 * customers and orders in batches, reads each result by its status, and finds its rows again by
 * metadata. tests/openapi/generated-clients.test.ts generates `../generated/openapi-typescript.ts`
 * from the served document, compiles this file with `tsc --strict` (no cast, no `any`) and runs it.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "../generated/openapi-typescript.ts";

type Customer = components["schemas"]["Customer"];
type Invoice = components["schemas"]["Invoice"];

export type Synced = {
  created: string[];
  invalid: Record<string, string[]>[];
  heldBy: string[];
  tagged: string[];
  invoices: string[];
  invoicesFromShop: string[];
};

export async function syncWithOpenapiFetch(baseUrl: string, token: string, fetch: typeof globalThis.fetch, tag: string): Promise<Synced> {
  const kontor = createClient<paths>({ baseUrl, fetch, headers: { Authorization: `Bearer ${token}` } });
  const synced: Synced = { created: [], invalid: [], heldBy: [], tagged: [], invoices: [], invoicesFromShop: [] };

  const customers = await kontor.POST("/api/v1/customers/batch", {
    body: {
      items: [
        { name: `First ${tag}`, external_id: `${tag}-c1`, metadata: { channel: tag } },
        { name: "" },
        { name: `Again ${tag}`, external_id: `${tag}-c1` },
        { name: `Second ${tag}`, metadata: { channel: tag } },
      ],
    },
  });
  if (!customers.data) throw new Error(`customers batch: ${customers.response.status}`);
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

  const tagged = await kontor.GET("/api/v1/customers", { params: { query: { "filter[metadata]": { channel: tag }, per_page: 100 } } });
  if (!tagged.data) throw new Error(`customers by metadata: ${tagged.response.status}`);
  synced.tagged = tagged.data.data.map((customer) => customer.id);

  const customerId = synced.created[0];
  if (customerId === undefined) throw new Error("no customer created");
  const order = (reference: string, source: string) => ({
    customer_id: customerId,
    issue_date: "2026-06-01",
    external_id: reference,
    metadata: { source },
    lines: [{ description: "Order", quantity: "1", unit_price: "10.00" }],
  });
  const invoices = await kontor.POST("/api/v1/invoices/batch", {
    body: { items: [order(`${tag}-o1`, `shop-${tag}`), order(`${tag}-o2`, `phone-${tag}`), order(`${tag}-o1`, `shop-${tag}`)] },
  });
  if (!invoices.data) throw new Error(`invoices batch: ${invoices.response.status}`);
  for (const result of invoices.data.data) {
    if (result.status === 201) {
      const invoice: Invoice = result.data;
      synced.invoices.push(invoice.id);
    }
  }

  const fromShop = await kontor.GET("/api/v1/invoices", { params: { query: { "filter[metadata]": { source: `shop-${tag}` } } } });
  if (!fromShop.data) throw new Error(`invoices by metadata: ${fromShop.response.status}`);
  synced.invoicesFromShop = fromShop.data.data.map((invoice) => invoice.id);
  return synced;
}

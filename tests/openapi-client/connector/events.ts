/**
 * The connector's events: a `switch` on an event's `type` reads `data` as that event's resource,
 * typed by each generator from the document's `Event` (a oneOf of the events, discriminated by
 * `type`). tests/openapi/generated-clients.test.ts compiles it with the rest of the connector
 * once the document types `Event` so; with `data` an untyped object it cannot compile.
 */
import type { components } from "../generated/openapi-typescript.ts";
import type { Event as HeyApiEvent, Invoice as HeyApiInvoice } from "../generated/hey-api";

type Event = components["schemas"]["Event"];
type Invoice = components["schemas"]["Invoice"];

/** The invoice an `invoice.created` event carries (openapi-typescript's types); null for any other event. */
export function createdInvoice(event: Event): Invoice | null {
  switch (event.type) {
    case "invoice.created": {
      const invoice: Invoice = event.data;
      return invoice;
    }
    default:
      return null;
  }
}

/** The same with hey-api's types. */
export function createdInvoiceHeyApi(event: HeyApiEvent): HeyApiInvoice | null {
  switch (event.type) {
    case "invoice.created": {
      const invoice: HeyApiInvoice = event.data;
      return invoice;
    }
    default:
      return null;
  }
}

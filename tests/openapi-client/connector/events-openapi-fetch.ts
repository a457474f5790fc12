/**
 * An event handler typed by openapi-typescript: a switch on the event's `type` reads `data` as the
 * event's own resource (the document's `Event` is a oneOf discriminated by `type`), no cast.
 */
import type { components } from "../generated/openapi-typescript.ts";

type Event = components["schemas"]["Event"];
type Invoice = components["schemas"]["Invoice"];

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

/**
 * The same event handler with @hey-api/openapi-ts's types: a switch on `type` narrows `data` to
 * the event's own resource, no cast.
 */
import type { Event, Invoice } from "../generated/hey-api";

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

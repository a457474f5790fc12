/** Kept apart from the renderers (service.ts): the invoice service, which the CLI loads too, needs only this. */
/** Where an invoice's documents are served: the links `invoice.finalized` deliveries carry. */
export function documentLinks(invoiceId: string): { pdf: string; ubl: string } {
  return { pdf: `/api/v1/invoices/${invoiceId}/pdf`, ubl: `/api/v1/invoices/${invoiceId}/ubl` };
}


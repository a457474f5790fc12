/** Webhook event names (api-spec 6.1). */
export const WEBHOOK_EVENTS = [
  "invoice.created", "invoice.updated", "invoice.deleted", "invoice.finalized", "invoice.payment_recorded",
  "customer.created", "customer.updated", "customer.deleted",
  "expense.created", "expense.updated", "expense.deleted", "expense.approved",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

import type { Ability } from "../auth/abilities.ts";

/**
 * Event names, `<resource>.<what happened>`, of webhooks and of the events feed alike
 * (docs/webhooks.md#events): one for every change a client can make through the API, suppliers,
 * contact persons, the organisation and the chart's accounts included, so that every change a client can make through the API has an event a connector can follow.
 */
export const WEBHOOK_EVENTS = [
  "invoice.created", "invoice.updated", "invoice.deleted", "invoice.finalized", "invoice.payment_recorded",
  "invoice.sent", "invoice.delivery_failed", "invoice.reminder_sent",
  "customer.created", "customer.updated", "customer.deleted",
  "supplier.created", "supplier.updated", "supplier.deleted",
  "contact_person.created", "contact_person.updated", "contact_person.deleted",
  "organization.updated",
  "expense.created", "expense.updated", "expense.deleted", "expense.approved",
  "fiscal_year.closed", "fiscal_year.reopened",
  "bank_transaction.imported", "bank_transaction.matched", "bank_transaction.booked", "bank_transaction.unbooked",
  "account.created", "account.updated", "account.deleted",
  "bank_transaction.allocated", "bank_transaction.reclassified",
  "vat_return.filed",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** "invoice" of "invoice.created": the resource type an event's `data` holds. */
export type EventResource = WebhookEvent extends `${infer R}.${string}` ? R : never;

/**
 * The ability that reads each resource type directly (docs/api.md#tokens-and-abilities). A webhook carries nothing its
 * manager could not read (webhooks service, `requireEventAccess`); an event of a new resource
 * type does not compile until it is mapped here.
 */
export const RESOURCE_VIEW_ABILITY: Record<EventResource, Ability> = {
  invoice: "invoicing.view",
  customer: "contacts.view",
  supplier: "contacts.view",
  contact_person: "contacts.view",
  organization: "organization.view",
  expense: "expenses.view",
  fiscal_year: "accounting.view",
  bank_transaction: "banking.view",
  account: "accounting.view",
  vat_return: "reporting.view",
};

export const resourceOf = (event: string): EventResource => event.slice(0, event.indexOf(".")) as EventResource;

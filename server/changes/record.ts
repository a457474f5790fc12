/**
 * The one write path for the side effects of a change: its journal entries, its audit entry and
 * its webhook deliveries. `recordChange` writes them in the change's own transaction, so a change
 * cannot commit without them, nor they without it; a service never calls `postEntry`, `audit` or
 * `emit` itself.
 */
import type { Tx } from "../../db/client.ts";
import { customers } from "../../db/schema.ts";
import { audit } from "../audit/service.ts";
import { showBankTransaction } from "../banking/service.ts";
import { showCustomer } from "../customers/service.ts";
import { showExpense } from "../expenses/service.ts";
import { showFiscalYear } from "../fiscal-years/service.ts";
import { readOrganization } from "../orgs/service.ts";
import { showInvoice } from "../invoices/service.ts";
import { applyLedgerEffects, type LedgerEffect } from "../ledger/post.ts";
import { findInOrg, type Scope } from "../lib/scope.ts";
import type { WebhookEvent } from "../webhooks/events.ts";
import { emit } from "../webhooks/outbox.ts";

type PayloadBuilder = (tx: Tx, orgId: string, id: string) => unknown;

// each resource as its GET shows it, read in the change's transaction
const invoice = (tx: Tx, orgId: string, id: string) => showInvoice(tx, orgId, id);
const customer = (tx: Tx, orgId: string, id: string) => showCustomer(tx, findInOrg(tx, customers, orgId, id));
const expense = (tx: Tx, orgId: string, id: string) => showExpense(tx, orgId, id);
const bankTransaction = (tx: Tx, orgId: string, id: string) => showBankTransaction(tx, orgId, id);
const fiscalYear = (tx: Tx, orgId: string, year: string) => showFiscalYear(tx, readOrganization(tx, orgId), Number(year));

/**
 * Event name → the function that builds its `data` from the resource's id. An event without a
 * builder does not compile. A `*.deleted` event carries the resource's last state: its caller
 * builds that before the delete and passes it as `data`.
 */
export const PAYLOADS = {
  "invoice.created": invoice,
  "invoice.updated": invoice,
  "invoice.deleted": invoice,
  "invoice.finalized": invoice,
  "invoice.payment_recorded": invoice,
  "customer.created": customer,
  "customer.updated": customer,
  "customer.deleted": customer,
  "expense.created": expense,
  "expense.updated": expense,
  "expense.deleted": expense,
  "expense.approved": expense,
  "fiscal_year.closed": fiscalYear,
  "fiscal_year.reopened": fiscalYear,
  "bank_transaction.imported": bankTransaction,
  "bank_transaction.matched": bankTransaction,
} as const satisfies Record<WebhookEvent, PayloadBuilder>;

export type Payload<E extends WebhookEvent> = ReturnType<(typeof PAYLOADS)[E]>;

/** The `data` of `event` for the resource with this id, as it is now in the transaction. */
export function payloadOf<E extends WebhookEvent>(tx: Tx, orgId: string, event: E, id: string): Payload<E> {
  return PAYLOADS[event](tx, orgId, id) as Payload<E>;
}

export type Change<E extends WebhookEvent> = {
  /** the audit entry's action, e.g. "invoice.sent" (finer than the event: "invoice.updated") */
  action: string;
  /** what the audit entry names; also whose payload the event carries unless `data` is given */
  resource: { type: string; id: string };
  /** the webhook event, if the change has one (tokens, users, suppliers have none) */
  event?: E;
  /**
   * The event's payload when the caller holds it already (the shown resource it answers with),
   * or when it cannot be read any more (a delete: the last state); else built by PAYLOADS.
   */
  data?: Payload<E>;
  /** related URLs the delivery carries beside `data` (an issued invoice: its PDF and UBL) */
  links?: Record<string, string>;
  /** what the change posts to the ledger (server/ledger/rules.ts), or reverses */
  ledger?: LedgerEffect[];
};

/**
 * Writes the journal entries, the audit entry and the webhook deliveries of a change. Call it
 * inside the change's transaction, after the change: a payload built here reads the resource as
 * changed. A posting into a closed fiscal year is a 409 that rolls the change back.
 */
export function recordChange<E extends WebhookEvent>(tx: Tx, scope: Scope, change: Change<E>): void {
  if (change.ledger) applyLedgerEffects(tx, scope.org.id, change.ledger);
  audit(tx, scope, change.action, change.resource.type, change.resource.id);
  if (change.event === undefined) return;
  emit(tx, scope, change.event, change.data ?? payloadOf(tx, scope.org.id, change.event, change.resource.id), change.links);
}

/**
 * The one write path for the side effects of a change: its journal entries, its audit entry and
 * its webhook deliveries. `recordChange` writes them in the change's own transaction, so a change
 * cannot commit without them, nor they without it; a service never calls `postEntry`, `audit` or
 * `emit` itself.
 */
import type { Tx } from "../../db/client.ts";
import { audit } from "../audit/service.ts";
import type { LedgerEffect } from "../ledger/draft.ts";
import { applyLedgerEffects } from "../ledger/post.ts";
import type { Scope } from "../lib/scope.ts";
import type { WebhookEvent } from "./events.ts";
import { emit } from "./outbox.ts";

type ChangeRecord = {
  /** the audit entry's action, e.g. "invoice.sent" (finer than the event: "invoice.updated") */
  action: string;
  /** what the audit entry names */
  resource: { type: string; id: string };
  /** what the change posts to the ledger (server/ledger/rules.ts), or reverses */
  ledger?: LedgerEffect[];
};

/**
 * A change, and the webhook event it emits if it has one (tokens, users, suppliers have none).
 * The event's `data` is the resource as its GET shows it after the change, built by its feature's
 * read side (`showInvoice`, `showCustomer`, …): the write path knows no feature. A delete passes
 * the last state.
 */
export type Change =
  | (ChangeRecord & { event?: undefined })
  | (ChangeRecord & {
      event: WebhookEvent;
      /** the payload, or what builds it once the change's postings are written (a fiscal year's totals) */
      data: unknown | (() => unknown);
      /** related URLs the delivery carries beside `data` (an issued invoice: its PDF and UBL) */
      links?: Record<string, string>;
    });

/**
 * Writes the journal entries, the audit entry and the webhook deliveries of a change. Call it
 * inside the change's transaction, after the change. A posting into a closed fiscal year is a 409 that rolls the change back.
 */
export function recordChange(tx: Tx, scope: Scope, change: Change): void {
  if (change.ledger) applyLedgerEffects(tx, scope.org.id, change.ledger);
  audit(tx, scope, change.action, change.resource.type, change.resource.id);
  if (change.event === undefined) return;
  const data = typeof change.data === "function" ? change.data() : change.data;
  emit(tx, scope, change.event, data, change.links);
}

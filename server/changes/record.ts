/**
 * The one write path for the side effects of a change: its journal entries, its audit entry and
 * its events (the feed and the webhook deliveries). `recordChange` writes them in the change's
 * own transaction, so a change cannot commit without them, nor they without it; a service never
 * calls `postEntry`, `audit` or `emit` itself.
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

/** An event of a change: its name and its payload. */
export type ChangeEvent = {
  event: WebhookEvent;
  /** the payload, or what builds it once the change's postings are written (a fiscal year's totals) */
  data: unknown | (() => unknown);
  /** related URLs the event carries beside `data` (an issued invoice: its PDF and UBL) */
  links?: Record<string, string>;
  /** invoice.payment_recorded: the id of the payment recorded, carried beside `data` as `payment_id` */
  paymentId?: string;
};

/**
 * A change, and the event it emits if it has one (tokens, users, webhooks have none). The
 * event's `data` is the resource as its GET shows it after the change, built by its feature's
 * read side (`showInvoice`, `showCustomer`, …): the write path knows no feature. A delete passes
 * the last state. `also`: further events of the same change (a contact person's own event beside
 * its customer's customer.updated).
 */
export type Change =
  | (ChangeRecord & { event?: undefined; also?: ChangeEvent[] })
  | (ChangeRecord & ChangeEvent & { also?: ChangeEvent[] });

/**
 * Writes the journal entries, the audit entry and the events of a change. Call it inside the
 * change's transaction, after the change. A posting into a closed fiscal year is a 409 that
 * rolls the change back.
 */
export async function recordChange(tx: Tx, scope: Scope, change: Change): Promise<void> {
  if (change.ledger) await applyLedgerEffects(tx, scope.org.id, change.ledger);
  await audit(tx, scope, change.action, change.resource.type, change.resource.id);
  const changeEvents = change.event === undefined ? (change.also ?? []) : [change, ...(change.also ?? [])];
  for (const { event, data: build, links, paymentId } of changeEvents) {
    const data: unknown = await (typeof build === "function" ? build() : build);
    await emit(tx, scope, { type: event, resourceId: resourceIdOf(data, change), data, links, paymentId });
  }
}

/** The id of the resource an event carries: its `id`, or (a fiscal year, named by its year) the change's. */
function resourceIdOf(data: unknown, change: ChangeRecord): string {
  const id = (data as { id?: unknown } | null)?.id;
  return typeof id === "string" ? id : change.resource.id;
}

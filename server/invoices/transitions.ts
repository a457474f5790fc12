import { invoices } from "../../db/schema.ts";
import { stateMachine, type Transition } from "../lib/transitions.ts";
import { nounOf } from "./checks.ts";
import type { InvoiceStatus } from "./model.ts";

/**
 * The state machine (docs/invoicing.md#states-and-payments), as data: the states each operation starts from,
 * and what the 409 says otherwise (after "The invoice is <status>; ").
 */
const TRANSITIONS = {
  update: { from: ["draft"], refusal: "only a draft can be edited" },
  delete: { from: ["draft"], refusal: "only a draft can be deleted" },
  finalize: { from: ["draft"], refusal: "only a draft can be finalized" },
  cancel: { from: ["finalized", "sent"], refusal: "only a finalized or sent invoice without payments can be cancelled" },
  // a credit note's allocation makes it partially paid or paid without any refund: it can still be cancelled
  cancelCreditNote: {
    from: ["finalized", "sent", "partially_paid", "paid"],
    refusal: "only an issued credit note on which nothing was refunded can be cancelled",
  },
  creditNote: {
    from: ["finalized", "sent", "partially_paid", "paid"],
    refusal: "only a finalized, sent, partially paid or paid invoice can be credited",
  },
} as const satisfies Record<string, Transition<InvoiceStatus>>;
/** Loads the invoice (404) and checks that an operation may start from its state (409 naming it). */
export const findFor = stateMachine(invoices, (row) => nounOf(row.type), TRANSITIONS);

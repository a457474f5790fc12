/**
 * STUB (helper "reminders"): the contract of the interest helper's real file, so that reminder
 * runs compile and run before the merge. Zero amounts; issueInterestNote is never reached with
 * them. The integrator takes the interest helper's file instead of this one.
 */
import type { Tx } from "../../db/client.ts";
import type { Scope } from "../lib/scope.ts";

export type LateClaim = {
  invoice_id: string;
  as_of: string;
  customer_type: "organization" | "individual";
  currency: string;
  principal_periods: { from: string; to: string; days: number; rate: string; base: string; interest: string }[];
  interest: string;
  compensation: string;
  already_charged: { interest: string; compensation: string };
  chargeable: { interest: string; compensation: string };
  chargeable_from: string | null;
  law: string;
};

export function lateClaim(tx: Tx, orgId: string, invoiceId: string, asOf: string, opts: { firstReminderAcceptedOn: string | null }): LateClaim {
  void opts;
  const row = tx.$client
    .query<{ currency: string; vat_number: string | null }, [string, string]>(
      "SELECT i.currency, c.vat_number FROM invoices i JOIN customers c ON c.id = i.customer_id WHERE i.organization_id = ? AND i.id = ?",
    )
    .get(orgId, invoiceId);
  return {
    invoice_id: invoiceId,
    as_of: asOf,
    customer_type: row?.vat_number ? "organization" : "individual",
    currency: row?.currency ?? "EUR",
    principal_periods: [],
    interest: "0.00",
    compensation: "0.00",
    already_charged: { interest: "0.00", compensation: "0.00" },
    chargeable: { interest: "0.00", compensation: "0.00" },
    chargeable_from: null,
    law: "stub",
  };
}

export function issueInterestNote(
  tx: Tx,
  scope: Scope,
  invoiceId: string,
  asOf: string,
  opts: { firstReminderAcceptedOn: string | null; interest?: boolean; compensation?: boolean },
): { id: string } {
  void tx, scope, invoiceId, asOf, opts;
  throw new Error("issueInterestNote: stub, the interest helper's file replaces it");
}

/**
 * Interest notes (docs/reminders.md#interest-notes): a separate document of type `interest_note` that
 * charges a late invoice's interest and compensation (./claim.ts). It names the invoice
 * (`related_invoice_id`, BillingReference in its UBL), is numbered in its own series (INT-…),
 * carries its lines outside the scope of VAT (category O), and once finalized posts receivables
 * against late-payment income; it is paid like an invoice. The original invoice never changes.
 */
import type { Tx } from "../../db/client.ts";
import { findInOrg, inOrg, unitOfWork, type Scope } from "../lib/scope.ts";
import { asc, eq, inArray, sql } from "drizzle-orm";
import { documentDeliveries, invoices, organizations, reminders } from "../../db/schema.ts";
import { FieldErrorBag, ValidationFailed } from "../lib/errors.ts";
import { addDays, isValidDate, localDate, today } from "../lib/time.ts";
import type { NewLine } from "../invoices/checks.ts";
import type { ShownInvoice } from "../invoices/read.ts";
import { currentParties } from "../invoices/document.ts";
import { finalizeInvoice } from "../invoices/commands/finalize.ts";
import { insertDraft } from "../invoices/drafts.ts";
import { computeClaim, readClaimInput, type ClaimInput } from "./claim.ts";
import { interestWords, lawText } from "./wording.ts";
import { firstRow } from "../../db/client.ts";

/** An interest note is payable on receipt, within an invoice's default payment term, 30 days. */
const PAYMENT_DAYS = 30;

/**
 * The local date a channel accepted the invoice's first reminder after its due date (Book XIX's
 * free reminder; a friendly note before the due date is not one), in the organisation's time
 * zone; a `manual` reminder counts as accepted on its run's date. null while none was accepted.
 * Read from the reminders' and deliveries' tables (the reminders feature, a tier above, records them).
 */
export async function firstReminderAcceptedOn(tx: Tx, orgId: string, invoiceId: string): Promise<string | null> {
  return (await firstRemindersAcceptedOn(tx, orgId, [invoiceId])).get(invoiceId) ?? null;
}

/**
 * `firstReminderAcceptedOn` of several invoices in one query (a reminder run's batch): each
 * invoice's date, or null; invoices without any reminder are absent.
 */
export async function firstRemindersAcceptedOn(tx: Tx, orgId: string, invoiceIds: readonly string[]): Promise<Map<string, string | null>> {
  const found = new Map<string, string | null>();
  if (invoiceIds.length === 0) return found;
  const rows = await tx
    .select({ invoiceId: reminders.invoiceId, channel: reminders.channel, runDate: reminders.runDate, acceptedAt: documentDeliveries.acceptedAt })
    .from(reminders)
    .leftJoin(documentDeliveries, eq(documentDeliveries.id, reminders.deliveryId))
    .where(inOrg(reminders, orgId, inArray(reminders.invoiceId, [...invoiceIds]), eq(reminders.skipped, false), sql`${reminders.daysAfterDue} > 0`))
    .orderBy(asc(reminders.invoiceId), asc(reminders.level));
  if (rows.length === 0) return found;
  const timezone = (await firstRow(tx.select({ timezone: organizations.timezone }).from(organizations).where(eq(organizations.id, orgId))))?.timezone ?? "Europe/Brussels";
  for (const row of rows) {
    // the first in level order that was accepted decides; a later one is not read
    if (found.get(row.invoiceId)) continue;
    const accepted = row.channel === "manual" ? row.runDate : row.acceptedAt ? localDate(timezone, new Date(row.acceptedAt)) : null;
    found.set(row.invoiceId, accepted);
  }
  return found;
}

/** What a note charges: both by default; a reminder level may charge only one of them (its policy). */
export type InterestNoteOptions = {
  firstReminderAcceptedOn: string | null;
  interest?: boolean;
  compensation?: boolean;
  /** the claim's input as the caller read it in this transaction (a reminder run's plan): not read again */
  input?: ClaimInput;
};

function oneLine(description: string, cents: number): NewLine {
  return {
    description,
    unitCode: "C62",
    vatRateId: null,
    vatRateBp: 0,
    quantityCents: 100,
    unitPriceCents: cents,
    discountPercentBp: null,
    discountCents: 0,
    discountReason: null,
    amountCents: cents,
    vatCents: 0,
    // outside the scope of VAT: not on the return, whatever it supplies
    supplyType: null,
  };
}

/**
 * A draft interest note for the invoice as of `asOf` (issued on that day): a line per period of
 * interest not charged yet ("Interest 2025-11-16–2025-12-31 at 10.50 % on 1000.00 EUR (46 days)",
 * in the note's language: ./wording.ts) and the compensation when it was not charged yet. A 422 when nothing is chargeable, saying why.
 */
export async function createInterestNoteDraft(tx: Tx, scope: Scope, invoiceId: string, asOf: string, opts: InterestNoteOptions): Promise<ShownInvoice> {
  const bag = new FieldErrorBag();
  if (!isValidDate(asOf)) bag.add("as_of", "The date must be a valid date, YYYY-MM-DD.");
  else if (asOf > today()) bag.add("as_of", `The date must not be later than today (${today()}): interest is charged for days gone by.`);
  bag.throwIfAny();
  const input = opts.input ?? await readClaimInput(tx, scope.org.id, invoiceId, asOf, opts);
  const figures = computeClaim(input);
  const { claim } = figures;
  const chargeInterest = opts.interest !== false && figures.chargeableInterestCents > 0;
  const compensationCents = opts.compensation !== false ? figures.chargeableCompensationCents : 0;
  if ((chargeInterest ? figures.chargeableInterestCents : 0) + compensationCents === 0) {
    const charged = claim.already_charged.interest !== "0.00" || claim.already_charged.compensation !== "0.00";
    const why = asOf <= input.dueDate ? `: it is due on ${input.dueDate}` : charged ? ": earlier interest notes charged everything due so far" : "";
    throw ValidationFailed.field("as_of", `Nothing is chargeable on this invoice as of ${asOf}${why}. ${claim.law}`.trim());
  }
  const original = await findInOrg(tx, invoices, scope.org.id, invoiceId);
  // its lines and remark in the language the note is issued in (the customer's, else the organisation's)
  const language = (await currentParties(tx, scope.org.id, original.customerId)).language;
  const words = interestWords(language);
  const lines = (chargeInterest ? figures.newPeriods : []).map((p) => oneLine(words.interest(p, input.currency), p.interestCents));
  if (compensationCents > 0) lines.push(oneLine(claim.customer_type === "organization" ? words.compensation : words.damages, compensationCents));
  return insertDraft(
    tx,
    scope,
    {
      customerId: original.customerId,
      type: "interest_note",
      relatedInvoiceId: original.id,
      issueDate: asOf,
      dueDate: addDays(asOf, PAYMENT_DAYS),
      currency: original.currency,
      notes: `${words.late(original.number, original.issueDate, original.dueDate)} ${lawText(figures.lawNotes, language)}`.slice(0, 5000),
      paymentTerms: original.paymentTerms,
      buyerReference: original.buyerReference,
      orderReference: original.orderReference,
      pricesIncludeVat: false,
      // the days whose interest it charges: none when the note charges only the compensation
      interestThrough: chargeInterest ? figures.through : null,
      compensationCents,
    },
    lines,
    null,
  );
}

/**
 * Creates and finalizes an interest note in the caller's transaction (the reminder run's): the
 * note is numbered and posted, or nothing is stored. `opts` defaults to the reminders' record.
 * The organisation's send-on-finalize does not send it: the reminder that issues it carries it
 * (attached to its e-mail, and over Peppol to a Peppol customer), so it is not sent twice.
 */
export async function issueInterestNote(tx: Tx, scope: Scope, invoiceId: string, asOf: string, opts?: InterestNoteOptions): Promise<ShownInvoice> {
  const draft = await createInterestNoteDraft(tx, scope, invoiceId, asOf, opts ?? { firstReminderAcceptedOn: await firstReminderAcceptedOn(tx, scope.org.id, invoiceId) });
  return await finalizeInvoice(scope, draft.id, { sendOnFinalize: false });
}

export const interestService = {
  /** POST /invoices/{id}/interest-note: a draft, in one transaction. */
  async createNote(scope: Scope, invoiceId: string, asOf: string | undefined): Promise<ShownInvoice> {
    return await unitOfWork(scope.db, async (tx) =>
      createInterestNoteDraft(tx, scope, invoiceId, asOf ?? today(), { firstReminderAcceptedOn: await firstReminderAcceptedOn(tx, scope.org.id, invoiceId) }),
    );
  },
};

/**
 * What a late invoice's customer owes beyond the invoice: statutory interest and the fixed
 * compensation (or, for a consumer, the damages Book XIX allows), as of a date, less what earlier
 * interest notes of the same invoice charged.
 *
 * Business customers (customer type `organization`): Directive 2011/7/EU, in Belgium the law of
 * 2 August 2002 on combating late payment in commercial transactions. Interest runs without
 * notice from the day after the due date (art. 5) at the published rate of the half year
 * (server/interest/rates-be.ts, the 8 points included), plus a fixed €40 for recovery costs once
 * per invoice (art. 6; Directive art. 6), or the organisation's higher amount. Kontor keeps no
 * exchange rates: a non-euro invoice gets the amount the organisation set for its currency, or none.
 *
 * Consumers (`individual`): Belgian Code of Economic Law, Book XIX (in force 1 September 2023).
 * Art. XIX.2: the first reminder is free and gives a term of at least 14 calendar days, which
 * starts on the working day after an electronic reminder is sent; nothing may be charged before
 * it expires. Art. XIX.4: the interest rate may not exceed the rate of art. 5 of the law of
 * 2 August 2002 (the same table), and the damages may not exceed €20 on an amount due of up to
 * €150; €30 plus 10 % of the part from €150.01 to €500; €65 plus 5 % of the part above €500, at
 * most €2,000. Kontor charges interest only from the end of that term (the conservative reading),
 * the damages at their cap on the amount still due on that day, and no €40. Public holidays are
 * not modelled: a working day is Monday to Friday.
 *
 * Day count: actual/365, the Belgian practice for statutory interest (the rate is yearly, each day
 * earns 1/365 of it, leap years too). Rounding, the one rounding: each period's interest is kept
 * as an exact fraction (cents × rate in hundredths of a percent × days / 3 650 000); the running
 * sum is rounded half-up to the cent, and a period's interest is the rounded running sum at its
 * end less the rounded running sum before it. The periods' interests therefore add up exactly to
 * the total, which is the exact total rounded once.
 */
import { eq, inArray, ne } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { customers, invoices, organizations, payments } from "../../db/schema.ts";
import { Conflict } from "../lib/errors.ts";
import { divRoundHalfUp, formatCents } from "../lib/money.ts";
import { findInOrg, inOrg } from "../lib/scope.ts";
import { addDays } from "../lib/time.ts";
import type { DatePeriod } from "../../db/values.ts";
import { hasRates, ratesBetween, type RatePeriod } from "./rates.ts";
import { lawText, type LawNote } from "./wording.ts";
import { firstRow } from "../../db/client.ts";

/** The statutory fixed compensation for recovery costs (Directive 2011/7/EU art. 6; law of 2 August 2002 art. 6). */
export const STATUTORY_COMPENSATION_CENTS = 4000;
/** actual/365 with rates in hundredths of a percent: cents × bp × days / DENOMINATOR. */
const DENOMINATOR = 10_000n * 365n;
/** Book XIX applies to Belgian organisations. */
const CONSUMER_LAW_COUNTRY = "BE";

export type ClaimPeriod = { from: string; to: string; days: number; rate: string; base: string; interest: string };

export type LateClaim = {
  invoice_id: string;
  as_of: string;
  customer_type: "organization" | "individual";
  currency: string;
  /** each stretch of days at one rate on one amount due, from the first day interest runs to as_of */
  principal_periods: ClaimPeriod[];
  /** the interest of all the periods (rounded once) and the compensation (or a consumer's damages) the law allows */
  interest: string;
  compensation: string;
  /** what earlier interest notes of the invoice (drafts included, cancelled ones not) charged */
  already_charged: { interest: string; compensation: string };
  /** what may still be charged: the above less what was charged */
  chargeable: { interest: string; compensation: string };
  /** the first day anything is chargeable: the day after the due date, or for a consumer the day after the reminder's term; null: not yet known */
  chargeable_from: string | null;
  /** which law was applied, and why something is not charged */
  law: string;
  /**
   * The days interest would run on and no statutory rate covers (the country has no table, or the
   * half year's rate is not added yet): no interest is computed for them until the rate is added
   * (kontor rates add); a later interest note picks them up
   */
  missing_rates: DatePeriod[];
};

/** The claim with its figures in cents, and what an interest note needs to write its lines. */
export type ClaimFigures = {
  claim: LateClaim;
  interestCents: number;
  compensationCents: number;
  chargeableInterestCents: number;
  chargeableCompensationCents: number;
  /** the periods after what was already charged, with their interest in cents: an interest note's lines */
  newPeriods: { from: string; to: string; days: number; rateBp: number; baseCents: number; interestCents: number }[];
  /** the last day whose interest the claim covers (as_of, or the last day with a published rate) */
  through: string | null;
  /** the claim's `law` as facts, for an interest note to say in its language (./wording.ts) */
  lawNotes: LawNote[];
};

/** What the pure computation reads (`computeClaim`). */
export type ClaimInput = {
  invoiceId: string;
  asOf: string;
  dueDate: string;
  currency: string;
  totalCents: number;
  customerType: "organization" | "individual";
  /** what reduced the amount due, from its date: payments (payment date), finalized credit notes (issue date, the part allocated) */
  reductions: readonly { date: string; cents: number }[];
  country: string;
  /** false: the country has no rate table */
  hasTable: boolean;
  /** the country's rates over the claim's days */
  rates: readonly RatePeriod[];
  /** the organisation's compensation of a EUR invoice (null: the statutory €40), and per other currency */
  compensationCents: number | null;
  compensationByCurrency: Readonly<Record<string, number>>;
  firstReminderAcceptedOn: string | null;
  already: { interestCents: number; compensationCents: number; through: string | null };
};

const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
const rateText = (bp: number) => (bp / 100).toFixed(2);
const isWeekend = (date: string) => [0, 6].includes(new Date(`${date}T00:00:00Z`).getUTCDay());

/** The working day after `date` (Monday to Friday; public holidays are not modelled). */
function nextWorkingDay(date: string): string {
  let day = addDays(date, 1);
  while (isWeekend(day)) day = addDays(day, 1);
  return day;
}

/**
 * The first day a consumer may be charged (art. XIX.2): the 14-day term of the first, free
 * reminder starts on the working day after the channel accepted it; the day after it ends.
 */
export function consumerChargeableFrom(firstReminderAcceptedOn: string): string {
  return addDays(nextWorkingDay(firstReminderAcceptedOn), 14);
}

/**
 * Art. XIX.4's cap on a consumer's damages, on the amount due (cents): €20 up to €150; €30 + 10 %
 * of the part above €150 up to €500; €65 + 5 % of the part above €500, at most €2,000. The
 * percentages round half-up to the cent.
 */
export function consumerDamagesCapCents(dueCents: number): number {
  if (dueCents <= 0) return 0;
  if (dueCents <= 15_000) return 2_000;
  if (dueCents <= 50_000) return 3_000 + Number(divRoundHalfUp(BigInt(dueCents - 15_000), 10n));
  return Math.min(200_000, 6_500 + Number(divRoundHalfUp(BigInt(dueCents - 50_000), 20n)));
}

/** The amount due on `date`: the total less every reduction dated that day or before. */
const dueOn = (input: ClaimInput, date: string) => input.totalCents - input.reductions.filter((r) => r.date <= date).reduce((sum, r) => sum + r.cents, 0);

/** The claim, pure: no database, no clock (tests/interest/interest.test.ts checks its figures by hand). */
export function computeClaim(input: ClaimInput): ClaimFigures {
  const organization = input.customerType === "organization";
  const notes: LawNote[] = [];
  let start = addDays(input.dueDate, 1);
  let chargeableFrom: string | null = start;
  if (organization) {
    notes.push({ kind: "business", country: input.country });
  } else if (input.country !== CONSUMER_LAW_COUNTRY) {
    chargeableFrom = null;
    notes.push({ kind: "consumer_elsewhere", country: input.country });
  } else if (input.firstReminderAcceptedOn === null) {
    chargeableFrom = null;
    notes.push({ kind: "consumer_no_reminder" });
  } else {
    chargeableFrom = consumerChargeableFrom(input.firstReminderAcceptedOn);
    if (chargeableFrom > start) start = chargeableFrom;
    notes.push({ kind: "consumer", acceptedOn: input.firstReminderAcceptedOn, termEnds: addDays(chargeableFrom, -1), from: chargeableFrom });
  }
  const missing: DatePeriod[] = [];
  if (!input.hasTable && chargeableFrom !== null) {
    notes.push({ kind: "no_table", country: input.country });
    if (start <= input.asOf && dueOn(input, start) > 0) missing.push({ from: start, to: input.asOf });
  }

  // the days where something changes: a rate starts or ends, the amount due drops, what was charged ends
  const periods: ClaimFigures["newPeriods"] = [];
  let through: string | null = null;
  if (chargeableFrom !== null && input.hasTable && start <= input.asOf) {
    const cuts = new Set<string>([start, addDays(input.asOf, 1)]);
    for (const r of input.rates) for (const day of [r.from, addDays(r.to, 1)]) if (day > start && day <= input.asOf) cuts.add(day);
    for (const r of input.reductions) if (r.date > start && r.date <= input.asOf) cuts.add(r.date);
    const charged = input.already.through;
    if (charged && addDays(charged, 1) > start && charged < input.asOf) cuts.add(addDays(charged, 1));
    const days = [...cuts].sort();
    for (let i = 0; i + 1 < days.length; i++) {
      const from = days[i]!;
      const to = addDays(days[i + 1]!, -1);
      const rate = input.rates.find((r) => r.from <= from && from <= r.to);
      const baseCents = dueOn(input, from);
      if (!rate) {
        // a stretch with nothing due earns nothing: no rate is missing there
        if (baseCents <= 0) continue;
        const last = missing.at(-1);
        if (last && addDays(last.to, 1) === from) last.to = to;
        else missing.push({ from, to });
        continue;
      }
      if (baseCents <= 0) continue;
      periods.push({ from, to, days: daysBetween(from, to), rateBp: rate.rateBp, baseCents, interestCents: 0 });
      through = to;
    }
    if (missing.length > 0) notes.push({ kind: "missing_rates", periods: missing });
  }
  // the one rounding: the running sum of exact fractions, rounded half-up at each period's end
  let exact = 0n;
  let rounded = 0;
  for (const p of periods) {
    exact += BigInt(p.baseCents) * BigInt(p.rateBp) * BigInt(p.days);
    const next = Number(divRoundHalfUp(exact, DENOMINATOR));
    p.interestCents = next - rounded;
    rounded = next;
  }
  const interestCents = rounded;

  let compensationCents = 0;
  if (chargeableFrom !== null && chargeableFrom <= input.asOf && dueOn(input, chargeableFrom) > 0) {
    if (!organization) compensationCents = consumerDamagesCapCents(dueOn(input, chargeableFrom));
    else if (input.currency === "EUR") compensationCents = Math.max(input.compensationCents ?? STATUTORY_COMPENSATION_CENTS, STATUTORY_COMPENSATION_CENTS);
    else {
      compensationCents = input.compensationByCurrency[input.currency] ?? 0;
      if (compensationCents === 0) notes.push({ kind: "no_compensation", currency: input.currency });
    }
  }
  const chargeableInterestCents = Math.max(0, interestCents - input.already.interestCents);
  const chargeableCompensationCents = Math.max(0, compensationCents - input.already.compensationCents);
  // an interest note charges the periods after the last one charged; what earlier notes charged
  // differs from their periods' share only when a payment was recorded later with an earlier date
  const charged = input.already.through;
  const newPeriods = periods.filter((p) => charged === null || p.from > charged);
  const newSum = newPeriods.reduce((sum, p) => sum + p.interestCents, 0);
  const last = newPeriods.at(-1);
  if (last && newSum !== chargeableInterestCents) last.interestCents += chargeableInterestCents - newSum;

  return {
    claim: {
      invoice_id: input.invoiceId,
      as_of: input.asOf,
      customer_type: input.customerType,
      currency: input.currency,
      principal_periods: periods.map((p) => ({ from: p.from, to: p.to, days: p.days, rate: rateText(p.rateBp), base: formatCents(p.baseCents), interest: formatCents(p.interestCents) })),
      interest: formatCents(interestCents),
      compensation: formatCents(compensationCents),
      already_charged: { interest: formatCents(input.already.interestCents), compensation: formatCents(input.already.compensationCents) },
      chargeable: { interest: formatCents(chargeableInterestCents), compensation: formatCents(chargeableCompensationCents) },
      chargeable_from: chargeableFrom,
      law: lawText(notes),
      missing_rates: missing,
    },
    interestCents,
    compensationCents,
    chargeableInterestCents,
    chargeableCompensationCents,
    newPeriods: newPeriods.filter((p) => p.interestCents > 0),
    through: through ?? charged,
    lawNotes: notes,
  };
}

/** The interest notes that charge an invoice (drafts too: a draft reserves what it charges; cancelled ones not). */
export const interestNotesOf = (orgId: string, invoiceId: string) =>
  inOrg(invoices, orgId, eq(invoices.relatedInvoiceId, invoiceId), eq(invoices.type, "interest_note"), ne(invoices.status, "cancelled"));

/** Reads the invoice, its customer, payments, credit notes and earlier interest notes, and the rates, in `tx`. */
export async function readClaimInput(tx: Tx, orgId: string, invoiceId: string, asOf: string, opts: { firstReminderAcceptedOn: string | null }): Promise<ClaimInput> {
  const invoice = await findInOrg(tx, invoices, orgId, invoiceId);
  if (invoice.type !== "invoice") throw new Conflict(`The document is ${invoice.type === "credit_note" ? "a credit note" : "an interest note"}; interest is charged on invoices only.`);
  if (invoice.status === "draft" || invoice.status === "cancelled") throw new Conflict(`The invoice is ${invoice.status}; only an issued invoice can be late.`);
  const org = (await firstRow(tx.select().from(organizations).where(eq(organizations.id, orgId))))!;
  const buyerVat = invoice.issuedParties ? invoice.issuedParties.buyer.vatNumber : (await findInOrg(tx, customers, orgId, invoice.customerId)).vatNumber;
  const paid = await tx
    .select({ date: payments.paymentDate, cents: payments.amountCents })
    .from(payments)
    .where(inOrg(payments, orgId, eq(payments.invoiceId, invoiceId)));
  const credited = await tx
    .select({ date: invoices.issueDate, cents: invoices.creditedCents })
    .from(invoices)
    .where(inOrg(invoices, orgId, eq(invoices.relatedInvoiceId, invoiceId), eq(invoices.type, "credit_note"), inArray(invoices.status, ["finalized", "sent", "partially_paid", "paid"])));
  const notes = await tx.select().from(invoices).where(interestNotesOf(orgId, invoiceId));
  const already = {
    interestCents: notes.reduce((sum, n) => sum + n.totalCents - (n.compensationCents ?? 0), 0),
    compensationCents: notes.reduce((sum, n) => sum + (n.compensationCents ?? 0), 0),
    through: notes.map((n) => n.interestThrough).filter((d): d is string => d !== null).sort().at(-1) ?? null,
  };
  return {
    invoiceId,
    asOf,
    dueDate: invoice.dueDate,
    currency: invoice.currency,
    totalCents: invoice.totalCents,
    customerType: buyerVat ? "organization" : "individual",
    reductions: [...paid, ...credited],
    country: org.country,
    hasTable: await hasRates(tx, org.country),
    rates: await ratesBetween(tx, org.country, addDays(invoice.dueDate, 1), asOf),
    compensationCents: org.lateCompensationCents,
    compensationByCurrency: org.lateCompensationByCurrency,
    firstReminderAcceptedOn: opts.firstReminderAcceptedOn,
    already,
  };
}

/** The claim on an invoice as of `asOf` (YYYY-MM-DD), in `tx`: what the reminders show and an interest note charges. */
export async function lateClaim(tx: Tx, orgId: string, invoiceId: string, asOf: string, opts: { firstReminderAcceptedOn: string | null }): Promise<LateClaim> {
  return computeClaim(await readClaimInput(tx, orgId, invoiceId, asOf, opts)).claim;
}

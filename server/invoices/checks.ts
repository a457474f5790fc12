/** What an invoice's input must satisfy before anything is written: its customer, number, lines and dates (422s). */
import { eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { customers } from "../../db/schema.ts";
import { UNIT_CODES } from "../documents/unit-codes.ts";
import { FieldErrorBag } from "../lib/errors.ts";
import { formatCents, MAX_CENTS, readMoney } from "../lib/money.ts";
import { inOrg } from "../lib/scope.ts";
import { readVatRate } from "../vat-rates/service.ts";
import { defaultSupplyType } from "../vat-returns/grids.ts";
import type { SupplyType } from "../../db/values.ts";
import type { AllowanceChargeInput, InvoiceType, LineInput } from "./model.ts";
import { FULL_PERCENT_BP, lineGross, percentOf, priceInvoice, priceLine, type LinePrice } from "./totals.ts";
import { numberHolder, reservedNumberForm } from "./numbering.ts";
import { firstRow } from "../../db/client.ts";

// all collected, then thrown together as one 422 (FieldErrorBag)

export async function readCustomer(tx: Tx, orgId: string, bag: FieldErrorBag, id: string): Promise<typeof customers.$inferSelect | null> {
  const row = await firstRow(tx.select().from(customers).where(inOrg(customers, orgId, eq(customers.id, id))));
  if (!row) bag.add("customer_id", "The selected customer_id is invalid.");
  return row ?? null;
}

/**
 * A number given by the client: trimmed, not blank, not in the form of an automatic series or of
 * a provisional number (numbering.ts), unique in the organisation (the refusal names the document
 * holding it).
 */
export async function readNumber(tx: Tx, orgId: string, bag: FieldErrorBag, input: string, exceptId?: string): Promise<string> {
  const number = input.trim();
  if (number === "") {
    bag.add("number", "The number field must not be empty.");
    return number;
  }
  const reserved = reservedNumberForm(number);
  if (reserved) {
    bag.add("number", reserved);
    return number;
  }
  const holder = await numberHolder(tx, orgId, number, exceptId);
  if (holder) bag.add("number", `The number has already been taken, by ${nounOf(holder.type)} ${holder.id}.`);
  return number;
}

/** A line as it is stored: its input (with its discount in price terms) and its net amount and VAT. */
/** What a document of this type is called in messages. */
export const nounOf = (type: InvoiceType) => (type === "credit_note" ? "credit note" : type === "interest_note" ? "interest note" : "invoice");

export type NewLine = {
  description: string;
  unitCode: string;
  vatRateId: string | null;
  vatRateBp: number;
  quantityCents: number;
  unitPriceCents: number;
  /** the discount given as a percentage (hundredths of a percent), else null */
  discountPercentBp: number | null;
  /** the discount in price terms: the amount given, or the percentage's */
  discountCents: number;
  discountReason: string | null;
  amountCents: number;
  vatCents: number;
  /** goods or services (the Belgian return's 44 / 46): as given, else goods at a K rate, else services */
  supplyType: SupplyType | null;
};

/** A document allowance or charge as it is stored (its amount in price terms). */
export type NewAllowanceCharge = {
  isCharge: boolean;
  amountCents: number;
  baseCents: number | null;
  percentBp: number | null;
  reason: string | null;
  reasonCode: string | null;
  vatRateId: string | null;
  vatRateBp: number;
};

/** The unit of a line without one: C62, "one" (UN/ECE Recommendation 20). */
export const DEFAULT_UNIT_CODE = "C62";

/** UNCL5189 allowance reason codes and UNCL7161 charge reason codes, as EN 16931 BR-CL-19 and BR-CL-20 list them. */
const ALLOWANCE_REASON_CODES = new Set("41 42 60 62 63 64 65 66 67 68 70 71 88 95 100 102 103 104 105".split(" "));
const CHARGE_REASON_CODES = new Set(
  (
    "AA AAA AAC AAD AAE AAF AAH AAI AAS AAT AAV AAY AAZ ABA ABB ABC ABD ABF ABK ABL ABN ABR ABS ABT ABU ACF ACG ACH ACI ACJ ACK ACL ACM " +
    "ACS ADC ADE ADJ ADK ADL ADM ADN ADO ADP ADQ ADR ADT ADW ADY ADZ AEA AEB AEC AED AEF AEH AEI AEJ AEK AEL AEM AEN AEO AEP AES AET AEU " +
    "AEV AEW AEX AEY AEZ AJ AU CA CAB CAD CAE CAF CAI CAJ CAK CAL CAM CAN CAO CAP CAQ CAR CAS CAT CAU CAV CAW CAX CAY CAZ CD CG CS CT DAB " +
    "DAD DAC DAF DAG DAH DAI DAJ DAK DAL DAM DAN DAO DAP DAQ DL EG EP ER FAA FAB FAC FC FH FI GAA HAA HD HH IAA IAB ID IF IR IS KO L1 LA " +
    "LAA LAB LF MAE MI ML NAA OA PA PAA PC PL PRV RAB RAC RAD RAF RE RF RH RV SA SAA SAD SAE SAI SG SH SM SU TAB TAC TT TV V1 V2 WH XAA YY ZZZ"
  ).split(" "),
);

const given = (value: unknown): value is string | number => value !== null && value !== undefined;
const optionalText = (value: string | null | undefined): string | null => (value === null || value === undefined || value.trim() === "" ? null : value.trim());

/** A line's figures for the arithmetic of totals.ts: its discount as the percentage given, else as its amount. */
export const linePrice = (line: NewLine): LinePrice => ({
  quantityCents: line.quantityCents,
  unitPriceCents: line.unitPriceCents,
  vatRateBp: line.vatRateBp,
  discountPercentBp: line.discountPercentBp,
  discountAmountCents: line.discountPercentBp === null ? line.discountCents : 0,
});

/**
 * Prices the invoice: each line's net amount and VAT, with its allowances and charges, as
 * totals.ts computes them; the totals are the invoice's columns.
 */
export function priceDraft(pricesIncludeVat: boolean, lines: readonly NewLine[], allowanceCharges: readonly NewAllowanceCharge[]) {
  const priced = priceInvoice(pricesIncludeVat, lines.map(linePrice), allowanceCharges);
  return {
    lines: lines.map((line, i) => ({ ...line, amountCents: priced.lines[i]!.amountCents, vatCents: priced.lines[i]!.vatCents })),
    totals: priced.totals,
  };
}

/**
 * Reads and prices the lines (among themselves: `priceDraft` prices them again with the
 * invoice's allowances and charges); errors are keyed `lines.N.field`.
 */
export async function readLines(tx: Tx, orgId: string, bag: FieldErrorBag, input: LineInput[], pricesIncludeVat = false): Promise<NewLine[]> {
  const lines: NewLine[] = [];
  for (const [i, line] of input.entries()) {
    const field = `lines.${i}`;
    const description = line.description.trim();
    if (description === "") bag.add(`${field}.description`, `The ${field}.description field must not be empty.`);
    const quantityCents = readMoney(bag, `${field}.quantity`, line.quantity, { min: 1 });
    const unitPriceCents = readMoney(bag, `${field}.unit_price`, line.unit_price, { min: 0 });
    const rate = line.vat_rate_id ? await readVatRate(tx, orgId, bag, `${field}.vat_rate_id`, line.vat_rate_id) : null;
    if (line.unit_code !== undefined && !UNIT_CODES.has(line.unit_code)) {
      bag.add(`${field}.unit_code`, `The ${field}.unit_code field must be a UN/ECE Recommendation 20 or 21 unit code (e.g. C62, HUR, DAY, KGM).`);
    }
    let discountPercentBp: number | null = null;
    let discountAmountCents = 0;
    let discountOk = true;
    if (given(line.discount_percent) && given(line.discount_amount)) {
      bag.add(`${field}.discount_amount`, `Give ${field}.discount_percent or ${field}.discount_amount, not both.`);
      discountOk = false;
    } else if (given(line.discount_percent)) {
      discountPercentBp = readMoney(bag, `${field}.discount_percent`, line.discount_percent, { min: 1, max: FULL_PERCENT_BP });
      discountOk = discountPercentBp !== null;
    } else if (given(line.discount_amount)) {
      const cents = readMoney(bag, `${field}.discount_amount`, line.discount_amount, { min: 1 });
      discountOk = cents !== null;
      discountAmountCents = cents ?? 0;
    }
    const discountReason = optionalText(line.discount_reason);
    if (discountReason !== null && !given(line.discount_percent) && !given(line.discount_amount)) {
      bag.add(`${field}.discount_reason`, `The ${field}.discount_reason field needs a discount (discount_percent or discount_amount).`);
    }
    if (quantityCents === null || unitPriceCents === null || !discountOk) continue;
    const price = { quantityCents, unitPriceCents, vatRateBp: rate?.rateBp ?? 0, discountPercentBp, discountAmountCents };
    const { grossCents, discountCents } = lineGross(price);
    if (discountCents > grossCents) {
      bag.add(`${field}.discount_amount`, `The discount of line ${i + 1} must not be greater than its quantity × unit price (${formatCents(grossCents)}).`);
      continue;
    }
    const priced = priceLine(price);
    if (grossCents + priced.vatCents > MAX_CENTS) {
      bag.add(field, `The amount of line ${i + 1} (quantity × unit price, with VAT) must not be greater than ${formatCents(MAX_CENTS)}.`);
      continue;
    }
    lines.push({
      description,
      unitCode: line.unit_code ?? DEFAULT_UNIT_CODE,
      vatRateId: rate?.id ?? null,
      vatRateBp: price.vatRateBp,
      quantityCents,
      unitPriceCents,
      discountPercentBp,
      discountCents,
      discountReason,
      amountCents: priced.amountCents,
      vatCents: priced.vatCents,
      supplyType: line.supply_type ?? defaultSupplyType(rate?.category ?? "Z"),
    });
  }
  if (lines.length === input.length) {
    const priced = priceDraft(pricesIncludeVat, lines, []);
    if (priced.totals.totalCents > MAX_CENTS) bag.add("lines", `The invoice total must not be greater than ${formatCents(MAX_CENTS)}.`);
    return priced.lines;
  }
  return lines;
}

/**
 * Reads the document-level allowances and charges (BG-20, BG-21) of an invoice with these lines
 * (read by readLines); errors are keyed `allowances_charges.N.field`. A percentage's base defaults
 * to the sum of the lines at the same VAT rate (after their discounts, in price terms). Per VAT
 * rate, the allowances may not exceed its lines and charges: no rate's taxable amount is negative.
 */
export async function readAllowanceCharges(tx: Tx, orgId: string, bag: FieldErrorBag, input: AllowanceChargeInput[], lines: readonly NewLine[]): Promise<NewAllowanceCharge[]> {
  const out: NewAllowanceCharge[] = [];
  const linePrices = lines.map((line) => ({ rateId: line.vatRateId, rateBp: line.vatRateBp, cents: lineGross(linePrice(line)).priceCents }));
  for (const [i, ac] of input.entries()) {
    const field = `allowances_charges.${i}`;
    const isCharge = ac.type === "charge";
    const rate = ac.vat_rate_id ? await readVatRate(tx, orgId, bag, `${field}.vat_rate_id`, ac.vat_rate_id) : null;
    const reason = optionalText(ac.reason);
    const reasonCode = optionalText(ac.reason_code)?.toUpperCase() ?? null;
    if (reason === null && reasonCode === null) {
      bag.add(`${field}.reason`, `${isCharge ? "A charge" : "An allowance"} needs a reason or a reason_code (EN 16931 ${isCharge ? "BR-38" : "BR-33"}).`);
    }
    if (reasonCode !== null && !(isCharge ? CHARGE_REASON_CODES : ALLOWANCE_REASON_CODES).has(reasonCode)) {
      bag.add(
        `${field}.reason_code`,
        isCharge
          ? "The reason_code of a charge must be a UNCL7161 code (e.g. FC freight, ABL packaging; EN 16931 BR-CL-20)."
          : "The reason_code of an allowance must be a UNCL5189 code (e.g. 95 discount, 100 special rebate; EN 16931 BR-CL-19).",
      );
    }
    let amountCents: number | null = null;
    let percentBp: number | null = null;
    let baseCents: number | null = null;
    if (given(ac.amount) === given(ac.percent)) {
      bag.add(`${field}.amount`, `Give ${field}.amount or ${field}.percent (of base_amount), one of them.`);
    } else if (given(ac.amount)) {
      amountCents = readMoney(bag, `${field}.amount`, ac.amount, { min: 1 });
      if (given(ac.base_amount)) bag.add(`${field}.base_amount`, `The ${field}.base_amount field goes with percent only.`);
    } else {
      percentBp = readMoney(bag, `${field}.percent`, ac.percent, { min: 1, max: FULL_PERCENT_BP });
      if (given(ac.base_amount)) {
        baseCents = readMoney(bag, `${field}.base_amount`, ac.base_amount, { min: 1 });
      } else {
        baseCents = linePrices.filter((l) => l.rateId === (rate?.id ?? null)).reduce((sum, l) => sum + l.cents, 0);
        if (baseCents === 0) {
          bag.add(`${field}.base_amount`, `No line has the VAT rate of ${field}: give the base_amount its percent is of.`);
          baseCents = null;
        }
      }
      if (percentBp !== null && baseCents !== null) amountCents = percentOf(baseCents, percentBp);
    }
    if (amountCents === null || (ac.vat_rate_id && !rate)) continue;
    out.push({ isCharge, amountCents, baseCents, percentBp, reason, reasonCode, vatRateId: rate?.id ?? null, vatRateBp: rate?.rateBp ?? 0 });
  }
  if (out.length === input.length) checkAllowancesWithinRates(bag, lines, out);
  return out;
}

/**
 * Per VAT rate (net and VAT are derived per rate), the allowances may not exceed the lines and
 * charges: no rate's taxable amount below zero. Allowances kept by an update that changes the
 * lines are checked again.
 */
export function checkAllowancesWithinRates(bag: FieldErrorBag, lines: readonly NewLine[], allowanceCharges: readonly NewAllowanceCharge[]): void {
  const byRate = new Map<number, number>();
  for (const line of lines) byRate.set(line.vatRateBp, (byRate.get(line.vatRateBp) ?? 0) + lineGross(linePrice(line)).priceCents);
  for (const ac of allowanceCharges) byRate.set(ac.vatRateBp, (byRate.get(ac.vatRateBp) ?? 0) + (ac.isCharge ? ac.amountCents : -ac.amountCents));
  allowanceCharges.forEach((ac, i) => {
    if (!ac.isCharge && byRate.get(ac.vatRateBp)! < 0) {
      bag.add(`allowances_charges.${i}.amount`, `The allowances at VAT ${formatCents(ac.vatRateBp)} % must not be greater than the lines and charges at that rate.`);
    }
  });
}

export function checkDueDate(bag: FieldErrorBag, issueDate: string, dueDate: string): void {
  if (dueDate < issueDate) bag.add("due_date", "The due date must be a date after or equal to the issue date.");
}

/** BG-14: both ends of a service period or neither, the end on or after the start (BR-29). */
export function checkServicePeriod(bag: FieldErrorBag, start: string | null, end: string | null): void {
  if ((start === null) !== (end === null)) {
    bag.add(start === null ? "service_period_start" : "service_period_end", "Give service_period_start and service_period_end together, or neither.");
  } else if (start !== null && end! < start) {
    bag.add("service_period_end", "The service_period_end must be a date after or equal to service_period_start.");
  }
}

/** The latest date it is somewhere on Earth now (UTC+14): the server's clock knows no organisation's time zone. */
function latestToday(): string {
  return new Date(Date.now() + 14 * 3_600_000).toISOString().slice(0, 10);
}

/**
 * A document is finalized on or after its issue date: an issue date later
 * than today is refused. Today is taken in the latest time zone, so that no one's today is
 * refused whatever the server's clock says.
 */
export function checkIssueDateNotFuture(bag: FieldErrorBag, issueDate: string): void {
  if (issueDate > latestToday()) {
    bag.add("issue_date", `The issue date must not be in the future: ${issueDate} has not begun yet; a document is finalized on or after its issue date.`);
  }
}

/**
 * Exact money: integer hundredths in storage and arithmetic, decimal strings on the wire.
 * Inputs are a JSON number or a numeric string with at most two fraction digits.
 */
import { type FieldErrorBag } from "./errors.ts";

export const MAX_CENTS = 99_999_999_999_999; // 999 999 999 999.99

/** Parses "12.5", 12.5 or "12" into 1250; null when not an exact decimal with ≤ 2 digits. */
export function toCents(value: unknown): number | null {
  let text: string;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return null;
    // shortest round-trip form: 0.1 → "0.1", 1e21 → "1e+21" (rejected below)
    text = String(value);
  } else if (typeof value === "string") {
    text = value.trim();
  } else return null;
  const m = /^(-?)(\d{1,15})(?:\.(\d{1,2}))?$/.exec(text);
  if (!m) return null;
  const cents = Number(m[2]) * 100 + Number((m[3] ?? "").padEnd(2, "0"));
  if (!Number.isSafeInteger(cents)) return null;
  return m[1] === "-" ? -cents : cents;
}

/** 1250 → "12.50", -5 → "-0.05": on every amount of every response, so kept cheap. */
export function formatCents(cents: number): string {
  const abs = cents < 0 ? -cents : cents;
  const fraction = abs % 100;
  const text = `${(abs - fraction) / 100}.${fraction < 10 ? "0" : ""}${fraction}`;
  return cents < 0 ? `-${text}` : text;
}

/**
 * Reads a money/quantity field into the bag's errors or returns its cents.
 * `min` is in cents: 1 for "minimum 0.01", 0 for "minimum 0".
 */
export function readMoney(
  bag: FieldErrorBag,
  field: string,
  value: unknown,
  { min = 0, max = MAX_CENTS }: { min?: number; max?: number } = {},
): number | null {
  const cents = toCents(value);
  if (cents === null) {
    bag.add(field, `The ${field} field must be a decimal number with at most 2 decimal places.`);
    return null;
  }
  if (cents < min) {
    bag.add(field, `The ${field} field must be at least ${formatCents(min)}.`);
    return null;
  }
  if (cents > max) {
    bag.add(field, `The ${field} field must not be greater than ${formatCents(max)}.`);
    return null;
  }
  return cents;
}

/** Rounds numerator/denominator half-up (away from zero for the positive values we use). */
export function divRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  const q = numerator / denominator;
  const r = numerator % denominator;
  return r * 2n >= denominator ? q + 1n : q;
}

/** quantity (hundredths) × unit price (cents) → cents, half-up. */
export function lineAmountCents(quantityCents: number, unitPriceCents: number): number {
  return Number(divRoundHalfUp(BigInt(quantityCents) * BigInt(unitPriceCents), 100n));
}

/** amount (cents) × rate (basis points of a percent, 21.00 % = 2100) → cents, half-up. */
export function vatCents(amountCents: number, rateBp: number): number {
  return Number(divRoundHalfUp(BigInt(amountCents) * BigInt(rateBp), 10_000n));
}

/** The sum of amounts in cents (integers, so exact). */
export const sumCents = (values: number[]): number => values.reduce((s, v) => s + v, 0);

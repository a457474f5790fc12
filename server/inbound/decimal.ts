/**
 * Exact decimals read from documents: `units / 10^scale` in bigints, never a binary float.
 * UBL amounts are xs:decimal ("1656.25", "-25", "4900.0", "+.5"); a line amount may carry more
 * than two fraction digits, so sums are taken exactly and only rounded where a document-level
 * figure needs cents.
 */
import { MAX_CENTS } from "../lib/money.ts";

export type ExactDecimal = { units: bigint; scale: number };

/** The xs:decimal lexical space: optional sign, digits, optional fraction; at least one digit. */
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;
/** More digits than any amount we accept (MAX_CENTS has 15) plus room for fraction digits. */
const MAX_DIGITS = 30;

export function parseDecimal(text: string): ExactDecimal | null {
  const m = DECIMAL.exec(text.trim());
  if (!m) return null;
  const whole = m[2] ?? "";
  const fraction = m[3] ?? "";
  if (whole === "" && fraction === "") return null;
  if (whole.length + fraction.length > MAX_DIGITS) return null;
  const magnitude = BigInt((whole || "0") + fraction);
  return { units: m[1] === "-" ? -magnitude : magnitude, scale: fraction.length };
}

/** The same value at a larger scale (`scale` ≥ d.scale). */
function atScale(d: ExactDecimal, scale: number): bigint {
  return d.units * 10n ** BigInt(scale - d.scale);
}

export function addDecimals(values: ExactDecimal[]): ExactDecimal {
  const scale = Math.max(0, ...values.map((v) => v.scale));
  return { units: values.reduce((sum, v) => sum + atScale(v, scale), 0n), scale };
}

/** Cents when the value has no non-zero digit below the cent ("12.50", "12.500", "12"); else null. */
export function exactCents(d: ExactDecimal): number | null {
  let cents: bigint;
  if (d.scale <= 2) cents = atScale(d, 2);
  else {
    const divisor = 10n ** BigInt(d.scale - 2);
    if (d.units % divisor !== 0n) return null;
    cents = d.units / divisor;
  }
  return toSafeCents(cents);
}

/**
 * Cents rounded half up (towards +∞), as the EN 16931 schematron's XPath `round()` does when it
 * compares a sum of line amounts with a document total: 10.005 → 10.01, -10.005 → -10.00.
 */
export function roundHalfUpCents(d: ExactDecimal): number | null {
  if (d.scale <= 2) return toSafeCents(atScale(d, 2));
  const divisor = 10n ** BigInt(d.scale - 2);
  // floor((units + divisor/2) / divisor) with a floor that is right for negative numerators
  const shifted = 2n * d.units + divisor;
  const twice = 2n * divisor;
  let q = shifted / twice;
  if (shifted % twice !== 0n && shifted < 0n) q -= 1n;
  return toSafeCents(q);
}

function toSafeCents(cents: bigint): number | null {
  const limit = BigInt(MAX_CENTS);
  return cents > limit || cents < -limit ? null : Number(cents);
}

/** "21", "21.00", "5.5" → basis points of a percent (2100, 2100, 550); null for a finer rate. */
export function percentToBasisPoints(text: string): number | null {
  const d = parseDecimal(text);
  return d === null ? null : exactCents(d);
}

/**
 * A report's currency: the one asked for, by default the organisation's. Each report is in one
 * currency, since Kontor keeps no exchange rates; anything but an ISO 4217 code is refused (422,
 * `currency`).
 */
import { ValidationFailed } from "../lib/errors.ts";
import { isCurrencyCode } from "../lib/iso-codes.ts";
import type { Scope } from "../lib/scope.ts";

export function reportCurrency(scope: Scope, currency: string | undefined): string {
  const chosen = currency ?? scope.org.currency;
  if (!isCurrencyCode(chosen)) throw ValidationFailed.field("currency", "The currency must be an ISO 4217 code (e.g. EUR).");
  return chosen;
}

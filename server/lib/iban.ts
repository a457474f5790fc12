/** IBANs (ISO 13616) and BICs (ISO 9362): the rules a bank account, a statement and an imported e-invoice share. */
import { isCountryCode } from "./iso-codes.ts";
import { mod97 } from "./mod97.ts";

/** "be71 0961 2345 6769" → "BE71096123456769": the electronic form, stored and shown. */
export function normalizeIban(input: string): string {
  return input.replace(/\s+/g, "").toUpperCase();
}

/** Why an IBAN (normalised) is not valid, or null: ISO 13616 shape and the mod-97 check digits. */
export function ibanProblem(iban: string): string | null {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) {
    return "The IBAN must be a 2-letter country code, 2 check digits and 11 to 30 letters or digits.";
  }
  // the first four characters moved to the end: mod 97 must be 1
  return mod97(iban.slice(4) + iban.slice(0, 4)) === 1 ? null : `The IBAN ${iban} has wrong check digits (mod 97): check it for a typo.`;
}

/** An IBAN in its electronic form when its shape and check digits are right (ibanProblem); else null. */
export function validIban(text: string): string | null {
  const iban = normalizeIban(text);
  return ibanProblem(iban) ? null : iban;
}

/** "gkcc bebb" → "GKCCBEBB": a BIC as stored and shown, upper case without spaces. */
export function normalizeBic(input: string): string {
  return input.replace(/\s+/g, "").toUpperCase();
}

/**
 * Why a BIC (normalised) is not valid, or null. ISO 9362: 4 letters of the institution, its
 * country (ISO 3166-1 alpha-2), 2 letters or digits of the location, and an optional branch of 3.
 */
export function bicProblem(bic: string): string | null {
  if (!/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(bic)) {
    return "The BIC must be 8 or 11 characters: 4 letters (the bank), a 2-letter country code, 2 letters or digits (the location) and optionally 3 (the branch), e.g. GKCCBEBB.";
  }
  const country = bic.slice(4, 6);
  return isCountryCode(country) ? null : `The BIC ${bic} names no country: ${country} is not an ISO 3166-1 country code.`;
}

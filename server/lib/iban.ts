/** IBANs (ISO 13616): the rules a bank account, a statement and an imported e-invoice share. */
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

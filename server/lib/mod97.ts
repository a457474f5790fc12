/**
 * ISO 7064 MOD 97-10 over letters and digits (A = 10 … Z = 35), for strings longer than a
 * double holds: the check of IBANs, ISO 11649 creditor references and Belgian structured
 * communications.
 */
export function mod97(text: string): number {
  let remainder = 0;
  for (const digit of text.toUpperCase().replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55))) {
    remainder = (remainder * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return remainder;
}

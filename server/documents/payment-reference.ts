/**
 * Structured payment references: what a bank transfer carries back so that a payment can be
 * matched to its document without reading free text. Pure functions, used both ways: writing a
 * finalized document's reference (`paymentReference`, from the per-organisation sequence drawn at
 * finalize in server/invoices/numbering.ts), and recognising one where it is read
 * (`canonicalPaymentReference`: bank statement lines, an expense's payment_reference, a payment
 * run's transfers), so that references compare as strings.
 *
 * - Belgium: the structured communication ("gestructureerde mededeling", OGM-VCS),
 *   `+++ddd/dddd/ddddd+++`: 10 digits and 2 check digits, the 10-digit number mod 97 (97 when
 *   that is 0).
 * - Elsewhere: the ISO 11649 creditor reference, `RF` + 2 check digits + up to 21 letters or
 *   digits; the check digits make `reference + "RF" + check` mod 97 equal 1 (ISO 7064 mod 97-10,
 *   letters as numbers A = 10 … Z = 35, as in an IBAN).
 */
import { mod97 } from "../lib/mod97.ts";

/** The two check digits of a Belgian structured communication for a number of at most 10 digits. */
export function belgianCheckDigits(base: string): string {
  const remainder = mod97(base);
  return String(remainder === 0 ? 97 : remainder).padStart(2, "0");
}

/** `+++ddd/dddd/ddddd+++` for a non-negative number below 10^10 (e.g. a sequence value). */
export function belgianStructuredCommunication(value: number): string {
  if (!Number.isSafeInteger(value) || value < 0 || value >= 10_000_000_000) {
    throw new RangeError(`A structured communication holds 10 digits; ${value} does not fit.`);
  }
  const base = String(value).padStart(10, "0");
  const digits = base + belgianCheckDigits(base);
  return `+++${digits.slice(0, 3)}/${digits.slice(3, 7)}/${digits.slice(7)}+++`;
}

const BELGIAN = /^(?:\+{3}|\*{3})?(\d{3})\/?(\d{4})\/?(\d{5})(?:\+{3}|\*{3})?$/;

/** Whether a text is a valid Belgian structured communication (`+++…+++` or `***…***`, slashes optional). */
export function isBelgianStructuredCommunication(text: string): boolean {
  const match = BELGIAN.exec(text.trim());
  if (!match) return false;
  const digits = match[1]! + match[2]! + match[3]!;
  return belgianCheckDigits(digits.slice(0, 10)) === digits.slice(10);
}

/** `RFcc<reference>`: an ISO 11649 creditor reference for 1 to 21 letters or digits. */
export function creditorReference(reference: string): string {
  const body = reference.toUpperCase();
  if (!/^[A-Z0-9]{1,21}$/.test(body)) throw new RangeError("An ISO 11649 reference holds 1 to 21 letters or digits.");
  const check = 98 - mod97(`${body}RF00`);
  return `RF${String(check).padStart(2, "0")}${body}`;
}

/** Whether a text is a valid ISO 11649 creditor reference (spaces allowed, as it is printed in groups of four). */
export function isCreditorReference(text: string): boolean {
  const compact = text.replace(/\s+/g, "").toUpperCase();
  if (!/^RF\d{2}[A-Z0-9]{1,21}$/.test(compact)) return false;
  return mod97(compact.slice(4) + compact.slice(0, 4)) === 1;
}

/**
 * A valid payment reference as Kontor writes it (a Belgian one as `+++ddd/dddd/ddddd+++`, an RF
 * one compact and upper case), so that references compare as strings; null when the text is none.
 */
export function canonicalPaymentReference(text: string): string | null {
  const trimmed = text.trim();
  if (isBelgianStructuredCommunication(trimmed)) {
    const [, a, b, c] = BELGIAN.exec(trimmed)!;
    return `+++${a}/${b}/${c}+++`;
  }
  return isCreditorReference(trimmed) ? trimmed.replace(/\s+/g, "").toUpperCase() : null;
}

/**
 * The payment reference of the organisation's `sequence`-th finalized document: a Belgian
 * structured communication for a Belgian organisation, else an RF creditor reference over the
 * same ten digits.
 */
export function paymentReference(country: string, sequence: number): string {
  if (country.toUpperCase() === "BE") return belgianStructuredCommunication(sequence);
  return creditorReference(String(sequence).padStart(10, "0"));
}

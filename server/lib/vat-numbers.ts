/**
 * VAT identification numbers: the country prefix (BR-CO-09), each EU country's format and,
 * where the country publishes one, its check digits, so that a number with a typo is refused
 * when it is typed rather than by the tax authority or the buyer's e-invoicing platform.
 *
 * A number is compared in its compact form: spaces, dots and hyphens removed, upper case
 * ("be 0417.497.106" → "BE0417497106"). That is the form Kontor stores and prints, and the
 * form an e-invoice carries (BT-31, BT-48).
 *
 * The formats are those of the EU's VIES; the check-digit algorithms are the national ones, as
 * python-stdnum implements them (arthurdejong/python-stdnum, stdnum/<country>/vat.py and the
 * modules they use); tests/reference-data/reference-data.test.ts runs its published examples.
 */
import { isCountryCode } from "./iso-codes.ts";
import { mod97 } from "./mod97.ts";

/** The compact form: no spaces, dots or hyphens, upper case. */
export function compactVatNumber(value: string): string {
  return value.replace(/[\s.\-]/g, "").toUpperCase();
}

/** What is wrong with a VAT number: its prefix, its shape for its country, or its check digits. */
export type VatNumberProblem =
  | { kind: "prefix" }
  | { kind: "format"; country: string; shape: string }
  | { kind: "checkDigits"; country: string };

type Rule = { name: string; shape: string; format: RegExp; check?: (digits: string) => boolean };

const digitsOf = (s: string) => [...s].map(Number);
const weighted = (s: string, weights: number[]) => digitsOf(s).reduce((sum, d, i) => sum + d * weights[i]!, 0);

/** Luhn: the digit sum with every second digit from the right doubled is a multiple of 10. */
function luhnChecksum(s: string): number {
  let sum = 0;
  digitsOf(s)
    .reverse()
    .forEach((d, i) => (sum += i % 2 === 0 ? d : d * 2 > 9 ? d * 2 - 9 : d * 2));
  return sum % 10;
}

/** ISO 7064 MOD 11,10 (German and Croatian numbers): valid when the final product is 1. */
function iso7064Mod1110(s: string): boolean {
  let check = 5;
  for (const d of digitsOf(s)) check = (((check || 10) * 2) % 11 + d) % 10;
  return check === 1;
}

/** The Belgian enterprise number (also the Belgian VAT number without BE): 10 digits, 0 or 1 first, 97 − (first 8 mod 97) = last 2. */
export function isBelgianEnterpriseNumber(digits: string): boolean {
  return /^[01]\d{9}$/.test(digits) && 97 - (Number(digits.slice(0, 8)) % 97) === Number(digits.slice(8));
}

/** Spanish NIF: a DNI (8 digits + letter), a NIE (X/Y/Z + 7 digits + letter) or a CIF (letter + 7 digits + digit or letter). */
function spanishNif(n: string): boolean {
  const letters = "TRWAGMYFPDXBNJZSQVHLCKE";
  if (/^\d{8}[A-Z]$/.test(n)) return letters[Number(n.slice(0, 8)) % 23] === n[8];
  if (/^[XYZ]\d{7}[A-Z]$/.test(n)) return letters[Number("XYZ".indexOf(n[0]!) + n.slice(1, 8)) % 23] === n[8];
  // K, L, M: Spaniards without a DNI, with the DNI's letter
  if (/^[KLM]\d{7}[A-Z]$/.test(n)) return letters[Number(n.slice(1, 8)) % 23] === n[8];
  if (/^[ABCDEFGHJNPQRSUVW]\d{7}[0-9A-J]$/.test(n)) {
    // the control is a digit or its letter (J = 0, A = 1 … I = 9): organisations use either
    const check = (10 - luhnChecksum(`${n.slice(1, 8)}0`)) % 10;
    return n[8] === String(check) || n[8] === "JABCDEFGHI"[check];
  }
  return false;
}

/**
 * Each EU country's number after its prefix (and Northern Ireland's, XI). `check` is the
 * published check-digit algorithm where there is one and it is certain; the others are checked
 * for their shape only (Bulgaria, Cyprus, Czechia, Ireland, Lithuania, Latvia, Malta, Romania,
 * Slovenia and Slovakia have checks with exceptions and variants that a wrong rule would turn
 * into refused real numbers).
 */
const RULES: Record<string, Rule> = {
  AT: { name: "Austrian", shape: "ATU and 8 digits", format: /^U\d{8}$/, check: (n) => (6 - luhnChecksum(n.slice(1, 8)) + 10) % 10 === Number(n[8]) },
  BE: { name: "Belgian", shape: "BE and 10 digits starting with 0 or 1", format: /^[01]\d{9}$/, check: isBelgianEnterpriseNumber },
  BG: { name: "Bulgarian", shape: "BG and 9 or 10 digits", format: /^\d{9,10}$/ },
  CY: { name: "Cypriot", shape: "CY, 8 digits and a letter", format: /^\d{8}[A-Z]$/ },
  CZ: { name: "Czech", shape: "CZ and 8 to 10 digits", format: /^\d{8,10}$/ },
  DE: { name: "German", shape: "DE and 9 digits, not starting with 0", format: /^[1-9]\d{8}$/, check: iso7064Mod1110 },
  DK: { name: "Danish", shape: "DK and 8 digits, not starting with 0", format: /^[1-9]\d{7}$/, check: (n) => weighted(n, [2, 7, 6, 5, 4, 3, 2, 1]) % 11 === 0 },
  EE: { name: "Estonian", shape: "EE and 9 digits", format: /^\d{9}$/, check: (n) => weighted(n, [3, 7, 1, 3, 7, 1, 3, 7, 1]) % 10 === 0 },
  EL: {
    name: "Greek",
    shape: "EL and 9 digits",
    format: /^\d{9}$/,
    check: (n) => (digitsOf(n.slice(0, 8)).reduce((sum, d) => sum * 2 + d, 0) * 2) % 11 % 10 === Number(n[8]),
  },
  ES: { name: "Spanish", shape: "ES and 9 characters: a DNI, NIE or CIF", format: /^[0-9A-Z]\d{7}[0-9A-Z]$/, check: spanishNif },
  FI: { name: "Finnish", shape: "FI and 8 digits", format: /^\d{8}$/, check: (n) => weighted(n, [7, 9, 10, 5, 8, 4, 2, 1]) % 11 === 0 },
  FR: {
    name: "French",
    shape: "FR, a 2-character key and the 9-digit SIREN",
    format: /^[0-9A-HJ-NP-Z]{2}\d{9}$/,
    check: (n) => {
      const siren = n.slice(2);
      // Monaco's numbers (000…) are no SIREN
      if (!siren.startsWith("000") && luhnChecksum(siren) !== 0) return false;
      // a numeric key is (12 + 3 × (SIREN mod 97)) mod 97; letter keys (new companies) have no published check here
      return !/^\d{2}$/.test(n.slice(0, 2)) || Number(n.slice(0, 2)) === (12 + 3 * (Number(siren) % 97)) % 97;
    },
  },
  HR: { name: "Croatian", shape: "HR and 11 digits", format: /^\d{11}$/, check: iso7064Mod1110 },
  HU: { name: "Hungarian", shape: "HU and 8 digits", format: /^\d{8}$/, check: (n) => weighted(n, [9, 7, 3, 1, 9, 7, 3, 1]) % 10 === 0 },
  IE: { name: "Irish", shape: "IE and 8 or 9 characters (7 digits and 1 or 2 letters, or the old form)", format: /^(?:\d{7}[A-W][A-IW]?|\d[A-Z+*]\d{5}[A-W])$/ },
  IT: { name: "Italian", shape: "IT and 11 digits", format: /^\d{11}$/, check: (n) => luhnChecksum(n) === 0 },
  LT: { name: "Lithuanian", shape: "LT and 9 or 12 digits", format: /^(?:\d{9}|\d{12})$/ },
  LU: { name: "Luxembourgish", shape: "LU and 8 digits", format: /^\d{8}$/, check: (n) => Number(n.slice(0, 6)) % 89 === Number(n.slice(6)) },
  LV: { name: "Latvian", shape: "LV and 11 digits", format: /^\d{11}$/ },
  MT: { name: "Maltese", shape: "MT and 8 digits", format: /^\d{8}$/ },
  NL: {
    name: "Dutch",
    shape: "NL, 9 digits, B and 2 digits (not 00)",
    format: /^\d{9}B(?!00)\d{2}$/,
    // the 11-test of the RSIN/BSN, or (numbers issued to sole proprietors since 2020) mod 97 of the whole "NL…" = 1
    check: (n) => (weighted(n.slice(0, 8), [9, 8, 7, 6, 5, 4, 3, 2]) - Number(n[8])) % 11 === 0 || mod97(`NL${n}`) === 1,
  },
  PL: { name: "Polish", shape: "PL and 10 digits", format: /^\d{10}$/, check: (n) => weighted(n.slice(0, 9), [6, 5, 7, 2, 3, 4, 5, 6, 7]) % 11 === Number(n[9]) },
  PT: {
    name: "Portuguese",
    shape: "PT and 9 digits, not starting with 0",
    format: /^[1-9]\d{8}$/,
    check: (n) => ((11 - (weighted(n.slice(0, 8), [9, 8, 7, 6, 5, 4, 3, 2]) % 11)) % 11) % 10 === Number(n[8]),
  },
  RO: { name: "Romanian", shape: "RO and 2 to 10 digits (a company), or 13 (a person)", format: /^(?:[1-9]\d{1,9}|\d{13})$/ },
  SE: { name: "Swedish", shape: "SE and 12 digits ending in 01", format: /^\d{10}01$/, check: (n) => luhnChecksum(n.slice(0, 10)) === 0 },
  SI: { name: "Slovenian", shape: "SI and 8 digits", format: /^[1-9]\d{7}$/ },
  SK: { name: "Slovak", shape: "SK and 10 digits", format: /^[1-9]\d{9}$/ },
  // Northern Ireland's numbers are the UK's: 9 or 12 digits, or a government department's GD/HA and 3 digits
  XI: { name: "Northern Irish", shape: "XI and 9 or 12 digits, or GD or HA and 3 digits", format: /^(?:\d{9}|\d{12}|GD[0-4]\d{2}|HA[5-9]\d{2})$/ },
};
// Greece's ISO code, which EN 16931 also accepts in place of EL
RULES.GR = RULES.EL!;

/**
 * What is wrong with `value` (any form; it is compacted first), or null when it is a valid VAT
 * number: a prefix that is a country code EN 16931 accepts (EL and XI included), then, for an EU
 * country, its format and check digits. Other countries' numbers (GB, CH, NO, …) need only the
 * prefix and 2 to 13 letters and digits: their formats vary and change, and they are checked by
 * those countries' own services, not by EN 16931.
 */
export function vatNumberProblem(value: string): VatNumberProblem | null {
  const compact = compactVatNumber(value);
  const prefix = compact.slice(0, 2);
  if (!/^[A-Z]{2}$/.test(prefix) || !(prefix === "EL" || isCountryCode(prefix))) return { kind: "prefix" };
  const rest = compact.slice(2);
  const rule = RULES[prefix];
  if (!rule) return /^[0-9A-Z+*]{2,13}$/.test(rest) ? null : { kind: "format", country: prefix, shape: `${prefix} and 2 to 13 letters or digits` };
  if (!rule.format.test(rest)) return { kind: "format", country: rule.name, shape: rule.shape };
  if (rule.check && !rule.check(rest)) return { kind: "checkDigits", country: rule.name };
  return null;
}

export const isVatNumber = (value: string): boolean => vatNumberProblem(value) === null;

/** The 422 message of a VAT number field named `name` ("vat number"). */
export function vatNumberMessage(name: string, problem: VatNumberProblem): string {
  switch (problem.kind) {
    case "prefix":
      return `The ${name} field must start with a country prefix (e.g. BE0123456749; Greece: EL, Northern Ireland: XI).`;
    case "format":
      return `The ${name} field is not a valid ${problem.country} VAT number (${problem.shape}).`;
    case "checkDigits":
      return `The ${name} field is not a valid ${problem.country} VAT number (check digits).`;
  }
}

/**
 * What is wrong with a Belgian enterprise number (an organisation's company number, in any
 * form: "0123.456.749", "BE 0123 456 749"), or null: 10 digits, 0 or 1 first, mod 97.
 */
export function belgianEnterpriseNumberProblem(value: string): "format" | "checkDigits" | null {
  const digits = compactVatNumber(value).replace(/^BE/, "");
  if (!/^[01]\d{9}$/.test(digits)) return "format";
  return isBelgianEnterpriseNumber(digits) ? null : "checkDigits";
}

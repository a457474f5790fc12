/**
 * Peppol participant identifiers, `<scheme>:<identifier>` (e.g. "0208:0123456749"): which schemes
 * and shapes the Peppol BIS 3.0 rules accept. Pure and schema-free, so that what reads the
 * database (matching suppliers, a data migration) loads no schema library; the request field is
 * server/documents/peppol.ts.
 */
import { isBelgianEnterpriseNumber } from "./vat-numbers.ts";

/**
 * The Peppol EAS (Electronic Address Scheme) codes the Peppol BIS Billing 3.0 rules accept for
 * an electronic address (rule PEPPOL-EN16931-CL008 on `@schemeID`), as listed in
 * PEPPOL-EN16931-UBL.sch (`$eaid`). E.g. 0208 Belgian enterprise number, 9925 Belgian VAT
 * number, 0088 GLN, 0106 Dutch KvK, 0190 Dutch OIN, 9930 German VAT, 9944 Dutch VAT, 0009 SIRET.
 */
export const PEPPOL_EAS_CODES = [
  "0002", "0007", "0009", "0037", "0060", "0088", "0096", "0097", "0106", "0130", "0135", "0142", "0151", "0177", "0183",
  "0184", "0188", "0190", "0191", "0192", "0193", "0195", "0196", "0198", "0199", "0200", "0201", "0202", "0204", "0208",
  "0209", "0210", "0211", "0212", "0213", "0215", "0216", "0218", "0221", "0230", "0235", "9910", "9913", "9914", "9915",
  "9918", "9919", "9920", "9922", "9923", "9924", "9925", "9926", "9927", "9928", "9929", "9930", "9931", "9932", "9933",
  "9934", "9935", "9936", "9937", "9938", "9939", "9940", "9941", "9942", "9943", "9944", "9945", "9946", "9947", "9948",
  "9949", "9950", "9951", "9952", "9953", "9957", "9959", "0147", "0154", "0158", "0170", "0194", "0203", "0205", "0217",
  "0225", "0240",
] as const;
export type PeppolEas = (typeof PEPPOL_EAS_CODES)[number];

const EAS = new Set<string>(PEPPOL_EAS_CODES);
export const PEPPOL_ID_PATTERN = "^\\d{4}:[^\\s:]{1,60}$";
const SHAPE = new RegExp(PEPPOL_ID_PATTERN, "u");

/**
 * A Belgian enterprise number (scheme 0208): ten digits, 0 or 1 first, whose last two are 97 −
 * (the first eight mod 97), as the Peppol rule on 0208 identifiers checks; the same check as a
 * Belgian VAT number's and a Belgian organisation's company number's (server/lib/vat-numbers.ts).
 */
export { isBelgianEnterpriseNumber };

/** `<scheme>:<id>` with a scheme of the EAS code list (and, for 0208, a valid enterprise number). */
export function isPeppolId(value: string): boolean {
  if (!SHAPE.test(value)) return false;
  const [scheme, id] = [value.slice(0, 4), value.slice(5)];
  if (!EAS.has(scheme)) return false;
  return scheme !== "0208" || isBelgianEnterpriseNumber(id);
}

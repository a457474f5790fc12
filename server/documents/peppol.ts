/**
 * Peppol participant identifiers, `<scheme>:<identifier>` (e.g. "0208:0123456749"), as
 * organisations, customers and suppliers give them, checked where they are written so that an
 * e-invoice never carries one the Peppol BIS 3.0 rules refuse.
 */
import { FormatRegistry } from "@sinclair/typebox";
import { Text } from "../lib/schemas.ts";
import { isPeppolId, PEPPOL_ID_PATTERN } from "../lib/peppol-ids.ts";

export { isBelgianEnterpriseNumber, isPeppolId, PEPPOL_EAS_CODES, PEPPOL_ID_PATTERN, type PeppolEas } from "../lib/peppol-ids.ts";

FormatRegistry.Set("peppol-id", isPeppolId);

/** The request field: shape, scheme and (0208) check digits, with one message (server/http/validation.ts). */
export const PeppolId = Text({
  maxLength: 65,
  format: "peppol-id",
  pattern: PEPPOL_ID_PATTERN,
  description:
    "Peppol participant id `<scheme>:<identifier>`, the scheme from the Peppol EAS code list (e.g. 0208 Belgian enterprise number, 9925 Belgian VAT number, 0088 GLN)",
  examples: ["0208:0123456749"],
});

/**
 * What the Intervat listings share: the declarant (the organisation, identified by its Belgian
 * VAT number) and the XML around a consignment's own elements. The schemas put the declarant's
 * children in the InputCommon namespace (the default namespace here) and the consignment's own
 * elements in its namespace (prefix ns2), as the examples in ../shared/belgium/intervat do.
 */
import { eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { organizations } from "../../db/schema.ts";
import { ValidationFailed } from "../lib/errors.ts";
import { compactVatNumber, isBelgianEnterpriseNumber } from "../lib/vat-numbers.ts";
import { el, type Xml } from "../documents/xml-writer.ts";
import { firstRow } from "../../db/client.ts";

export const INPUT_COMMON_NS = "http://www.minfin.fgov.be/InputCommon";

/** The organisation as the declarant of a filing. */
export type Declarant = {
  /** the Belgian VAT number, BE and 10 digits */
  vatNumber: string;
  name: string;
  street: string | null;
  postalCode: string | null;
  city: string | null;
  email: string | null;
  phone: string | null;
};

/** The schema's e-mail and phone patterns: a value they would refuse is left out (both are optional). */
const EMAIL = /^([a-zA-Z0-9_\-.]+)@([a-zA-Z0-9_\-.]+)\.([a-zA-Z]{2,5})$/;
const PHONE = /^(\+)?[0-9 \-]{0,20}$/;

/** The organisation as declarant; one without a valid Belgian VAT number files nothing through Intervat (422 on `vat_number`). */
export async function readDeclarant(tx: Tx, orgId: string): Promise<Declarant> {
  const org = (await firstRow(tx.select().from(organizations).where(eq(organizations.id, orgId))))!;
  const vat = org.vatNumber ? compactVatNumber(org.vatNumber) : "";
  if (!/^BE\d{10}$/.test(vat) || !isBelgianEnterpriseNumber(vat.slice(2))) {
    throw ValidationFailed.field(
      "vat_number",
      org.vatNumber
        ? `The organisation's VAT number ${org.vatNumber} is not a Belgian VAT number (BE and 10 digits, mod 97): the Intervat listings are filed under one (PUT /api/v1/organization).`
        : "The organisation has no VAT number: the Intervat listings are filed under a Belgian VAT number (PUT /api/v1/organization).",
    );
  }
  const phone = org.phone?.trim() ?? null;
  return {
    vatNumber: vat,
    name: org.name,
    street: org.address,
    postalCode: org.postalCode,
    city: org.city,
    email: org.email && EMAIL.test(org.email) ? org.email : null,
    phone: phone && PHONE.test(phone) ? phone : null,
  };
}

/** The declarant's block (`Declarant_Type`): the VAT number as 10 digits without BE, then what the organisation has of name, address and contact. */
export function declarantXml(ns2: string, d: Declarant): Xml {
  return el(
    `${ns2}:Declarant`,
    null,
    el("VATNumber", null, d.vatNumber.slice(2)),
    el("Name", null, d.name.slice(0, 200)),
    d.street && el("Street", null, d.street.replace(/\s*\n\s*/g, ", ").slice(0, 200)),
    d.postalCode && el("PostCode", null, d.postalCode.slice(0, 15)),
    d.city && el("City", null, d.city.slice(0, 184)),
    el("CountryCode", null, "BE"),
    d.email && el("EmailAddress", null, d.email),
    d.phone && el("Phone", null, d.phone),
  )!;
}

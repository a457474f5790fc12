/**
 * What the Belgian listings count, decided once (docs/books.md#the-listings): one table an
 * accountant can read and correct. The rules marked `verify` could not be checked against the
 * FPS Finance's own text (../shared/belgium/listings.md); the guide names them as such.
 */
import type { VatCategory } from "../../db/values.ts";

/** The client listing lists a Belgian VAT number whose net turnover of the calendar year is MORE than this: €250.00 exactly is not listed. */
export const CLIENT_LISTING_THRESHOLD_CENTS = 250_00;

export type ListingRule = { listed: boolean; why: string; verify: boolean };

/**
 * The annual client listing, by the VAT category of a sale: what reaches a customer's
 * `TurnOver` (its base) and `VATAmount` (its Belgian VAT). Credit notes count negatively by the
 * same rule; interest notes are outside the scope of VAT and never count.
 */
export const CLIENT_LISTING_CATEGORIES: Record<VatCategory, ListingRule> = {
  S: { listed: true, why: "taxed at a standard or reduced rate (grids 01–03)", verify: false },
  Z: { listed: true, why: "taxed at 0 % (grid 00)", verify: false },
  AE: { listed: true, why: "the Belgian co-contractor owes the VAT (grid 45): turnover with VAT 0.00", verify: true },
  E: { listed: false, why: "exempt (art. 44): no VAT invoice", verify: true },
  K: { listed: false, why: "intra-Community supply: on the intra-Community listing", verify: false },
  G: { listed: false, why: "export outside the EU", verify: false },
  O: { listed: false, why: "outside the scope of VAT", verify: false },
};

export type IntraCode = "L" | "S" | "T";

/**
 * The country code the Intervat schemas name an EU member state by: Greece is EL there (and in
 * its VAT numbers), GR in ISO 3166.
 */
export const intervatCountry = (country: string): string => (country === "GR" ? "EL" : country);

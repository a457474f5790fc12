/** Statutory late-payment interest rates (server/interest). */
import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, id } from "./columns.ts";

/**
 * The statutory late-payment interest rates for commercial transactions as published, per
 * country and period (the reference rate with its 8 points included: 10.5 %, not 2.5 %).
 * Belgium is seeded (server/interest/rates-be.ts); an administrator adds the next half years
 * with `kontor rates add`. Not an organisation's: the law is the same for all of a country.
 */
export const statutoryInterestRates = sqliteTable(
  "statutory_interest_rates",
  {
    id: id(),
    /** ISO 3166-1 alpha-2 */
    country: text("country").notNull(),
    /** the first and last day the rate applies (inclusive) */
    validFrom: text("valid_from").notNull(),
    validTo: text("valid_to").notNull(),
    /** hundredths of a percent: 10.50 % is 1050 */
    rateBp: integer("rate_bp").notNull(),
    /** the publication the figure comes from */
    source: text("source").notNull(),
    createdAt: createdAt(),
    /** "seed" for the shipped rows, "cli" for `kontor rates add` */
    createdBy: text("created_by").notNull(),
  },
  (t) => [uniqueIndex("statutory_interest_rates_country_from").on(t.country, t.validFrom)],
);

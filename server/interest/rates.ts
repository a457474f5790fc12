/**
 * The table of statutory late-payment interest rates (statutory_interest_rates): what the claim
 * reads, what `kontor rates list` shows and what `kontor rates add` extends. A country's periods
 * never overlap, so every day has at most one rate.
 */
import { and, asc, eq, gte, lte } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { organizations, statutoryInterestRates } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { CLI_ACTOR } from "../orgs/service.ts";
import { checkRoom } from "../lib/counts.ts";
import { ApiError, FieldErrorBag } from "../lib/errors.ts";
import { isCountryCode } from "../lib/iso-codes.ts";
import { unitOfWork } from "../lib/scope.ts";
import { isValidDate, newId, nowIso } from "../lib/time.ts";
import { firstRow } from "../../db/client.ts";

type RateRow = typeof statutoryInterestRates.$inferSelect;
export type RatePeriod = { from: string; to: string; rateBp: number };

/** A rate as `kontor rates list --json` shows it: the percentage as published, e.g. "10.50". */
export function presentRate(row: RateRow) {
  return {
    id: row.id,
    country: row.country,
    valid_from: row.validFrom,
    valid_to: row.validTo,
    rate: (row.rateBp / 100).toFixed(2),
    source: row.source,
    created_at: row.createdAt,
    created_by: row.createdBy,
  };
}

/** The country's rates whose periods meet [from, to], in date order. */
export async function ratesBetween(tx: Tx, country: string, from: string, to: string): Promise<RatePeriod[]> {
  return await tx
    .select({ from: statutoryInterestRates.validFrom, to: statutoryInterestRates.validTo, rateBp: statutoryInterestRates.rateBp })
    .from(statutoryInterestRates)
    .where(and(eq(statutoryInterestRates.country, country), lte(statutoryInterestRates.validFrom, to), gte(statutoryInterestRates.validTo, from)))
    .orderBy(asc(statutoryInterestRates.validFrom));
}

/** Whether the country has a table at all (no table: no statutory interest is computed). */
export async function hasRates(tx: Tx, country: string): Promise<boolean> {
  return (await firstRow(tx.select({ id: statutoryInterestRates.id }).from(statutoryInterestRates).where(eq(statutoryInterestRates.country, country)).limit(1))) !== undefined;
}

export async function listRates(db: Db, country?: string): Promise<ReturnType<typeof presentRate>[]> {
  return (await db
    .select()
    .from(statutoryInterestRates)
    .where(country ? eq(statutoryInterestRates.country, country) : undefined)
    .orderBy(asc(statutoryInterestRates.country), asc(statutoryInterestRates.validFrom)))
    .map(presentRate);
}

/** "10.5", "10.50", "8": a percentage with at most two decimals, from 0 to 100 → hundredths; else null. */
export function parseRate(text: string): number | null {
  const match = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) return null;
  const bp = Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
  return bp > 10_000 ? null : bp;
}

export type RateInput = { country: string; from: string; to: string; rate: string; source: string };

/**
 * Adds a published rate (the CLI's `rates add`): a 422 naming each malformed option, a 409 when
 * the period overlaps one the country has. The table is the law's, not an organisation's: the
 * audit entry goes to each organisation of that country, whose interest it changes.
 */
export async function addRate(db: Db, input: RateInput): Promise<ReturnType<typeof presentRate>> {
  const bag = new FieldErrorBag();
  const country = input.country.trim().toUpperCase();
  if (!isCountryCode(country)) bag.add("country", `"${input.country}" is not an ISO 3166-1 alpha-2 country code.`);
  if (!isValidDate(input.from)) bag.add("from", `"${input.from}" is not a date (YYYY-MM-DD).`);
  if (!isValidDate(input.to)) bag.add("to", `"${input.to}" is not a date (YYYY-MM-DD).`);
  else if (isValidDate(input.from) && input.to < input.from) bag.add("to", `The period ends (${input.to}) before it starts (${input.from}).`);
  const rateBp = parseRate(input.rate);
  if (rateBp === null) bag.add("rate", `"${input.rate}" is not a percentage from 0 to 100 with at most two decimals (the rate as published, e.g. 10.50).`);
  const source = input.source.trim();
  if (source.length === 0) bag.add("source", "Name the publication the rate comes from.");
  else if (source.length > 1000) bag.add("source", "The source must not be longer than 1000 characters.");
  bag.throwIfAny();
  return await unitOfWork(db, async (tx) => {
    const overlap = (await ratesBetween(tx, country, input.from, input.to))[0];
    if (overlap) {
      throw new ApiError(409, `${country} already has a rate from ${overlap.from} to ${overlap.to} (${(overlap.rateBp / 100).toFixed(2)} %), which overlaps ${input.from} to ${input.to}.`);
    }
    // a country's table holds a bounded number of periods, so a reminder's missing_rates (the gaps between them) is bounded too
    const held = (await tx.select({ id: statutoryInterestRates.id }).from(statutoryInterestRates).where(eq(statutoryInterestRates.country, country))).length;
    checkRoom("statutory_rates", held, 1, `${country}'s table of statutory rates`, "country");
    const row: RateRow = { id: newId(), country, validFrom: input.from, validTo: input.to, rateBp: rateBp!, source, createdAt: nowIso(), createdBy: "cli" };
    await tx.insert(statutoryInterestRates).values(row);
    for (const org of (await tx.select().from(organizations).where(eq(organizations.country, country)))) {
      await recordChange(tx, { db, org, actor: CLI_ACTOR }, { action: "statutory_interest_rate.added", resource: { type: "statutory_interest_rate", id: row.id } });
    }
    return presentRate(row);
  });
}

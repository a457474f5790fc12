/**
 * Per-organisation counters (number_sequences): invoice and credit-note numbers per year, payment
 * references, journal entry numbers. A value is drawn inside the caller's transaction:
 * `BEGIN IMMEDIATE` serialises concurrent writers, and a rolled-back change gives its value back.
 */
import { sql } from "drizzle-orm";
import { preparedQuery, type Tx } from "../../db/client.ts";
import { numberSequences } from "../../db/schema.ts";

/** The next value of the organisation's sequence `kind` for `year` (0 for a sequence that spans years). */
export async function drawSequence(tx: Tx, orgId: string, kind: string, year: number): Promise<number> {
  // prepared once per connection: every posting draws a journal number
  const draw = preparedQuery(tx, "sequences: draw", (tx) =>
    tx
      .insert(numberSequences)
      .values({ organizationId: sql.placeholder("orgId"), kind: sql.placeholder("kind"), year: sql.placeholder("year"), lastValue: 1 })
      .onConflictDoUpdate({
        target: [numberSequences.organizationId, numberSequences.kind, numberSequences.year],
        set: { lastValue: sql`${numberSequences.lastValue} + 1` },
      })
      .returning({ lastValue: numberSequences.lastValue })
      .prepare(),
  );
  return (await draw.get({ orgId, kind, year }))!.lastValue;
}

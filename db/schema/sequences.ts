/** The counters of every numbered series: invoice numbers, payment references, journal entries, event ids (server/lib/sequences.ts draws them). */
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { orgId } from "./orgs.ts";

export const numberSequences = sqliteTable(
  "number_sequences",
  {
    organizationId: orgId(),
    kind: text("kind").notNull(),
    year: integer("year").notNull(),
    lastValue: integer("last_value").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.kind, t.year] })],
);

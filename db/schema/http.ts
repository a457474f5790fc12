/** Idempotency keys of API requests (server/http/idempotency.ts). */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    tokenId: text("token_id").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    /** null while the first request is still being handled */
    statusCode: integer("status_code"),
    responseBody: text("response_body"),
    responseHeaders: text("response_headers", { mode: "json" }).$type<Record<string, string>>(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tokenId, t.key] }), index("idempotency_created").on(t.createdAt)],
);

/** The schema, declared per feature in db/schema/ (index.ts says how); importers keep this one path. */
export * from "./schema/index.ts";

/**
 * The whole Kontor schema, declared per feature: each file holds the tables its feature of
 * server/ writes (docs/architecture.md#which-feature-owns-which-table). Every organisation-owned
 * table carries `organization_id`; queries go through `inOrg`, `findInOrg`, `updateInOrg` and
 * `deleteInOrg` in `server/lib/scope.ts`, which add that condition in one place.
 * Money and quantities are integer hundredths (`*_cents`), VAT rates basis points.
 *
 * A file imports the tables its foreign keys point at, never in a circle; the column helpers are
 * in columns.ts, the values columns may hold in db/values.ts.
 */
export { nocase } from "./columns.ts";
// orgs.ts and contacts.ts also hold the helpers `orgId` and `partyColumns`, which stay inside db/schema/
export { organizations, users } from "./orgs.ts";
export * from "./tokens.ts";
export * from "./customers.ts";
export * from "./suppliers.ts";
export * from "./vat-rates.ts";
export * from "./invoices.ts";
export * from "./settlement.ts";
export * from "./expenses.ts";
export * from "./accounts.ts";
export * from "./bank-accounts.ts";
export * from "./expense-categories.ts";
export * from "./ledger.ts";
export * from "./fiscal-years.ts";
export * from "./interest.ts";
export * from "./audit.ts";
export * from "./webhooks.ts";
export * from "./changes.ts";
export * from "./sending.ts";
export * from "./reminders.ts";
export * from "./recurring.ts";
export * from "./http.ts";
export * from "./banking.ts";
export * from "./payment-runs.ts";
export * from "./vat-returns.ts";
export * from "./reports.ts";
export * from "./sequences.ts";
export * from "./database.ts";
export * from "./schedule.ts";

/**
 * Migrating Kontor's database: the SQL migrations db/ embeds, then the data migrations they queue,
 * which belong to the features whose rules they apply (the ledger posts what was recorded before
 * it existed; the receivables report sums the open documents; credit notes issued before allocation
 * settle their invoices). A composition root: everything
 * that opens a database to serve or administer it migrates through here.
 */
import { migrate, type Db, type MigrateOptions } from "../db/client.ts";
import { backfillLedger, backfillOpeningBalances, backfillSuspense } from "./ledger/backfill.ts";
import { rebuildReceivables } from "./reports/receivables.ts";
import { allocateIssuedCreditNotes } from "./settlement/credits.ts";
import { backfillSupplierIdentifiers } from "./suppliers/identity.ts";
import { normalizeStoredExternalIds } from "./lib/external-ids.ts";

export const DATA_MIGRATIONS = {
  ledger: backfillLedger,
  receivables: rebuildReceivables,
  /** migration 0025: the credit notes issued before credit allocation settle their invoices */
  credit_allocation: allocateIssuedCreditNotes,
  /** migration 0030: the bank accounts whose statements were imported before opening balances were posted */
  bank_opening_balances: backfillOpeningBalances,
  /** migration 0042: the bank lines nothing holds go into suspense */
  bank_suspense: backfillSuspense,
  /** the suppliers' own identifiers, which imported e-invoices' sellers are matched on */
  supplier_identifiers: backfillSupplierIdentifiers,
  /** stored external ids in Unicode NFC; two that become equal are left as they were and reported */
  external_id_nfc: normalizeStoredExternalIds,
} as const;

/** Applies every pending migration (db/connection.ts `migrate`); the number of SQL migrations applied. */
export async function migrateDatabase(db: Db, options: Omit<MigrateOptions, "dataMigrations"> = {}): Promise<number> {
  return await migrate(db, { ...options, dataMigrations: DATA_MIGRATIONS });
}

/** The data migrations a SQL migration can ask for by name (table pending_backfills). */
import { backfillLedger } from "../server/ledger/backfill.ts";
import { rebuildReceivables } from "../server/reports/receivables.ts";
import type { Tx } from "./connection.ts";

export const BACKFILLS: Record<string, (tx: Tx) => void> = {
  ledger: backfillLedger,
  receivables: rebuildReceivables,
};

/** An organisation's bank accounts (server/bank-accounts), each with a ledger account of its own. */
import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool, createdAt, id, nocase, updatedAt } from "./columns.ts";
import { orgId } from "./orgs.ts";
import { accounts } from "./accounts.ts";

export const bankAccounts = sqliteTable(
  "bank_accounts",
  {
    id: id(),
    organizationId: orgId(),
    name: text("name").notNull(),
    iban: text("iban").notNull(),
    /** BT-86 and the EPC QR code's BIC; optional within SEPA */
    bic: text("bic"),
    bankName: text("bank_name"),
    currency: text("currency").notNull(),
    isActive: bool("is_active").notNull(),
    /**
     * The placeholder IBAN (BE71096123456769) the earlier Kontor seeded for every organisation:
     * flagged by migration 0023, deactivated, never printed again.
     */
    isPlaceholder: bool("is_placeholder").notNull().default(false),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("bank_accounts_org_name").on(t.organizationId, nocase(t.name), t.id),
    index("bank_accounts_org_updated").on(t.organizationId, t.updatedAt, t.id),
  ],
);

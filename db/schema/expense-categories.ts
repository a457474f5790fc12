/** Expense categories' accounts (server/expense-categories). */
import { primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { updatedAt } from "./columns.ts";
import { orgId } from "./orgs.ts";
import { accounts } from "./accounts.ts";

/** Which expense account an expense category posts to (server/ledger/accounts.ts); the rest go to 6800. */
export const expenseCategoryAccounts = sqliteTable(
  "expense_category_accounts",
  {
    organizationId: orgId(),
    /** lower-cased and trimmed, as categories are matched */
    category: text("category").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.category] })],
);

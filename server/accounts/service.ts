/** Reading the chart of accounts (seeded per organisation by ./seed.ts; read-only over the API). */
import { eq, isNull } from "drizzle-orm";
import { t } from "elysia";
import type { Tx } from "../../db/client.ts";
import { accounts, nocase } from "../../db/schema.ts";
import { debitBalances, shownBalance } from "../ledger/balances.ts";
import { formatCents } from "../lib/money.ts";
import { booleanFilter, listPage, type ListQuery, type ListSpec } from "../lib/list.ts";
import { Uuid } from "../lib/schemas.ts";
import { findInOrg, type Scope } from "../lib/scope.ts";
import { ACCOUNT_TYPES } from "./model.ts";

type AccountRow = typeof accounts.$inferSelect;

/** The accounts as the API shows them, each with its balance in the organisation's currency. */
export function presentAccounts(tx: Tx, currency: string, rows: AccountRow[]) {
  const balances = debitBalances(tx, rows.map((r) => r.id), currency);
  return rows.map((row) => presentAccount(row, shownBalance(row.type, balances.get(row.id) ?? 0)));
}

function presentAccount(row: AccountRow, balanceCents: number) {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    type: row.type,
    parent_id: row.parentId,
    is_active: row.isActive,
    description: row.description,
    system_account: row.systemAccount,
    balance: formatCents(balanceCents),
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export const accountList: ListSpec<typeof accounts> = {
  table: accounts,
  sorts: { code: accounts.code, name: nocase(accounts.name) },
  defaultSort: "code",
  filters: {
    type: { column: accounts.type, schema: t.UnionEnum([...ACCOUNT_TYPES]) },
    is_active: booleanFilter(accounts.isActive),
    // "null" selects the top-level accounts
    parent_id: {
      schema: t.Union([Uuid, t.Literal("null")], { description: "A parent account's id, or null for top-level accounts" }),
      where: (value, bind) => (value === "null" ? isNull(accounts.parentId) : eq(accounts.parentId, bind("id", value))),
    },
  },
  search: "accounts_fts",
  updatedAt: accounts.updatedAt,
};

export const accountService = {
  list(scope: Scope, query: ListQuery, url: string) {
    return listPage(scope, accountList, query, url, (rows) => presentAccounts(scope.db, scope.org.currency, rows));
  },
  get(scope: Scope, id: string) {
    return presentAccounts(scope.db, scope.org.currency, [findInOrg(scope.db, accounts, scope.org.id, id)])[0]!;
  },
};

/** The chart of accounts (api-spec 2.7), read-only. */
import { t } from "elysia";
import { Money, Nullable, Timestamp, Uuid } from "../lib/schemas.ts";

export const ACCOUNT_TYPES = ["asset", "liability", "equity", "revenue", "expense"] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

/** The roles Kontor posts to (server/ledger/rules.ts), as Xero's SystemAccount. */
export const SYSTEM_ACCOUNTS = [
  "receivables", "payables", "vat_payable", "vat_receivable", "sales", "purchases", "bank", "retained_earnings",
] as const;
export type SystemAccount = (typeof SYSTEM_ACCOUNTS)[number];

/** Asset and expense accounts show debit balances as positive, the others credit balances. */
export const isDebitNormal = (type: AccountType) => type === "asset" || type === "expense";

export const AccountModel = {
  account: t.Object(
    {
      id: Uuid,
      code: t.String(),
      name: t.String(),
      type: t.UnionEnum([...ACCOUNT_TYPES]),
      parent_id: Nullable(Uuid),
      is_active: t.Boolean(),
      description: t.String(),
      system_account: Nullable(
        t.UnionEnum([...SYSTEM_ACCOUNTS], { description: "The role Kontor posts to this account in; null for accounts it posts to only by category or by hand" }),
      ),
      balance: t.String({
        ...Money,
        description: "In the organisation's currency, to date: debit balances positive for asset and expense accounts, credit balances positive for the others",
      }),
      created_at: Timestamp,
      updated_at: Timestamp,
    },
    { title: "Account" },
  ),
} as const;

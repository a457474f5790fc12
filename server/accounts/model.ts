/** The chart of accounts (api-spec 2.7), read-only. */
import { t } from "elysia";
import { Money, Nullable, Timestamp, Uuid } from "../lib/schemas.ts";

import { ACCOUNT_TYPES, SYSTEM_ACCOUNTS } from "../../db/values.ts";
export { ACCOUNT_TYPES, SYSTEM_ACCOUNTS, type AccountType, type SystemAccount } from "../../db/values.ts";

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

/**
 * The chart of accounts (docs/books.md#chart-of-accounts), editable (docs/books.md#editing-the-chart): accounts are
 * added, renamed, archived and deleted; the code, type and parent are fixed once created.
 */
import { t } from "elysia";
import { Money, Nullable, strictObject, Text, Timestamp, Uuid, withoutDefault } from "../lib/schemas.ts";

import { ACCOUNT_TYPES, SYSTEM_ACCOUNTS } from "../../db/values.ts";
export { ACCOUNT_TYPES, SYSTEM_ACCOUNTS, type AccountType, type SystemAccount } from "../../db/values.ts";

const Name = Text({ minLength: 1, maxLength: 255 });

export const AccountModel = {
  create: strictObject(
    {
      code: t.String({
        minLength: 1,
        maxLength: 20,
        pattern: "^[0-9A-Za-z][0-9A-Za-z._-]*$",
        description: "Unique in the organisation's chart (a code taken is a 422 naming code); letters, digits, dot, dash and underscore, e.g. 6131 or 550002",
        examples: ["613320"],
      }),
      name: Name,
      // no `default` (t.UnionEnum carries its first value as one, which Elysia would write into a body that leaves it out)
      type: withoutDefault(t.UnionEnum([...ACCOUNT_TYPES], { description: "asset, liability, equity, revenue or expense" })),
      parent_id: t.Optional(
        Nullable(
          t.String({
            ...Uuid,
            description:
              "An account of the organisation's chart of the same type, or a top-level account (no parent of its own: a PCMN class, the generic chart's 1000 Assets) of the same statement (balance sheet: asset, liability, equity; income statement: revenue, expense); else a 422 naming parent_id",
          }),
        ),
      ),
    },
    { title: "AccountCreate" },
  ),
  update: strictObject(
    {
      name: t.Optional(Name),
      is_active: t.Optional(
        t.Boolean({
          description:
            "false archives the account: only with a zero balance in every currency, and not the last account of a system role, nor one a bank account or an expense category uses (else 409); an archived account is not posted to. true restores it",
        }),
      ),
    },
    { title: "AccountUpdate" },
  ),
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

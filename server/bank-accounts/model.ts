/** Bank accounts (api-spec 2.8): read-only over the API, added with `kontor bank-account add`. */
import { t } from "elysia";
import { Money, Nullable, Timestamp, Uuid } from "../lib/schemas.ts";

export const BankAccountModel = {
  bankAccount: t.Object(
    {
      id: Uuid,
      name: t.String(),
      iban: t.String({ description: "Electronic format: upper case, no spaces" }),
      bank_name: Nullable(t.String()),
      currency: t.String(),
      balance: Money,
      is_active: t.Boolean(),
      account_id: t.String({ ...Uuid, description: "The linked asset account of the chart" }),
      created_at: Timestamp,
      updated_at: Timestamp,
    },
    { title: "BankAccount" },
  ),
} as const;

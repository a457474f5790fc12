/** Bank accounts (docs/banking.md#bank-accounts): read-only over the API, added with `kontor bank-account add`. */
import { t } from "elysia";
import { Money, Nullable, Timestamp, Uuid } from "../lib/schemas.ts";

export const BankAccountModel = {
  bankAccount: t.Object(
    {
      id: Uuid,
      name: t.String(),
      iban: t.String({ description: "Electronic format: upper case, no spaces" }),
      bic: Nullable(t.String({ description: "ISO 9362 BIC (8 or 11 characters), when given; documents carry it beside the IBAN", pattern: "^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$" })),
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

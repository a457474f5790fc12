/** A payment, of an invoice (money in; a credit note's refund: out) or of an expense (out). */
import { t } from "elysia";
import { DateString, Money, moneyInput, Nullable, strictObject, Text, Timestamp, Uuid } from "../lib/schemas.ts";

import type { Tx } from "../../db/client.ts";
import { PAYMENT_METHODS } from "../../db/values.ts";
export { PAYMENT_METHODS } from "../../db/values.ts";

/** A feature's read side: the document (or bank line) as its GET shows it, for the event's payload. */
export type Show<S = unknown> = (tx: Tx, orgId: string, id: string) => S;

export const paymentInput = (title: string) =>
  strictObject(
    {
      amount: moneyInput({ positive: true, description: "Decimal, minimum 0.01, at most the amount due" }),
      payment_date: DateString,
      payment_method: t.Optional(t.UnionEnum([...PAYMENT_METHODS], { description: "Default bank_transfer" })),
      reference: t.Optional(Nullable(Text({ maxLength: 255 }))),
      bank_account_id: t.Optional(
        t.String({
          ...Uuid,
          description:
            "The bank account the money moved through (in the document's currency); default: the organisation's default bank account if it holds that currency, else its first active one that does, else none",
        }),
      ),
    },
    { title },
  );

export const paymentShown = (title: string) =>
  t.Object(
    {
      id: Uuid,
      amount: Money,
      payment_date: DateString,
      payment_method: t.UnionEnum([...PAYMENT_METHODS]),
      reference: Nullable(t.String()),
      bank_account_id: Nullable(
        t.String({ ...Uuid, description: "Null when the organisation had no active bank account in the document's currency: the payment posted to the chart's bank account" }),
      ),
      created_at: Timestamp,
    },
    { title },
  );

export type PaymentInput = ReturnType<typeof paymentInput>["static"];

/** `/{id}/payments/{pid}`: the document and its payment */
export const PaymentParams = t.Object({ id: t.String(), pid: t.String() });

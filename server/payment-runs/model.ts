/** Payment runs (docs/banking.md#paying-suppliers): the API's shapes. */
import { t } from "elysia";
import { DateString, Money, Nullable, strictObject, Timestamp, Uuid } from "../lib/schemas.ts";

const PaymentRunItem = t.Object(
  {
    expense_id: Uuid,
    amount: Money,
    end_to_end_id: t.String({ description: "The credit transfer's EndToEndId: a statement's debit line carrying it pays this expense" }),
    reference: Nullable(t.String({ description: "The payment reference sent (structured `+++…+++` or `RF…`, else free text)" })),
    creditor_name: t.String(),
    creditor_iban: t.String(),
  },
  { title: "PaymentRunItem" },
);

export const PaymentRunModel = {
  create: strictObject(
    {
      bank_account_id: Uuid,
      due_by: t.String({ ...DateString, description: "Approved expenses due on or before this date are paid" }),
      execution_date: t.Optional(t.String({ ...DateString, description: "When the bank is to pay (ReqdExctnDt); today by default, not before today" })),
    },
    { title: "PaymentRunCreate" },
  ),
  paymentRun: t.Object(
    {
      id: Uuid,
      bank_account_id: Uuid,
      message_id: t.String({ description: "The file's MsgId and PmtInfId" }),
      due_by: DateString,
      execution_date: DateString,
      currency: t.String(),
      total: Money,
      item_count: t.Integer(),
      status: t.UnionEnum(["open", "completed"], { description: "open until every expense of the run is paid" }),
      items: t.Array(PaymentRunItem),
      created_at: Timestamp,
      updated_at: Timestamp,
    },
    { title: "PaymentRun" },
  ),
} as const;

export type PaymentRunCreate = typeof PaymentRunModel.create.static;

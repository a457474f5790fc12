/** Recurring invoices (docs/recurring.md): a template that generates an invoice per period. */
import { t } from "elysia";
import { Lines } from "../invoices/model.ts";
/** Elysia gives a UnionEnum its first value as a default, which it fills into an absent field: withoutDefault. */
import { Currency, DateString, Money, Nullable, strictObject, Text, Timestamp, Uuid, withoutDefault } from "../lib/schemas.ts";
import { RECURRING_INTERVALS, RECURRING_SEND_CHANNELS, RECURRING_STATUSES } from "../../db/values.ts";
export { RECURRING_INTERVALS, RECURRING_SEND_CHANNELS, RECURRING_STATUSES, type RecurringInterval, type RecurringLine, type RecurringSendChannel, type RecurringStatus } from "../../db/values.ts";

/** Bounds the series: `every` 120 months is ten years; `count` a thousand invoices. */
export const MAX_EVERY = 120;
export const MAX_COUNT = 1000;
export const DEFAULT_PAYMENT_DAYS = 30;

const schedule = {
  interval: withoutDefault(t.UnionEnum([...RECURRING_INTERVALS], { description: "The period: a month, a quarter (three months) or a year, times `every`" })),
  every: t.Integer({ minimum: 1, maximum: MAX_EVERY, description: "Every N intervals (every: 2 with monthly: every other month); default 1" }),
  day_of_period: t.Integer({
    minimum: 1,
    maximum: 31,
    description:
      "The day of the month each period starts and its invoice is issued (in the period's first month); the 29th, 30th and 31st fall on a shorter month's last day. Default: start_date's day",
  }),
  start_date: t.String({ ...DateString, description: "The first period starts on the first day_of_period on or after this date" }),
  end_date: Nullable(t.String({ ...DateString, description: "No period starts after this date; not with count" })),
  count: Nullable(t.Integer({ minimum: 1, maximum: MAX_COUNT, description: "How many invoices the series generates in all; not with end_date" })),
};

const contents = {
  currency: t.String({ ...Currency, description: "ISO 4217; default the customer's currency, then the organisation's (read at create)" }),
  prices_include_vat: t.Boolean({ description: "As an invoice's; default the organisation's (read at create)" }),
  notes: Nullable(Text({ maxLength: 5000, multiline: true, description: "Copied to each invoice" })),
  payment_terms: Nullable(Text({ maxLength: 255, multiline: true, description: "Copied to each invoice; default the customer's payment terms (read at create)" })),
  payment_days: t.Integer({ minimum: 0, maximum: 365, description: "Each invoice is due this many days after its issue date; default 30" }),
  buyer_reference: Nullable(Text({ maxLength: 200, description: "Copied to each invoice (BT-10)" })),
  order_reference: Nullable(Text({ maxLength: 200, description: "Copied to each invoice (BT-13)" })),
  auto_finalize: t.Boolean({
    description: "Finalize each generated invoice in the transaction that creates it; when finalize refuses, it stays a draft and the run reports why. Default false",
  }),
  auto_send: Nullable(
    withoutDefault(t.UnionEnum([...RECURRING_SEND_CHANNELS], {
      description: "Queue each finalized invoice for delivery over this channel (preferred: the customer's); needs auto_finalize. null: not sent",
    })),
  ),
};

const optional = <T extends Record<string, import("elysia").TSchema>>(fields: T) =>
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, t.Optional(v)])) as { [K in keyof T]: import("@sinclair/typebox").TOptional<T[K]> };

const RecurringLineShown = t.Object(
  {
    description: t.String(),
    quantity: Money,
    unit_code: t.String({ examples: ["C62"] }),
    unit_price: Money,
    vat_rate_id: Nullable(Uuid),
    discount_percent: Nullable(Money),
    discount_amount: Nullable(Money),
    discount_reason: Nullable(t.String()),
    supply_type: Nullable(t.UnionEnum(["goods", "services"], { description: "goods or services, as an invoice line's; null in a template written before it existed (the line's default)" })),
  },
  { title: "RecurringInvoiceLine" },
);

export const RecurringInvoiceModel = {
  create: strictObject(
    {
      customer_id: t.String({ ...Uuid, description: "A customer of the organisation" }),
      lines: Lines,
      interval: schedule.interval,
      start_date: schedule.start_date,
      ...optional({ every: schedule.every, day_of_period: schedule.day_of_period, end_date: schedule.end_date, count: schedule.count }),
      ...optional(contents),
    },
    { title: "RecurringInvoiceCreate" },
  ),
  update: strictObject(
    {
      ...optional({ customer_id: t.String({ ...Uuid, description: "A customer of the organisation" }), lines: Lines }),
      ...optional(schedule),
      ...optional(contents),
    },
    { title: "RecurringInvoiceUpdate", description: "The fields to change; they apply from the next period (an invoice generated is a copy of the template as it was)" },
  ),
  resumeQuery: t.Object({
    catch_up: t.Optional(
      withoutDefault(t.UnionEnum(["true", "false"], {
        description: "true: the periods that started while it was paused are generated by the next run (issued on its date); default false: they are skipped",
      })),
    ),
  }),
  recurringInvoice: t.Object(
    {
      id: Uuid,
      customer_id: Uuid,
      lines: t.Array(RecurringLineShown),
      ...schedule,
      ...contents,
      currency: t.String({ description: "ISO 4217" }),
      status: withoutDefault(t.UnionEnum([...RECURRING_STATUSES], {
        description: "active: generates; paused (POST …/pause, …/resume); ended: its end_date or count is reached",
      })),
      next_issue_date: Nullable(t.String({ ...DateString, description: "The start of the next period to generate (its invoice's issue date when on time); null once ended" })),
      generated_count: t.Integer({ description: "Invoices generated so far" }),
      last_run_at: Nullable(t.String({ ...Timestamp, description: "When a run last generated an invoice of it" })),
      created_at: Timestamp,
      updated_at: Timestamp,
    },
    { title: "RecurringInvoice" },
  ),
} as const;

export type RecurringInvoiceCreate = typeof RecurringInvoiceModel.create.static;
export type RecurringInvoiceUpdate = typeof RecurringInvoiceModel.update.static;

/** The reminder policy, reminders and runs as the API takes and shows them (docs/reminders.md). */
import { t } from "elysia";
import { DOCUMENT_LANGUAGES, REMINDER_CHANNELS, type ReminderChannel } from "../../db/values.ts";
import { DateString, Money, Nullable, strictObject, Text, Timestamp, Uuid } from "../lib/schemas.ts";

export { REMINDER_CHANNELS, type ReminderChannel };

/** Elysia's UnionEnum gives itself a `default` (its first value); none here (tests/openapi/openapi.test.ts). */
const Enum = <const T extends readonly [string, ...string[]]>(values: T, description: string) => {
  const schema = t.UnionEnum([...values] as [...T], { description });
  delete schema.default;
  return schema;
};

/** Days a charge would cover and no statutory rate does (server/interest/claim.ts `missing_rates`). */
export const MissingRates = t.Array(t.Object({ from: DateString, to: DateString }, { title: "DatePeriod" }), {
  description: "The days interest would be charged for and no statutory rate of the organisation's country covers (no table for the country, or the half year's rate not added yet): not charged until the published rate is added with `kontor rates add`; empty when none",
});
const TOTAL_TO_PAY =
  "The total the letter asks: the invoice's amount due, its interest notes still open and the one this reminder issues. One bank transfer of exactly this amount with the invoice's payment reference pays them all";

const PLACEHOLDERS = "{customer}, {organization}, {number}, {issue_date}, {due_date}, {amount_due} and {pay_by} are filled in";
const TextInput = strictObject({
  subject: Text({ minLength: 1, maxLength: 200, description: `The e-mail's subject and the letter's title; ${PLACEHOLDERS}` }),
  body: Text({ minLength: 1, maxLength: 5000, multiline: true, description: `The e-mail's body and the letter's text; ${PLACEHOLDERS}` }),
});
const TextShown = t.Object({ subject: t.String(), body: t.String() });
const byLanguage = <T extends ReturnType<typeof t.Object>>(schema: T, optional: boolean) =>
  Object.fromEntries(DOCUMENT_LANGUAGES.map((language) => [language, optional ? t.Optional(schema) : schema])) as Record<(typeof DOCUMENT_LANGUAGES)[number], T>;

const DAYS = "Days after the invoice's due date when this level is due; negative: a friendly note before the due date";
const CHARGE_INTEREST = "Charge statutory interest with this level (an interest note; for a consumer only from 14 days after the first reminder was accepted, Book XIX)";
const CHARGE_COMPENSATION = "Charge the fixed compensation with this level (once per invoice; for a consumer the indemnity Book XIX allows, after the same 14 days)";
const CHANNEL =
  "How reminders go: email, preferred (the customer's preferred channel; a reminder letter goes by e-mail, as Peppol carries invoices and credit notes only, so peppol is refused) or manual (recorded as sent at the run; print GET /reminders/{id}/pdf)";

/** What invoice.reminder_sent carries beside the invoice: the reminder that was sent. */
export const ReminderSent = t.Object(
  {
    id: t.String(),
    level: t.Integer({ description: "The policy level sent (1 the first)" }),
    interest_note_id: Nullable(t.String({ ...Uuid, description: "The interest note this reminder issued" })),
    interest: t.String({ ...Money, description: "Statutory interest it charged" }),
    compensation: t.String({ ...Money, description: "Fixed compensation it charged" }),
    total_to_pay: t.String({ ...Money, description: "What it asks the customer to pay" }),
    missing_rates: MissingRates,
    problem: Nullable(t.String({ description: "The days it could not charge interest for, in words" })),
  },
  { title: "ReminderSent" },
);

export const ReminderModel = {
  policyUpdate: strictObject(
    {
      enabled: t.Boolean({ description: "Whether the daily run and `kontor reminders run` remind this organisation's customers" }),
      channel: Enum(REMINDER_CHANNELS, CHANNEL),
      levels: t.Array(
        strictObject({
          days_after_due: t.Integer({ minimum: -60, maximum: 365, description: DAYS }),
          charge_interest: t.Boolean({ description: CHARGE_INTEREST }),
          charge_compensation: t.Boolean({ description: CHARGE_COMPENSATION }),
          texts: t.Optional(strictObject(byLanguage(TextInput, true), { description: "Subject and body per language; a language left out takes the default text" })),
        }),
        { maxItems: 10, description: "In increasing days_after_due, each day once; a level's index is its identity in the reminders recorded" },
      ),
    },
    { title: "ReminderPolicyUpdate" },
  ),
  policy: t.Object(
    {
      enabled: t.Boolean(),
      channel: Enum(REMINDER_CHANNELS, CHANNEL),
      levels: t.Array(
        t.Object({
          days_after_due: t.Integer({ description: DAYS }),
          charge_interest: t.Boolean({ description: CHARGE_INTEREST }),
          charge_compensation: t.Boolean({ description: CHARGE_COMPENSATION }),
          texts: t.Object(byLanguage(TextShown, false), { description: "Subject and body per language (the defaults where none was set)" }),
        }),
      ),
      is_default: t.Boolean({ description: "true until the policy is first saved: the defaults, disabled" }),
      updated_at: Nullable(Timestamp),
    },
    { title: "ReminderPolicy" },
  ),
  reminder: t.Object(
    {
      id: Uuid,
      invoice_id: Uuid,
      invoice_number: t.String(),
      customer_id: Uuid,
      level: t.Integer({ description: "The level's index in the policy when it was recorded" }),
      days_after_due: t.Integer(),
      run_date: DateString,
      channel: Enum(["email", "peppol", "manual"], "The channel it went over (preferred resolved)"),
      status: Enum(
        ["queued", "sent", "failed", "skipped"],
        "queued: its delivery waits for the channel; sent: accepted by the channel (manual: when recorded); failed: its delivery failed for good; skipped: a later level was due at the same run, which sent that one only",
      ),
      sent_at: Nullable(Timestamp),
      language: Enum(DOCUMENT_LANGUAGES, "The language it was written in"),
      amount_due: t.String({ ...Money, description: "The invoice's amount due at the run" }),
      interest: t.String({ ...Money, description: "Interest charged with it (its interest note)" }),
      compensation: t.String({ ...Money, description: "Compensation charged with it (its interest note)" }),
      interest_note_id: Nullable(Uuid),
      total_to_pay: t.String({ ...Money, description: `${TOTAL_TO_PAY} (as at the run)` }),
      missing_rates: MissingRates,
      delivery_id: Nullable(Uuid),
      created_at: Timestamp,
    },
    { title: "Reminder" },
  ),
  pause: strictObject(
    {
      paused: t.Boolean({ description: "true: no reminder run reminds of this invoice" }),
      reason: t.Optional(Nullable(Text({ maxLength: 500, description: "Why, for the people who read it" }))),
    },
    { title: "RemindersPause" },
  ),
  previewQuery: t.Object({
    date: t.Optional(t.String({ ...DateString, description: "The run's local date; default today in the organisation's time zone" })),
    limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, "x-param": "limit", description: "Reminders on this page, 1–1000 (default 1000)" })),
    after: t.Optional(t.String({ maxLength: 200, description: "The `next_after` of the previous page: the page starts after it" })),
  }),
  planned: t.Object(
    {
      invoice_id: Uuid,
      invoice_number: t.String(),
      customer_id: Uuid,
      customer_type: Enum(["organization", "individual"], "Which law applies: business (organization) or consumer (individual)"),
      level: t.Integer(),
      days_after_due: t.Integer(),
      skipped_levels: t.Array(t.Integer(), { description: "Earlier levels due at the same run: recorded as skipped, not sent" }),
      channel: Enum(["email", "peppol", "manual"], "The channel it would go over"),
      language: Enum(DOCUMENT_LANGUAGES, "The language it would be written in"),
      amount_due: t.String(Money),
      interest: t.String({ ...Money, description: "Interest it would charge (an interest note)" }),
      compensation: t.String({ ...Money, description: "Compensation it would charge" }),
      total_to_pay: t.String({ ...Money, description: TOTAL_TO_PAY }),
      first_reminder_accepted_on: Nullable(t.String({ ...DateString, description: "The local date the channel accepted the invoice's first reminder" })),
      charges_withheld_until: Nullable(
        t.String({ ...DateString, description: "A consumer: the first day anything may be charged (Book XIX: 14 days after the first reminder was accepted); null for a business or when nothing is asked" }),
      ),
      missing_rates: MissingRates,
      problem: Nullable(
        t.String({
          description:
            "What is wrong, in words: why it cannot be sent (no e-mail address), which the run leaves for a later run; or the days it cannot charge interest for without a statutory rate (`missing_rates`), which does not stop it: it goes, charging the days with a rate",
        }),
      ),
    },
    { title: "PlannedReminder" },
  ),
} as const;

export type ReminderPolicyUpdate = typeof ReminderModel.policyUpdate.static;
export type ShownReminderPolicy = typeof ReminderModel.policy.static;
export type PlannedReminder = typeof ReminderModel.planned.static;
export type RemindersPause = typeof ReminderModel.pause.static;

/**
 * Recurring invoices (docs/recurring.md): the templates' commands, each in one transaction with its
 * audit entry (recordChange; templates have no webhook event of their own: what they generate
 * emits invoice.created). Generation is run.ts.
 */
import { desc, eq } from "drizzle-orm";
import { t } from "elysia";
import type { Tx } from "../../db/client.ts";
import { organizations, recurringInvoicePeriods, recurringInvoices } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { readCustomer, readLines, type NewLine } from "../invoices/checks.ts";
import { FieldErrorBag } from "../lib/errors.ts";
import { listPage, type ListQuery, type ListSpec } from "../lib/list.ts";
import { formatCents } from "../lib/money.ts";
import { deleteInOrg, findInOrg, snapshot, unitOfWork, updateInOrg, type Scope } from "../lib/scope.ts";
import { Uuid } from "../lib/schemas.ts";
import { addDays, newId, nowIso, today } from "../lib/time.ts";
import { checkTransition, type Transition } from "../lib/transitions.ts";
import {
  DEFAULT_PAYMENT_DAYS,
  RECURRING_STATUSES,
  type RecurringInvoiceCreate,
  type RecurringInvoiceUpdate,
  type RecurringLine,
  type RecurringStatus,
} from "./model.ts";
import { firstPeriodAfter, type Schedule } from "./schedule.ts";
import { firstRow } from "../../db/client.ts";

export type TemplateRow = typeof recurringInvoices.$inferSelect;

const TRANSITIONS = {
  pause: { from: ["active"], refusal: "only an active recurring invoice can be paused" },
  resume: { from: ["paused"], refusal: "only a paused recurring invoice can be resumed" },
} as const satisfies Record<string, Transition<RecurringStatus>>;

export const recurringInvoiceList: ListSpec<typeof recurringInvoices> = {
  table: recurringInvoices,
  sorts: { created_at: recurringInvoices.createdAt, updated_at: recurringInvoices.updatedAt },
  defaultSort: "-created_at",
  filters: {
    status: { column: recurringInvoices.status, schema: t.UnionEnum([...RECURRING_STATUSES]) },
    customer_id: { column: recurringInvoices.customerId, schema: Uuid },
  },
  updatedAt: recurringInvoices.updatedAt,
};

export function presentRecurringInvoice(row: TemplateRow) {
  return {
    id: row.id,
    customer_id: row.customerId,
    lines: row.lines.map((line) => ({ ...line, supply_type: line.supply_type ?? null })),
    interval: row.interval,
    every: row.every,
    day_of_period: row.dayOfPeriod,
    start_date: row.startDate,
    end_date: row.endDate,
    count: row.count,
    currency: row.currency!,
    prices_include_vat: row.pricesIncludeVat!,
    notes: row.notes,
    payment_terms: row.paymentTerms,
    payment_days: row.paymentDays,
    buyer_reference: row.buyerReference,
    order_reference: row.orderReference,
    auto_finalize: row.autoFinalize,
    auto_send: row.autoSend,
    status: row.status,
    next_issue_date: row.nextIssueDate,
    generated_count: row.generatedCount,
    last_run_at: row.lastRunAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

/** A line as the template keeps it: the invoice line's input, read (and checked) by the invoices' readLines. */
function templateLine(line: NewLine): RecurringLine {
  return {
    description: line.description,
    quantity: formatCents(line.quantityCents),
    unit_code: line.unitCode,
    unit_price: formatCents(line.unitPriceCents),
    vat_rate_id: line.vatRateId,
    discount_percent: line.discountPercentBp === null ? null : formatCents(line.discountPercentBp),
    discount_amount: line.discountPercentBp === null && line.discountCents > 0 ? formatCents(line.discountCents) : null,
    discount_reason: line.discountReason,
    supply_type: line.supplyType,
  };
}

export const scheduleOf = (row: Pick<TemplateRow, "interval" | "every" | "dayOfPeriod" | "startDate" | "endDate" | "count">): Schedule => ({
  interval: row.interval,
  every: row.every,
  dayOfPeriod: row.dayOfPeriod,
  startDate: row.startDate,
  endDate: row.endDate,
  count: row.count,
});

/** The start of the last period generated, or null. */
async function lastGenerated(tx: Tx, templateId: string): Promise<string | null> {
  return (
    (await firstRow(tx
      .select({ start: recurringInvoicePeriods.periodStart })
      .from(recurringInvoicePeriods)
      .where(eq(recurringInvoicePeriods.templateId, templateId))
      .orderBy(desc(recurringInvoicePeriods.periodStart))
      .limit(1)))?.start ?? null
  );
}

/** The schedule's checks beyond the schema's: end_date or count, not both; end_date not before start_date; auto_send needs auto_finalize. */
function checkSchedule(bag: FieldErrorBag, row: Pick<TemplateRow, "startDate" | "endDate" | "count" | "autoFinalize" | "autoSend">, given: { end_date?: unknown; count?: unknown }) {
  if (row.endDate !== null && row.count !== null) bag.add(given.count !== undefined ? "count" : "end_date", "Give end_date or count, not both.");
  if (row.endDate !== null && row.endDate < row.startDate) bag.add("end_date", "The end_date must be a date after or equal to start_date.");
  if (row.autoSend !== null && !row.autoFinalize) bag.add("auto_send", "auto_send needs auto_finalize: only a finalized invoice is sent.");
}

async function orgPricesIncludeVat(tx: Tx, orgId: string): Promise<boolean> {
  return (await firstRow(tx.select({ gross: organizations.pricesIncludeVat }).from(organizations).where(eq(organizations.id, orgId))))?.gross ?? false;
}

/** Where the series stands after a change of its schedule: its next period after the last generated, and whether any is left. */
async function positioned(tx: Tx, row: TemplateRow): Promise<Pick<TemplateRow, "nextIssueDate" | "status">> {
  const next = firstPeriodAfter(scheduleOf(row), await lastGenerated(tx, row.id), row.generatedCount);
  const status: RecurringStatus = next === null ? "ended" : row.status === "ended" ? "active" : row.status;
  return { nextIssueDate: next, status };
}

async function record(tx: Tx, scope: Scope, action: string, id: string): Promise<void> {
  await recordChange(tx, scope, { action: `recurring_invoice.${action}`, resource: { type: "recurring_invoice", id } });
}

export const recurringInvoiceService = {
  list(scope: Scope, query: ListQuery, url: string) {
    return listPage(scope, recurringInvoiceList, query, url, (rows) => rows.map(presentRecurringInvoice));
  },

  async get(scope: Scope, id: string) {
    return await snapshot(scope.db, async (tx) => presentRecurringInvoice(await findInOrg(tx, recurringInvoices, scope.org.id, id)));
  },

  async create(scope: Scope, input: RecurringInvoiceCreate) {
    return await unitOfWork(scope.db, async (tx) => {
      const bag = new FieldErrorBag();
      const customer = await readCustomer(tx, scope.org.id, bag, input.customer_id);
      const pricesIncludeVat = input.prices_include_vat ?? await orgPricesIncludeVat(tx, scope.org.id);
      const lines = await readLines(tx, scope.org.id, bag, input.lines, pricesIncludeVat);
      const now = nowIso();
      const row: TemplateRow = {
        id: newId(),
        organizationId: scope.org.id,
        customerId: input.customer_id,
        lines: lines.map(templateLine),
        currency: input.currency ?? customer?.currency ?? scope.org.currency,
        pricesIncludeVat,
        notes: input.notes ?? null,
        paymentTerms: input.payment_terms === undefined ? (customer?.paymentTerms ?? null) : input.payment_terms,
        paymentDays: input.payment_days ?? DEFAULT_PAYMENT_DAYS,
        buyerReference: input.buyer_reference ?? null,
        orderReference: input.order_reference ?? null,
        interval: input.interval,
        every: input.every ?? 1,
        dayOfPeriod: input.day_of_period ?? Number(input.start_date.slice(8, 10)),
        startDate: input.start_date,
        endDate: input.end_date ?? null,
        count: input.count ?? null,
        autoFinalize: input.auto_finalize ?? false,
        autoSend: input.auto_send ?? null,
        status: "active",
        nextIssueDate: null,
        generatedCount: 0,
        lastRunAt: null,
        createdAt: now,
        updatedAt: now,
      };
      checkSchedule(bag, row, input);
      bag.throwIfAny();
      row.nextIssueDate = firstPeriodAfter(scheduleOf(row), null, 0);
      if (row.nextIssueDate === null) row.status = "ended";
      await tx.insert(recurringInvoices).values(row);
      await record(tx, scope, "created", row.id);
      return presentRecurringInvoice(row);
    });
  },

  /** Any field, in any state; it applies from the next period: the invoices generated stay as they were. */
  async update(scope: Scope, id: string, input: RecurringInvoiceUpdate) {
    return await unitOfWork(scope.db, async (tx) => {
      const row = await findInOrg(tx, recurringInvoices, scope.org.id, id);
      const bag = new FieldErrorBag();
      const next: TemplateRow = { ...row };
      if (input.customer_id !== undefined && await readCustomer(tx, scope.org.id, bag, input.customer_id)) next.customerId = input.customer_id;
      if (input.prices_include_vat !== undefined) next.pricesIncludeVat = input.prices_include_vat;
      if (input.lines !== undefined) next.lines = (await readLines(tx, scope.org.id, bag, input.lines, next.pricesIncludeVat ?? false)).map(templateLine);
      if (input.currency !== undefined) next.currency = input.currency;
      if (input.notes !== undefined) next.notes = input.notes;
      if (input.payment_terms !== undefined) next.paymentTerms = input.payment_terms;
      if (input.payment_days !== undefined) next.paymentDays = input.payment_days;
      if (input.buyer_reference !== undefined) next.buyerReference = input.buyer_reference;
      if (input.order_reference !== undefined) next.orderReference = input.order_reference;
      if (input.interval !== undefined) next.interval = input.interval;
      if (input.every !== undefined) next.every = input.every;
      if (input.day_of_period !== undefined) next.dayOfPeriod = input.day_of_period;
      if (input.start_date !== undefined) next.startDate = input.start_date;
      if (input.end_date !== undefined) next.endDate = input.end_date;
      if (input.count !== undefined) next.count = input.count;
      if (input.auto_finalize !== undefined) next.autoFinalize = input.auto_finalize;
      if (input.auto_send !== undefined) next.autoSend = input.auto_send;
      checkSchedule(bag, next, input);
      bag.throwIfAny();
      Object.assign(next, await positioned(tx, next), { updatedAt: nowIso() });
      const { id: _id, organizationId: _org, createdAt: _created, ...set } = next;
      await updateInOrg(tx, recurringInvoices, scope.org.id, id, set);
      await record(tx, scope, "updated", id);
      return presentRecurringInvoice(next);
    });
  },

  /** The invoices it generated stay (their recurring_invoice_id still names it). */
  async remove(scope: Scope, id: string): Promise<void> {
    await unitOfWork(scope.db, async (tx) => {
      await deleteInOrg(tx, recurringInvoices, scope.org.id, id);
      await record(tx, scope, "deleted", id);
    });
  },

  async pause(scope: Scope, id: string) {
    return await unitOfWork(scope.db, async (tx) => {
      const row = await findInOrg(tx, recurringInvoices, scope.org.id, id);
      checkTransition("recurring invoice", row.status, TRANSITIONS.pause);
      return setStatus(tx, scope, row, { status: "paused" }, "paused");
    });
  },

  /**
   * Active again. Without `catchUp` the periods that started while it was paused (before today)
   * are skipped: the next is the first starting today or later. With it, the next run generates
   * them, as it catches up after downtime.
   */
  async resume(scope: Scope, id: string, catchUp: boolean) {
    return await unitOfWork(scope.db, async (tx) => {
      const row = await findInOrg(tx, recurringInvoices, scope.org.id, id);
      checkTransition("recurring invoice", row.status, TRANSITIONS.resume);
      // "after yesterday" is "on or after today"; never before the last period generated
      const yesterday = addDays(today(), -1);
      const last = await lastGenerated(tx, row.id);
      const nextIssueDate = catchUp ? row.nextIssueDate : firstPeriodAfter(scheduleOf(row), last !== null && last > yesterday ? last : yesterday, row.generatedCount);
      return setStatus(tx, scope, row, { status: nextIssueDate === null ? "ended" : "active", nextIssueDate }, "resumed");
    });
  },
};

async function setStatus(tx: Tx, scope: Scope, row: TemplateRow, set: Partial<TemplateRow>, action: string) {
  const next = { ...row, ...set, updatedAt: nowIso() };
  await updateInOrg(tx, recurringInvoices, scope.org.id, row.id, { ...set, updatedAt: next.updatedAt });
  await record(tx, scope, action, row.id);
  return presentRecurringInvoice(next);
}

/**
 * Expenses and their approval workflow (contract section 4): pending → approved | rejected.
 * Every change writes its audit entry and its webhook deliveries in its own transaction.
 */
import { t } from "elysia";
import type { Tx } from "../../db/client.ts";
import { expenses } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { FieldErrorBag } from "../lib/errors.ts";
import { listPage, type ListQuery, type ListSpec } from "../lib/list.ts";
import { formatCents, readMoney } from "../lib/money.ts";
import { Currency, DateString, Uuid } from "../lib/schemas.ts";
import { deleteInOrg, findInOrg, transaction, updateInOrg, type Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import { stateMachine } from "../lib/transitions.ts";
import { supplierForVendor } from "../suppliers/service.ts";
import { readVatRate } from "../vat-rates/service.ts";
import { EXPENSE_STATUSES, type ExpenseCreate, type ExpenseReject, type ExpenseUpdate } from "./model.ts";

type ExpenseRow = typeof expenses.$inferSelect;

/** The expense as the API and its webhooks show it. */
export function presentExpense(row: ExpenseRow) {
  return {
    id: row.id,
    category: row.category,
    description: row.description,
    amount: formatCents(row.amountCents),
    vat_amount: formatCents(row.vatCents),
    vat_rate_id: row.vatRateId,
    date: row.date,
    vendor: row.vendor,
    status: row.status,
    rejection_reason: row.rejectionReason,
    currency: row.currency,
    supplier_id: row.supplierId,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export const expenseList: ListSpec<typeof expenses> = {
  table: expenses,
  sorts: {
    date: expenses.date,
    amount: expenses.amountCents,
    category: expenses.category,
    status: expenses.status,
    created_at: expenses.createdAt,
    updated_at: expenses.updatedAt,
  },
  defaultSort: "-date",
  filters: {
    status: { column: expenses.status, schema: t.UnionEnum([...EXPENSE_STATUSES]) },
    category: { column: expenses.category, schema: t.String({ maxLength: 100, description: "Exact category" }) },
    supplier_id: { column: expenses.supplierId, schema: Uuid },
    currency: { column: expenses.currency, schema: Currency },
    date_from: { column: expenses.date, op: "gte", schema: t.String({ ...DateString, description: "On or after this date" }) },
    date_to: { column: expenses.date, op: "lte", schema: t.String({ ...DateString, description: "On or before this date" }) },
  },
  search: "expenses_fts",
  updatedAt: expenses.updatedAt,
};

/**
 * The columns an input sets, after the checks the schema cannot make (money, the VAT rate's
 * organisation, a category that is only blanks); then the vendor's supplier, created when
 * missing, once the input is known to be valid.
 */
function columnsOf(tx: Tx, scope: Scope, input: ExpenseUpdate): Partial<ExpenseRow> {
  const bag = new FieldErrorBag();
  const out: Partial<ExpenseRow> = {};
  if (input.category !== undefined) {
    out.category = input.category.trim();
    if (out.category === "") bag.add("category", "The category field must not be empty.");
  }
  if (input.amount !== undefined) out.amountCents = readMoney(bag, "amount", input.amount, { min: 1 }) ?? undefined;
  if (input.vat_amount !== undefined) out.vatCents = readMoney(bag, "vat_amount", input.vat_amount, { min: 0 }) ?? undefined;
  if (input.vat_rate_id !== undefined) {
    out.vatRateId = input.vat_rate_id === null ? null : (readVatRate(tx, scope.org.id, bag, "vat_rate_id", input.vat_rate_id)?.id ?? null);
  }
  if (input.date !== undefined) out.date = input.date;
  if (input.description !== undefined) out.description = input.description;
  if (input.currency !== undefined) out.currency = input.currency;
  bag.throwIfAny();
  if (input.vendor !== undefined) {
    // a blank vendor is no vendor: no supplier either
    const vendor = input.vendor?.trim() || null;
    out.vendor = vendor;
    out.supplierId = vendor === null ? null : supplierForVendor(tx, scope, vendor);
  }
  return out;
}

/**
 * The approval workflow as data (contract section 4): the states each operation starts from, and
 * what the 409 says otherwise (after "The expense is <status>; ").
 */
const findFor = stateMachine(expenses, () => "expense", {
  update: { from: ["pending", "rejected"], refusal: "an approved expense can no longer be edited" },
  delete: { from: ["pending", "rejected"], refusal: "an approved expense cannot be deleted" },
  approve: { from: ["pending"], refusal: "only a pending expense can be approved" },
  reject: { from: ["pending"], refusal: "only a pending expense can be rejected" },
});

/** Moves a pending expense to `status` (approve, reject). */
function decide(scope: Scope, id: string, status: "approved" | "rejected", rejectionReason: string | null) {
  return transaction(scope.db, (tx) => {
    findFor(tx, scope, id, status === "approved" ? "approve" : "reject");
    updateInOrg(tx, expenses, scope.org.id, id, { status, rejectionReason, updatedAt: nowIso() });
    const shown = presentExpense(findInOrg(tx, expenses, scope.org.id, id));
    // api-spec 6.1 has no expense.rejected event: a rejection is an update
    const event = status === "approved" ? "expense.approved" : "expense.updated";
    recordChange(tx, scope, { action: `expense.${status}`, resource: { type: "expense", id }, event, data: shown });
    return shown;
  });
}

export const expenseService = {
  list(scope: Scope, query: ListQuery, url: string) {
    return listPage(scope, expenseList, query, url, (rows) => rows.map(presentExpense));
  },

  get(scope: Scope, id: string) {
    return presentExpense(findInOrg(scope.db, expenses, scope.org.id, id));
  },

  create(scope: Scope, input: ExpenseCreate) {
    return transaction(scope.db, (tx) => {
      const now = nowIso();
      const row: ExpenseRow = {
        id: newId(),
        organizationId: scope.org.id,
        category: "",
        description: null,
        // category, amount and date are required: columnsOf sets them
        amountCents: 0,
        vatCents: 0,
        vatRateId: null,
        date: "",
        vendor: null,
        supplierId: null,
        status: "pending",
        currency: scope.org.currency,
        rejectionReason: null,
        ...columnsOf(tx, scope, input),
        createdAt: now,
        updatedAt: now,
      };
      tx.insert(expenses).values(row).run();
      const shown = presentExpense(row);
      recordChange(tx, scope, { action: "expense.created", resource: { type: "expense", id: row.id }, event: "expense.created", data: shown });
      return shown;
    });
  },

  /** Pending and rejected expenses can be edited; a rejected one returns to pending. */
  update(scope: Scope, id: string, input: ExpenseUpdate) {
    return transaction(scope.db, (tx) => {
      const row = findFor(tx, scope, id, "update");
      const resubmitted = row.status === "rejected" ? { status: "pending" as const, rejectionReason: null } : {};
      updateInOrg(tx, expenses, scope.org.id, id, { ...columnsOf(tx, scope, input), ...resubmitted, updatedAt: nowIso() });
      const shown = presentExpense(findInOrg(tx, expenses, scope.org.id, id));
      recordChange(tx, scope, { action: "expense.updated", resource: { type: "expense", id }, event: "expense.updated", data: shown });
      return shown;
    });
  },

  remove(scope: Scope, id: string): void {
    transaction(scope.db, (tx) => {
      const row = findFor(tx, scope, id, "delete");
      deleteInOrg(tx, expenses, scope.org.id, id);
      recordChange(tx, scope, { action: "expense.deleted", resource: { type: "expense", id }, event: "expense.deleted", data: presentExpense(row) });
    });
  },

  approve(scope: Scope, id: string) {
    return decide(scope, id, "approved", null);
  },

  reject(scope: Scope, id: string, input: ExpenseReject | null | undefined) {
    return decide(scope, id, "rejected", input?.reason?.trim() || null);
  },
};

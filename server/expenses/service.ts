/**
 * Expenses and their approval workflow (docs/payables.md#expenses): pending → approved |
 * rejected; an approved expense is posted to the ledger and paid by payments, like an invoice.
 * Every change writes its journal entries, audit entry and webhook deliveries in its own transaction.
 */
import { t } from "elysia";
import type { Tx } from "../../db/client.ts";
import { asc, eq, inArray } from "drizzle-orm";
import { expensePayments, expenses, expenseVatLines } from "../../db/schema.ts";
import { expensePosting } from "../ledger/rules.ts";
import type { PaymentInput } from "../settlement/model.ts";
import { canonicalPaymentReference } from "../documents/payment-reference.ts";
import { expenseDueCents, expensePayableCents, expenseRefundDueCents, expenseStatusAfterPayments } from "../settlement/due.ts";
import { deletePayment, presentPayment, recordPayment } from "../settlement/payments.ts";
import { recordChange } from "../changes/record.ts";
import { FieldErrorBag } from "../lib/errors.ts";
import { listPage, type ListQuery, type ListSpec } from "../lib/list.ts";
import { ibanProblem, normalizeIban } from "../lib/iban.ts";
import { formatCents, readMoney } from "../lib/money.ts";
import { Currency, DateString, ExternalId, Uuid } from "../lib/schemas.ts";
import { checkExternalId, normalizeExternalId } from "../lib/external-ids.ts";
import { deleteInOrg, findInOrg, inOrg, snapshot, unitOfWork, updateInOrg, type Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import { stateMachine } from "../lib/transitions.ts";
import { supplierForVendor } from "../suppliers/service.ts";
import { readVatRate } from "../vat-rates/service.ts";
import { EXPENSE_STATUSES, type ExpenseCreate, type ExpenseReject, type ExpenseUpdate } from "./model.ts";

type ExpenseRow = typeof expenses.$inferSelect;
type ExpensePaymentRow = typeof expensePayments.$inferSelect;

/** The expenses as the API and its webhooks show them, each with its payments (one query for all). */
export async function presentExpenses(tx: Tx, rows: ExpenseRow[]) {
  const approved = rows.filter((r) => r.status === "approved" || r.status === "paid").map((r) => r.id);
  const paymentRows =
    approved.length === 0
      ? []
      : (await tx.select().from(expensePayments).where(inArray(expensePayments.expenseId, approved)).orderBy(asc(expensePayments.createdAt), asc(expensePayments.id)));
  const byExpense = Map.groupBy(paymentRows, (p) => p.expenseId);
  return rows.map((row) => presentExpense(row, byExpense.get(row.id) ?? []));
}

export async function showExpense(tx: Tx, orgId: string, id: string) {
  return (await presentExpenses(tx, [await findInOrg(tx, expenses, orgId, id)]))[0]!;
}

function presentExpense(row: ExpenseRow, paymentRows: ExpensePaymentRow[]) {
  const totalCents = row.amountCents + row.vatCents;
  return {
    id: row.id,
    category: row.category,
    description: row.description,
    amount: formatCents(row.amountCents),
    vat_amount: formatCents(row.vatCents),
    vat_rate_id: row.vatRateId,
    self_assessed_vat_rate_id: row.selfAssessedVatRateId,
    date: row.date,
    vendor: row.vendor,
    status: row.status,
    rejection_reason: row.rejectionReason,
    currency: row.currency,
    supplier_id: row.supplierId,
    total: formatCents(totalCents),
    amount_paid: formatCents(row.paidCents),
    amount_due: formatCents(expenseDueCents(row)),
    refund_due: formatCents(expenseRefundDueCents(row)),
    prepaid_amount: formatCents(row.prepaidCents),
    rounding_amount: formatCents(row.roundingCents),
    payments: paymentRows.map(presentPayment),
    document_type: row.documentType,
    supplier_invoice_number: row.supplierInvoiceNumber,
    // only an import sets the supplier's number, and every import keeps its document
    document_url: row.supplierInvoiceNumber === null ? null : `/api/v1/expenses/${row.id}/document`,
    due_date: row.dueDate,
    payee_iban: row.payeeIban,
    payment_reference: row.paymentReference,
    external_id: row.externalId,
    metadata: row.metadata,
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
    external_id: { column: expenses.externalId, schema: ExternalId, map: normalizeExternalId },
  },
  search: "expenses_fts",
  updatedAt: expenses.updatedAt,
  metadata: expenses.metadata,
};

/**
 * A payment reference as stored: a Belgian structured communication or an RF creditor reference
 * in its canonical form (so bank matching compares strings); text shaped like one whose check
 * digits fail is a typo, refused; anything else is free text. Blank is none.
 */
export function readPaymentReference(bag: FieldErrorBag, field: string, text: string | null): string | null {
  const trimmed = text?.trim() ?? "";
  if (trimmed === "") return null;
  const canonical = canonicalPaymentReference(trimmed);
  if (canonical) return canonical;
  if (/^(\+{3}|\*{3})|^\d{3}\/?\d{4}\/?\d{5}$/.test(trimmed)) {
    bag.add(field, "The Belgian structured communication has wrong check digits (mod 97): check it for a typo.");
  } else if (/^RF\d{2}[A-Z0-9]{1,21}$/.test(trimmed.replace(/\s+/g, "").toUpperCase())) {
    bag.add(field, "The creditor reference (ISO 11649) has wrong check digits (mod 97): check it for a typo.");
  }
  return trimmed;
}

/**
 * The columns an input sets, after the checks the schema cannot make (money, the VAT rate's
 * organisation, a category that is only blanks, an IBAN's and a reference's check digits, a due
 * date before the date, counting the stored date on an update); then the vendor's supplier,
 * created when missing, once the input is known to be valid.
 */
async function columnsOf(tx: Tx, scope: Scope, input: ExpenseUpdate, current?: ExpenseRow): Promise<Partial<ExpenseRow>> {
  const bag = new FieldErrorBag();
  const out: Partial<ExpenseRow> = {};
  if (input.category !== undefined) {
    out.category = input.category.trim();
    if (out.category === "") bag.add("category", "The category field must not be empty.");
  }
  if (input.amount !== undefined) out.amountCents = readMoney(bag, "amount", input.amount, { min: 1 }) ?? undefined;
  if (input.vat_amount !== undefined) out.vatCents = readMoney(bag, "vat_amount", input.vat_amount, { min: 0 }) ?? undefined;
  if (input.vat_rate_id !== undefined) {
    out.vatRateId = input.vat_rate_id === null ? null : ((await readVatRate(tx, scope.org.id, bag, "vat_rate_id", input.vat_rate_id))?.id ?? null);
  }
  if (input.self_assessed_vat_rate_id !== undefined) {
    const rate = input.self_assessed_vat_rate_id === null ? null : await readVatRate(tx, scope.org.id, bag, "self_assessed_vat_rate_id", input.self_assessed_vat_rate_id);
    // the VAT the purchaser owes is at a standard (or reduced) rate: a rate of another category says nothing
    if (rate && rate.category !== "S") bag.add("self_assessed_vat_rate_id", `The VAT rate ${rate.name} is of category ${rate.category}: VAT is self-assessed at a standard-rate (S) VAT rate.`);
    out.selfAssessedVatRateId = rate?.id ?? null;
  }
  if (input.date !== undefined) out.date = input.date;
  if (input.description !== undefined) out.description = input.description;
  if (input.currency !== undefined) out.currency = input.currency;
  if (input.due_date !== undefined) out.dueDate = input.due_date;
  // checked only when one of the two is sent: an imported due date is the supplier's to give
  const dueDate = out.dueDate ?? current?.dueDate ?? null;
  const date = out.date ?? current?.date;
  if ((input.due_date != null || input.date !== undefined) && dueDate !== null && date !== undefined && dueDate < date) {
    bag.add("due_date", `The due date must not be before the expense's date (${date}).`);
  }
  if (input.payee_iban !== undefined) {
    const iban = input.payee_iban === null ? "" : normalizeIban(input.payee_iban);
    const problem = iban === "" ? null : ibanProblem(iban);
    if (problem) bag.add("payee_iban", problem);
    out.payeeIban = iban === "" ? null : iban;
  }
  if (input.payment_reference !== undefined) out.paymentReference = readPaymentReference(bag, "payment_reference", input.payment_reference);
  if (input.external_id !== undefined) out.externalId = normalizeExternalId(input.external_id);
  // replaced as a whole: {} clears it
  if (input.metadata !== undefined) out.metadata = input.metadata;
  bag.throwIfAny();
  await checkExternalId(tx, expenses, "expense", scope.org.id, out.externalId, current?.id);
  if (input.vendor !== undefined) {
    // a blank vendor is no vendor: no supplier either
    const vendor = input.vendor?.trim() || null;
    out.vendor = vendor;
    out.supplierId = vendor === null ? null : await supplierForVendor(tx, scope, vendor);
  }
  return out;
}

/**
 * The approval workflow as data: the states each operation starts from, and
 * what the 409 says otherwise (after "The expense is <status>; ").
 */
const findFor = stateMachine(expenses, () => "expense", {
  update: { from: ["pending", "rejected"], refusal: "an approved or paid expense can no longer be edited" },
  delete: { from: ["pending", "rejected"], refusal: "an approved or paid expense cannot be deleted" },
  approve: { from: ["pending"], refusal: "only a pending expense can be approved" },
  reject: { from: ["pending"], refusal: "only a pending expense can be rejected" },
});

/** Moves a pending expense to `status` (approve, reject). */
async function decide(scope: Scope, id: string, status: "approved" | "rejected", rejectionReason: string | null) {
  return await unitOfWork(scope.db, async (tx) => {
    const before = await findFor(tx, scope, id, status === "approved" ? "approve" : "reject");
    // an invoice prepaid in full (BT-115 0.00) leaves nothing to pay once approved
    const decided = status === "approved" ? expenseStatusAfterPayments(before, before.paidCents) : status;
    await updateInOrg(tx, expenses, scope.org.id, id, { status: decided, rejectionReason, updatedAt: nowIso() });
    const row = await findInOrg(tx, expenses, scope.org.id, id);
    const shown = (await presentExpenses(tx, [row]))[0]!;
    // there is no expense.rejected event: a rejection is an update (docs/payables.md#expenses)
    const event = status === "approved" ? "expense.approved" : "expense.updated";
    const ledger = status === "approved" ? [{ post: await expensePosting(tx, row) }] : [];
    await recordChange(tx, scope, { action: `expense.${status}`, resource: { type: "expense", id }, event, data: shown, ledger });
    return shown;
  });
}

export const expenseService = {
  async list(scope: Scope, query: ListQuery, url: string) {
    return await listPage(scope, expenseList, query, url, async (rows, tx) => await presentExpenses(tx, rows));
  },

  get(scope: Scope, id: string) {
    return snapshot(scope.db, (tx) => showExpense(tx, scope.org.id, id));
  },

  async create(scope: Scope, input: ExpenseCreate) {
    return await unitOfWork(scope.db, async (tx) => {
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
        paidCents: 0,
        documentType: "invoice",
        supplierInvoiceNumber: null,
        payeeIban: null,
        paymentReference: null,
        dueDate: null,
        prepaidCents: 0,
        roundingCents: 0,
        selfAssessedVatRateId: null,
        externalId: null,
        metadata: {},
        ...await columnsOf(tx, scope, input),
        createdAt: now,
        updatedAt: now,
      };
      await tx.insert(expenses).values(row);
      const shown = presentExpense(row, []);
      await recordChange(tx, scope, { action: "expense.created", resource: { type: "expense", id: row.id }, event: "expense.created", data: shown });
      return shown;
    });
  },

  /** Pending and rejected expenses can be edited; a rejected one returns to pending. */
  async update(scope: Scope, id: string, input: ExpenseUpdate) {
    return await unitOfWork(scope.db, async (tx) => {
      const row = await findFor(tx, scope, id, "update");
      const resubmitted = row.status === "rejected" ? { status: "pending" as const, rejectionReason: null } : {};
      const columns = await columnsOf(tx, scope, input, row);
      // an imported document's prepaid amount stays: a total edited by hand must still cover it
      // (unless the document itself said more was prepaid than its total: its supplier owes the rest back)
      const amountsEdited = input.amount !== undefined || input.vat_amount !== undefined;
      if (amountsEdited && expensePayableCents({ ...row, ...columns }) < 0 && expensePayableCents(row) >= 0) {
        const bag = new FieldErrorBag();
        bag.add(input.amount !== undefined ? "amount" : "vat_amount", `amount + vat_amount must be at least the prepaid amount less the rounding (${formatCents(row.prepaidCents - row.roundingCents)}).`);
        bag.throwIfAny();
      }
      await updateInOrg(tx, expenses, scope.org.id, id, { ...columns, ...resubmitted, updatedAt: nowIso() });
      // an imported document's VAT breakdown no longer describes amounts edited by hand: the expense posts as one rate again
      if (input.amount !== undefined || input.vat_amount !== undefined || input.vat_rate_id !== undefined) {
        await tx.delete(expenseVatLines).where(inOrg(expenseVatLines, scope.org.id, eq(expenseVatLines.expenseId, id)));
      }
      const shown = await showExpense(tx, scope.org.id, id);
      await recordChange(tx, scope, { action: "expense.updated", resource: { type: "expense", id }, event: "expense.updated", data: shown });
      return shown;
    });
  },

  async remove(scope: Scope, id: string): Promise<void> {
    await unitOfWork(scope.db, async (tx) => {
      const row = await findFor(tx, scope, id, "delete");
      await deleteInOrg(tx, expenses, scope.org.id, id);
      await recordChange(tx, scope, { action: "expense.deleted", resource: { type: "expense", id }, event: "expense.deleted", data: presentExpense(row, []) });
    });
  },

  approve(scope: Scope, id: string) {
    return decide(scope, id, "approved", null);
  },

  reject(scope: Scope, id: string, input: ExpenseReject | null | undefined) {
    return decide(scope, id, "rejected", input?.reason?.trim() || null);
  },

  /** A payment of at most the amount due of an approved expense: payables against the bank (server/settlement). */
  async recordPayment(scope: Scope, id: string, input: PaymentInput) {
    return await unitOfWork(scope.db, async (tx) => (await recordPayment(tx, scope, { kind: "expense", row: await findInOrg(tx, expenses, scope.org.id, id) }, input, showExpense)).shown);
  },

  /** Removes a payment recorded by mistake: its posting is reversed on its own date, a bank line holding it is unmatched. */
  async deletePayment(scope: Scope, id: string, paymentId: string): Promise<void> {
    await unitOfWork(scope.db, async (tx) => deletePayment(tx, scope, { kind: "expense", row: await findInOrg(tx, expenses, scope.org.id, id) }, paymentId, showExpense));
  },
};


import type { Tx } from "../../db/client.ts";
import { accounts, bankAccounts, expenseCategoryAccounts } from "../../db/schema.ts";
import { newId, nowIso } from "../lib/time.ts";
import { LATE_INCOME_NAME } from "../ledger/accounts.ts";
import type { AccountType, SystemAccount } from "./model.ts";

/** [code, name, type, parent code, description, system account] — a small generic chart. */
export const GENERIC_CHART: [string, string, AccountType, string | null, string, SystemAccount | null][] = [
  ["1000", "Assets", "asset", null, "Everything the organisation owns", null],
  ["1100", "Bank", "asset", "1000", "Money held in bank accounts", null],
  ["1110", "Current account", "asset", "1100", "Main operating bank account", "bank"],
  ["1200", "Accounts receivable", "asset", "1000", "Invoiced amounts not yet received from customers", "receivables"],
  ["1300", "Cash", "asset", "1000", "Cash on hand", null],
  ["1400", "VAT receivable", "asset", "1000", "Input VAT to reclaim", "vat_receivable"],
  ["1900", "Suspense account", "asset", "1000", "Bank lines not yet matched to a document or booked to an account", "suspense"],
  ["2000", "Liabilities", "liability", null, "Everything the organisation owes", null],
  ["2100", "Accounts payable", "liability", "2000", "Amounts owed to suppliers", "payables"],
  ["2200", "VAT payable", "liability", "2000", "Output VAT owed to the tax authority", "vat_payable"],
  ["2300", "Loans", "liability", "2000", "Borrowed money", null],
  ["3000", "Equity", "equity", null, "Owners' stake in the organisation", null],
  ["3100", "Share capital", "equity", "3000", "Capital paid in by the owners", null],
  ["3200", "Retained earnings", "equity", "3000", "Accumulated profit of earlier years", "retained_earnings"],
  ["4000", "Revenue", "revenue", null, "Income from operations", null],
  ["4100", "Sales", "revenue", "4000", "Revenue from invoiced goods and services", "sales"],
  ["4900", "Other income", "revenue", "4000", "Income outside the main activity", null],
  ["4950", LATE_INCOME_NAME, "revenue", "4000", "Interest and fixed compensation charged on late payments (interest notes); outside the scope of VAT", "late_payment_income"],
  ["6000", "Expenses", "expense", null, "Costs of operations", null],
  ["6100", "Cost of goods sold", "expense", "6000", "Direct costs of what was sold", null],
  ["6200", "Rent", "expense", "6000", "Premises", null],
  ["6300", "Salaries", "expense", "6000", "Personnel costs", null],
  ["6400", "Office and software", "expense", "6000", "Supplies, subscriptions and equipment", null],
  ["6500", "Travel", "expense", "6000", "Transport and accommodation", null],
  ["6800", "General expenses", "expense", "6000", "Expenses of a category mapped to no other account", "purchases"],
  ["6900", "Bank charges", "expense", "6000", "Fees charged by banks", null],
];

/** The code of the asset account the first bank account (given at `kontor org create`) links to; later ones get 1111, 1112, … */
export const BANK_ACCOUNT_CODE = "1110";

/**
 * Expense category (lower-cased, trimmed) → the code of the expense account it posts to. Seeded
 * per organisation, changeable over the API; a category not listed posts to the `purchases`
 * account, 6800 General expenses.
 */
export const DEFAULT_CATEGORY_ACCOUNTS: Record<string, string> = {
  "cost of goods sold": "6100",
  goods: "6100",
  merchandise: "6100",
  rent: "6200",
  salaries: "6300",
  salary: "6300",
  payroll: "6300",
  office: "6400",
  software: "6400",
  supplies: "6400",
  subscriptions: "6400",
  equipment: "6400",
  travel: "6500",
  transport: "6500",
  accommodation: "6500",
  "bank charges": "6900",
  "bank fees": "6900",
};

/**
 * Seeds the chart of accounts and its category map; no bank account (an organisation's bank
 * accounts are its own: contract section 3). Returns the id of 1110 Current account, the `bank`
 * account its first bank account links to, and what a payment without a bank account posts to.
 */
export function seedChart(tx: Tx, organizationId: string): string {
  const now = nowIso();
  const idByCode = new Map<string, string>();
  for (const [code] of GENERIC_CHART) idByCode.set(code, newId());
  tx.insert(accounts)
    .values(
      GENERIC_CHART.map(([code, name, type, parent, description, systemAccount]) => ({
        id: idByCode.get(code)!,
        organizationId,
        code,
        name,
        type,
        parentId: parent ? idByCode.get(parent)! : null,
        isActive: true,
        description,
        systemAccount,
        createdAt: now,
        updatedAt: now,
      })),
    )
    .run();
  tx.insert(expenseCategoryAccounts)
    .values(Object.entries(DEFAULT_CATEGORY_ACCOUNTS).map(([category, code]) => ({ organizationId, category, accountId: idByCode.get(code)!, updatedAt: now })))
    .run();
  return idByCode.get(BANK_ACCOUNT_CODE)!;
}

/** The organisation's first bank account (`kontor org create --iban`), linked to 1110; returns its id. */
export function seedBankAccount(
  tx: Tx,
  organizationId: string,
  ledgerAccountId: string,
  input: { iban: string; bic: string | null; bankName: string | null; currency: string },
): string {
  const now = nowIso();
  const id = newId();
  tx.insert(bankAccounts)
    .values({
      id,
      organizationId,
      name: "Current account",
      iban: input.iban,
      bic: input.bic,
      bankName: input.bankName,
      currency: input.currency,
      isActive: true,
      isPlaceholder: false,
      accountId: ledgerAccountId,
      createdAt: now,
      updatedAt: now,
    })
    .run();
  return id;
}

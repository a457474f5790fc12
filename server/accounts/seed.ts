import type { Tx } from "../../db/client.ts";
import { accounts, bankAccounts, expenseCategoryAccounts } from "../../db/schema.ts";
import type { Chart, DocumentLanguage } from "../../db/values.ts";
import { newId, nowIso } from "../lib/time.ts";
import { LATE_INCOME_NAME } from "../ledger/accounts.ts";
import type { AccountType, SystemAccount } from "./model.ts";
import { PCMN_ACCOUNTS, type PcmnAccount } from "./pcmn.ts";

/** [code, name, type, parent code, description, system account] — a small generic chart. */
export const GENERIC_CHART: [string, string, AccountType, string | null, string, SystemAccount | null][] = [
  ["1000", "Assets", "asset", null, "Everything the organisation owns", null],
  ["1100", "Bank", "asset", "1000", "Money held in bank accounts", null],
  ["1110", "Current account", "asset", "1100", "Main operating bank account", "bank"],
  ["1200", "Accounts receivable", "asset", "1000", "Invoiced amounts not yet received from customers", "receivables"],
  ["1300", "Cash", "asset", "1000", "Cash on hand", null],
  ["1400", "VAT receivable", "asset", "1000", "Input VAT to reclaim", "vat_receivable"],
  ["1600", "Fixed assets", "asset", "1000", "Equipment, furniture, vehicles and software kept for use (investment goods): 1600–1699", null],
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
 * The Belgian chart (`be`, docs/books.md#the-belgian-chart-pcmn): the PCMN accounts of
 * ./pcmn.ts, plus the accounts below, which the PCMN leaves to each business and Kontor needs
 * for a role. Same row shape as PCMN_ACCOUNTS: [code, nl, fr, en, type, parent].
 */
export const BE_EXTRA_ACCOUNTS: readonly PcmnAccount[] = [
  // the PCMN's own 700 (700-707 Sales and services); the selection has only Odoo's 7000-7007 splits
  ["700", "Verkopen en dienstprestaties", "Ventes et prestations de services", "Sales and Services", "revenue", "7"],
  // the bank's opening balance waits here until the accountant books the opening balance sheet
  ["4990", "Wachtrekening openingsbalansen", "Compte d'attente des soldes d'ouverture", "Suspense Account: Opening Balances", "asset", "499"],
  // interest notes: late-payment interest on trade debtors is income from current assets (751); the fixed compensation goes with it
  ["7510", "Verwijlintresten en forfaitaire vergoedingen", "Intérêts de retard et indemnités forfaitaires", "Late-Payment Interest and Fixed Compensation", "revenue", "751"],
];

/**
 * The account of each role Kontor posts to in the `be` chart. Every role has one (a role added
 * to SYSTEM_ACCOUNTS does not compile until it is mapped here); docs/books.md#role-map says why each.
 */
export const BE_ROLE_ACCOUNTS: Record<SystemAccount, string> = {
  receivables: "400",
  payables: "440",
  vat_payable: "451",
  vat_receivable: "411",
  sales: "700",
  purchases: "643",
  bank: "550",
  retained_earnings: "140",
  supplier_advances: "406",
  opening_balance: "4990",
  late_payment_income: "7510",
  suspense: "499",
};

/** The generic chart's categories, mapped to PCMN accounts, and a few the Belgian chart has accounts for. */
export const BE_CATEGORY_ACCOUNTS: Record<string, string> = {
  "cost of goods sold": "604",
  goods: "604",
  merchandise: "604",
  subcontracting: "603",
  rent: "6100",
  maintenance: "611",
  repairs: "611",
  office: "6120",
  supplies: "6120",
  equipment: "6120",
  energy: "6125",
  utilities: "6125",
  accountancy: "61320",
  "legal fees": "61325",
  software: "613310",
  subscriptions: "613310",
  insurance: "6146",
  internet: "6162",
  phone: "6162",
  travel: "616505",
  transport: "616505",
  accommodation: "616505",
  advertising: "61652",
  marketing: "61652",
  restaurants: "616580",
  meals: "616580",
  salaries: "6202",
  salary: "6202",
  payroll: "6202",
  "bank charges": "657200",
  "bank fees": "657200",
};

/** The code of the account each chart's first bank account links to (the `bank` role's). */
export const CHART_BANK_CODE: Record<Chart, string> = { generic: BANK_ACCOUNT_CODE, be: BE_ROLE_ACCOUNTS.bank };

type SeedRow = { code: string; name: string; type: AccountType; parent: string | null; description: string; role: SystemAccount | null };

/** The `be` chart's rows, named in `language` (nl or fr; English otherwise), the other names in the description. */
export function beChartRows(language: DocumentLanguage): SeedRow[] {
  const roleOf = new Map(Object.entries(BE_ROLE_ACCOUNTS).map(([role, code]) => [code, role as SystemAccount]));
  return [...PCMN_ACCOUNTS, ...BE_EXTRA_ACCOUNTS].map(([code, nl, fr, en, type, parent]) => ({
    code,
    name: language === "nl" ? nl : language === "fr" ? fr : en,
    type,
    parent,
    description: `PCMN ${code}. NL: ${nl}. FR: ${fr}. EN: ${en}.`.slice(0, 1000),
    role: roleOf.get(code) ?? null,
  }));
}

const genericChartRows = (): SeedRow[] =>
  GENERIC_CHART.map(([code, name, type, parent, description, role]) => ({ code, name, type, parent, description, role }));

/**
 * Seeds the chart of accounts (`generic`, or `be`: the PCMN named in the organisation's document
 * language) and its category map; no bank account (an organisation has a bank account only when
 * it gives one: Kontor invents no IBAN). Returns the id of the `bank` account (1110, or 550) its first bank account
 * links to, and what a payment without a bank account posts to.
 */
export async function seedChart(tx: Tx, organizationId: string, chart: Chart = "generic", language: DocumentLanguage = "en"): Promise<string> {
  const now = nowIso();
  const rows = chart === "be" ? beChartRows(language) : genericChartRows();
  const categories = chart === "be" ? BE_CATEGORY_ACCOUNTS : DEFAULT_CATEGORY_ACCOUNTS;
  const idByCode = new Map<string, string>();
  for (const { code } of rows) idByCode.set(code, newId());
  await tx.insert(accounts)
    .values(
      rows.map(({ code, name, type, parent, description, role }) => ({
        id: idByCode.get(code)!,
        organizationId,
        code,
        name,
        type,
        parentId: parent ? idByCode.get(parent)! : null,
        isActive: true,
        description,
        systemAccount: role,
        createdAt: now,
        updatedAt: now,
      })),
    );
  await tx.insert(expenseCategoryAccounts)
    .values(Object.entries(categories).map(([category, code]) => ({ organizationId, category, accountId: idByCode.get(code)!, updatedAt: now })));
  return idByCode.get(CHART_BANK_CODE[chart])!;
}

/** The organisation's first bank account (`kontor org create --iban`), linked to 1110; returns its id. */
export async function seedBankAccount(
  tx: Tx,
  organizationId: string,
  ledgerAccountId: string,
  input: { iban: string; bic: string | null; bankName: string | null; currency: string },
): Promise<string> {
  const now = nowIso();
  const id = newId();
  await tx.insert(bankAccounts)
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
    });
  return id;
}

import type { Tx } from "../../db/client.ts";
import { accounts, bankAccounts } from "../../db/schema.ts";
import { newId, nowIso } from "../lib/time.ts";

type AccountType = "asset" | "liability" | "equity" | "revenue" | "expense";
/** [code, name, type, parent code, description] — a small generic chart. */
export const GENERIC_CHART: [string, string, AccountType, string | null, string][] = [
  ["1000", "Assets", "asset", null, "Everything the organisation owns"],
  ["1100", "Bank", "asset", "1000", "Money held in bank accounts"],
  ["1110", "Current account", "asset", "1100", "Main operating bank account"],
  ["1200", "Accounts receivable", "asset", "1000", "Invoiced amounts not yet received from customers"],
  ["1300", "Cash", "asset", "1000", "Cash on hand"],
  ["1400", "VAT receivable", "asset", "1000", "Input VAT to reclaim"],
  ["2000", "Liabilities", "liability", null, "Everything the organisation owes"],
  ["2100", "Accounts payable", "liability", "2000", "Amounts owed to suppliers"],
  ["2200", "VAT payable", "liability", "2000", "Output VAT owed to the tax authority"],
  ["2300", "Loans", "liability", "2000", "Borrowed money"],
  ["3000", "Equity", "equity", null, "Owners' stake in the organisation"],
  ["3100", "Share capital", "equity", "3000", "Capital paid in by the owners"],
  ["3200", "Retained earnings", "equity", "3000", "Accumulated profit of earlier years"],
  ["4000", "Revenue", "revenue", null, "Income from operations"],
  ["4100", "Sales", "revenue", "4000", "Revenue from invoiced goods and services"],
  ["4900", "Other income", "revenue", "4000", "Income outside the main activity"],
  ["6000", "Expenses", "expense", null, "Costs of operations"],
  ["6100", "Cost of goods sold", "expense", "6000", "Direct costs of what was sold"],
  ["6200", "Rent", "expense", "6000", "Premises"],
  ["6300", "Salaries", "expense", "6000", "Personnel costs"],
  ["6400", "Office and software", "expense", "6000", "Supplies, subscriptions and equipment"],
  ["6500", "Travel", "expense", "6000", "Transport and accommodation"],
  ["6900", "Bank charges", "expense", "6000", "Fees charged by banks"],
];

/** The code of the asset account that seeded and CLI-added bank accounts link to. */
export const BANK_ACCOUNT_CODE = "1110";

/** Seeds the chart of accounts and one bank account linked to its current-account asset; returns the bank account's id. */
export function seedChart(tx: Tx, organizationId: string, currency: string): string {
  const now = nowIso();
  const idByCode = new Map<string, string>();
  for (const [code] of GENERIC_CHART) idByCode.set(code, newId());
  tx.insert(accounts)
    .values(
      GENERIC_CHART.map(([code, name, type, parent, description]) => ({
        id: idByCode.get(code)!,
        organizationId,
        code,
        name,
        type,
        parentId: parent ? idByCode.get(parent)! : null,
        isActive: true,
        description,
        createdAt: now,
        updatedAt: now,
      })),
    )
    .run();
  const bankAccountId = newId();
  tx.insert(bankAccounts)
    .values({
      id: bankAccountId,
      organizationId,
      name: "Current account",
      iban: "BE71096123456769",
      bankName: null,
      currency,
      balanceCents: 0,
      isActive: true,
      accountId: idByCode.get(BANK_ACCOUNT_CODE)!,
      createdAt: now,
      updatedAt: now,
    })
    .run();
  return bankAccountId;
}

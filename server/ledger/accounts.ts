/**
 * Which account of the organisation's chart a posting goes to: a system account by its role, a
 * bank account's own ledger account, an expense category's account.
 */
import { and, asc, eq, like, sql } from "drizzle-orm";
import { firstRow, preparedRows, type Tx } from "../../db/client.ts";
import { accounts, bankAccounts, expenseCategoryAccounts, organizations } from "../../db/schema.ts";
import type { AccountType, Chart, SystemAccount } from "../../db/values.ts";
import { Conflict } from "../lib/errors.ts";
import { inOrg } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";

type AccountRow = typeof accounts.$inferSelect;
type BankAccountRow = typeof bankAccounts.$inferSelect;

/** The organisation's active account for a role (the lowest code for `bank`); a 409 if the chart lacks it. */
export async function systemAccount(tx: Tx, orgId: string, role: SystemAccount): Promise<AccountRow> {
  // prepared: each posting looks up two or three roles
  const row = await preparedRows(tx, "ledger: system account", accounts, (tx) =>
    tx
      .select()
      .from(accounts)
      .where(inOrg(accounts, sql.placeholder("orgId"), eq(accounts.systemAccount, sql.placeholder("role")), eq(accounts.isActive, true)))
      .orderBy(asc(accounts.code))
      .limit(1),
  ).get({ orgId, role });
  if (!row) throw new Conflict(`The chart of accounts has no ${role.replace("_", " ")} account (system_account "${role}") to post to.`);
  return row;
}

/** A category as categories are matched: trimmed, lower case. */
export const categoryKey = (category: string) => category.trim().toLowerCase();

/** The expense account an expense of this category posts to: its mapping, else the purchases account. */
export async function categoryAccount(tx: Tx, orgId: string, category: string): Promise<AccountRow> {
  const mapped = await firstRow(tx
    .select({ account: accounts })
    .from(expenseCategoryAccounts)
    .innerJoin(accounts, eq(accounts.id, expenseCategoryAccounts.accountId))
    .where(and(eq(expenseCategoryAccounts.organizationId, orgId), eq(expenseCategoryAccounts.category, categoryKey(category)))));
  return mapped?.account ?? await systemAccount(tx, orgId, "purchases");
}

/**
 * The bank account money in `currency` moves through when the client names none: the
 * organisation's default bank account if it holds that currency, else its first active one that
 * does. Null when none does: the payment is recorded without a bank account and posts to the
 * `bank` account of the chart, in its own currency (no bank account's balance shows it).
 */
export async function defaultBankAccount(tx: Tx, orgId: string, currency: string): Promise<BankAccountRow | null> {
  const active = await tx
    .select()
    .from(bankAccounts)
    .where(inOrg(bankAccounts, orgId, eq(bankAccounts.isActive, true), eq(bankAccounts.currency, currency)))
    .orderBy(asc(bankAccounts.createdAt), asc(bankAccounts.id));
  const defaultId = (await firstRow(tx.select({ id: organizations.defaultBankAccountId }).from(organizations).where(eq(organizations.id, orgId))))?.id;
  return active.find((b) => b.id === defaultId) ?? active[0] ?? null;
}

/** The ledger account a payment through this bank account (or, without one, the bank role) posts to. */
export async function bankLedgerAccountId(tx: Tx, orgId: string, bankAccount: BankAccountRow | null): Promise<string> {
  return bankAccount?.accountId ?? (await systemAccount(tx, orgId, "bank")).id;
}

/**
 * The `bank` role's account (1110 in the seeded chart) while no bank account is linked to it, else
 * null. It is where payments recorded while the organisation had no bank account went, so the
 * organisation's first account of its own takes it (as `kontor org create --iban` gives it), and
 * those payments are in that account's balance. Once any account is linked to it (a deactivated
 * one, or the placeholder an earlier Kontor seeded), new accounts get their own.
 */
export async function unlinkedBankLedgerAccount(tx: Tx, orgId: string): Promise<string | null> {
  const bank = await systemAccount(tx, orgId, "bank");
  const linked = await firstRow(tx.select({ id: bankAccounts.id }).from(bankAccounts).where(inOrg(bankAccounts, orgId, eq(bankAccounts.accountId, bank.id))));
  return linked ? null : bank.id;
}

/**
 * A system account Kontor adds to a chart after the seed: the first free code of `codes` (a range
 * of codes of one length: 1111-1199, 550001-550999), under the account `parentCode`, in `role`.
 * Returns its id.
 */
async function addSystemAccount(
  tx: Tx,
  orgId: string,
  a: { codes: [number, number]; parentCode: string; name: string; description: string; role: SystemAccount; type?: AccountType; full: string },
): Promise<string> {
  const [first, last] = a.codes;
  const [from, to] = [String(first), String(last)];
  let shared = 0;
  while (shared < from.length && from[shared] === to[shared]) shared++;
  const pattern = from.slice(0, shared) + "_".repeat(from.length - shared);
  const taken = new Set(
    (await tx.select({ code: accounts.code }).from(accounts).where(inOrg(accounts, orgId, like(accounts.code, pattern)))).map((row) => row.code),
  );
  let code = first;
  while (taken.has(String(code))) code++;
  if (code > last) throw new Conflict(a.full);
  const parent = await firstRow(tx.select({ id: accounts.id }).from(accounts).where(inOrg(accounts, orgId, eq(accounts.code, a.parentCode))));
  const now = nowIso();
  const id = newId();
  await tx.insert(accounts)
    .values({
      id,
      organizationId: orgId,
      code: String(code),
      name: a.name.slice(0, 255),
      type: a.type ?? "asset",
      parentId: parent?.id ?? null,
      isActive: true,
      description: a.description.slice(0, 1000),
      systemAccount: a.role,
      createdAt: now,
      updatedAt: now,
    });
  return id;
}

/** The chart the organisation's accounts were seeded from (fixed at its creation). */
/**
 * A fixed asset (investment goods, the VAT return's grid 83; an expense category may post to one):
 * an asset account without a system role, in PCMN class 2 in the Belgian chart, or in the generic
 * chart's range 1600–1699 (under 1600 Fixed assets). Cash, receivables, VAT receivable, advances
 * and suspense are assets but none of these.
 */
export function isFixedAsset(account: { code: string; type: string; systemAccount?: string | null }, chart: Chart): boolean {
  if (account.type !== "asset" || (account.systemAccount ?? null) !== null) return false;
  return chart === "be" ? account.code.startsWith("2") : /^16\d\d$/.test(account.code);
}

export async function chartOf(tx: Tx, orgId: string): Promise<Chart> {
  return (await firstRow(tx.select({ chart: organizations.chart }).from(organizations).where(eq(organizations.id, orgId))))?.chart ?? "generic";
}

/**
 * A ledger account of its own for a new bank account, named after it, in the `bank` role: in the
 * generic chart the next free code after 1110 under 1100 Bank (1111, 1112, …), in the Belgian
 * one the next free 550xxx under 550 Credit institutions (550001, 550002, …). Returns its id.
 */
export async function newBankLedgerAccount(tx: Tx, orgId: string, name: string): Promise<string> {
  const be = await chartOf(tx, orgId) === "be";
  return addSystemAccount(tx, orgId, {
    codes: be ? [550001, 550999] : [1111, 1199],
    parentCode: be ? "550" : "1100",
    name,
    description: `Bank account ${name}`,
    role: "bank",
    full: be
      ? "The chart of accounts has no free code left under 550 Credit institutions (550001-550999) for another bank account."
      : "The chart of accounts has no free code left under 1100 Bank for another bank account.",
  });
}

/** The name of the account interest notes post to (seeded as 4950; ADDED_ACCOUNTS below for older charts). */
export const LATE_INCOME_NAME = "Financial income: late-payment interest and compensation";

/**
 * The system accounts Kontor adds to a generic chart the first time a posting needs them (not
 * seeded, but late_payment_income). The `be` chart seeds every role, so it never gets these.
 */
const ADDED_ACCOUNTS = {
  /**
   * Money paid to suppliers before their invoices, which an invoice's prepaid amount (BT-113)
   * settles: under 1000 Assets (1500, else the next free 15xx code), when a document with a
   * prepaid amount first posts.
   */
  supplier_advances: {
    codes: [1500, 1599],
    parentCode: "1000",
    name: "Advances to suppliers",
    description: "Payments made to suppliers before their invoices; an invoice's prepaid amount settles them",
    type: "asset",
    full: "The chart of accounts has no free code left under 1500 for the advances to suppliers account.",
  },
  /**
   * The equity a bank account's opening balance is posted against when its first statement is
   * imported (the books start where the bank does): under 3000 Equity (3900, else the next free 39xx).
   */
  opening_balance: {
    codes: [3900, 3999],
    parentCode: "3000",
    name: "Opening balances",
    description: "The balancing side of the opening balances taken over from the bank accounts' first statements",
    type: "equity",
    full: "The chart of accounts has no free code left under 3900 for the opening balances account.",
  },
  /**
   * Interest notes' income: late-payment interest and the fixed compensation, financial
   * income outside the scope of VAT, under 4000 Revenue (4950, else the next free 49xx code).
   * Seeded for new organisations (server/accounts/seed.ts); added to older charts at their first interest note.
   */
  late_payment_income: {
    codes: [4950, 4999],
    parentCode: "4000",
    name: LATE_INCOME_NAME,
    description: "Interest and fixed compensation charged on late payments (interest notes); outside the scope of VAT",
    type: "revenue",
    full: "The chart of accounts has no free code left under 4950 for the late-payment income account.",
  },
} as const satisfies Record<string, { codes: [number, number]; parentCode: string; name: string; description: string; type: AccountType; full: string }>;

/** The organisation's account in one of the ADDED_ACCOUNTS roles, added to its chart the first time. */
async function addedAccountId(tx: Tx, orgId: string, role: keyof typeof ADDED_ACCOUNTS): Promise<string> {
  const existing = await firstRow(tx.select({ id: accounts.id }).from(accounts).where(inOrg(accounts, orgId, eq(accounts.systemAccount, role))));
  if (existing) return existing.id;
  const spec = ADDED_ACCOUNTS[role];
  return addSystemAccount(tx, orgId, { ...spec, codes: [...spec.codes], role });
}

export const supplierAdvancesAccountId = (tx: Tx, orgId: string) => addedAccountId(tx, orgId, "supplier_advances");
export const openingBalanceAccountId = (tx: Tx, orgId: string) => addedAccountId(tx, orgId, "opening_balance");
export const lateIncomeAccountId = (tx: Tx, orgId: string) => addedAccountId(tx, orgId, "late_payment_income");

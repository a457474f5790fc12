/**
 * The chart of accounts (seeded per organisation by ./seed.ts): read, and edited over the API
 * (docs/books.md#editing-the-chart). Every system role keeps an active account, nothing posted is
 * lost (an account with postings is archived, never deleted) and an archived account is not
 * posted to: the role lookups skip it, manual entries and bank bookings refuse it.
 */
import { and, asc, eq, isNull, ne } from "drizzle-orm";
import { t } from "elysia";
import type { Tx } from "../../db/client.ts";
import { accounts, accountTotals, bankAccounts, bankTransactions, expenseCategoryAccounts, journalLines, nocase } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { debitBalances, shownBalance } from "../ledger/balances.ts";
import { Conflict, FieldErrorBag, ValidationFailed } from "../lib/errors.ts";
import { formatCents } from "../lib/money.ts";
import { booleanFilter, listPage, type ListQuery, type ListSpec } from "../lib/list.ts";
import { Uuid } from "../lib/schemas.ts";
import { findInOrg, inOrg, snapshot, unitOfWork, updateInOrg, type Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import { ACCOUNT_TYPES, type AccountModel, type AccountType } from "./model.ts";
import { firstRow } from "../../db/client.ts";

type AccountRow = typeof accounts.$inferSelect;
type AccountCreate = typeof AccountModel.create.static;
type AccountUpdate = typeof AccountModel.update.static;

/** The accounts as the API shows them, each with its balance in the organisation's currency. */
export async function presentAccounts(tx: Tx, currency: string, rows: AccountRow[]) {
  const balances = await debitBalances(tx, rows.map((r) => r.id), currency);
  return rows.map((row) => presentAccount(row, shownBalance(row.type, balances.get(row.id) ?? 0)));
}

function presentAccount(row: AccountRow, balanceCents: number) {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    type: row.type,
    parent_id: row.parentId,
    is_active: row.isActive,
    description: row.description,
    system_account: row.systemAccount,
    balance: formatCents(balanceCents),
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export type ShownAccount = ReturnType<typeof presentAccount>;

export const accountList: ListSpec<typeof accounts> = {
  table: accounts,
  sorts: { code: accounts.code, name: nocase(accounts.name) },
  defaultSort: "code",
  filters: {
    type: { column: accounts.type, schema: t.UnionEnum([...ACCOUNT_TYPES]) },
    is_active: booleanFilter(accounts.isActive),
    // "null" selects the top-level accounts
    parent_id: {
      schema: t.Union([Uuid, t.Literal("null")], { description: "A parent account's id, or null for top-level accounts" }),
      where: (value, bind) => (value === "null" ? isNull(accounts.parentId) : eq(accounts.parentId, bind("id", value))),
    },
  },
  search: "accounts_fts",
  updatedAt: accounts.updatedAt,
};

/** Balance sheet or income statement: a parent at the top of the chart holds accounts of any type of its statement. */
const statementOf = (type: AccountType) => (type === "revenue" || type === "expense" ? "income statement" : "balance sheet");

/**
 * Why `parent` cannot hold an account of `type`, or null: it must be of the same type, or a
 * top-level account of the same statement (a PCMN class holds receivables and payables alike).
 */
function parentProblem(parent: AccountRow, type: AccountType): string | null {
  if (parent.type === type) return null;
  if (parent.parentId === null && statementOf(parent.type) === statementOf(type)) return null;
  return `The parent ${parent.code} ${parent.name} is a ${parent.type} account: a ${type} account goes under a ${type} account, or under a top-level account of the ${statementOf(type)}.`;
}

/**
 * Why the account cannot leave the chart's use (archived, or deleted), or null: the last active
 * account of a system role (each role keeps one: Kontor posts to it), the ledger account of a bank
 * account (of an active one, when archiving), the account an expense category posts to.
 */
async function inUseProblem(tx: Tx, orgId: string, row: AccountRow, removing: boolean): Promise<string | null> {
  const what = `${row.code} ${row.name}`;
  if (row.systemAccount !== null) {
    // every bank account has a ledger account of its own in the `bank` role: another active one keeps the role
    const another =
      row.systemAccount === "bank" &&
      (await firstRow(tx
        .select({ id: accounts.id })
        .from(accounts)
        .where(inOrg(accounts, orgId, eq(accounts.systemAccount, "bank"), eq(accounts.isActive, true), ne(accounts.id, row.id)))));
    if (!another) return `The account ${what} is the chart's ${row.systemAccount} account (system_account "${row.systemAccount}"): Kontor posts to it, and every role keeps an account.`;
  }
  const bank = await firstRow(tx
    .select({ name: bankAccounts.name, iban: bankAccounts.iban })
    .from(bankAccounts)
    .where(inOrg(bankAccounts, orgId, eq(bankAccounts.accountId, row.id), removing ? undefined : eq(bankAccounts.isActive, true))));
  if (bank) return `The account ${what} is the ledger account of the bank account ${bank.name} (${bank.iban}).`;
  const categories = (await tx
    .select({ category: expenseCategoryAccounts.category })
    .from(expenseCategoryAccounts)
    .where(and(eq(expenseCategoryAccounts.organizationId, orgId), eq(expenseCategoryAccounts.accountId, row.id)))
    .orderBy(asc(expenseCategoryAccounts.category)))
    .map((c) => `"${c.category}"`);
  if (categories.length > 0) {
    return `The expense ${categories.length === 1 ? "category" : "categories"} ${categories.join(", ")} ${categories.length === 1 ? "posts" : "post"} to the account ${what}: map ${categories.length === 1 ? "it" : "them"} to another account first (PUT /api/v1/expense-categories/{category}).`;
  }
  return null;
}

/** The account's non-zero balances, per currency ("150.00 EUR"), from the running totals. */
async function openBalances(tx: Tx, row: AccountRow): Promise<string[]> {
  return (await tx
    .select({ currency: accountTotals.currency, debit: accountTotals.debitCents, credit: accountTotals.creditCents })
    .from(accountTotals)
    .where(eq(accountTotals.accountId, row.id)))
    .filter((r) => r.debit !== r.credit)
    .map((r) => `${formatCents(shownBalance(row.type, r.debit - r.credit))} ${r.currency}`);
}

export const accountService = {
  async list(scope: Scope, query: ListQuery, url: string) {
    return await listPage(scope, accountList, query, url, async (rows, tx) => await presentAccounts(tx, scope.org.currency, rows));
  },
  get(scope: Scope, id: string) {
    return snapshot(scope.db, async (tx) => (await presentAccounts(tx, scope.org.currency, [await findInOrg(tx, accounts, scope.org.id, id)]))[0]!);
  },

  /** Adds an account to the chart: a code of its own, a parent of a compatible type; no role (roles are the seed's). */
  async create(scope: Scope, input: AccountCreate): Promise<ShownAccount> {
    const code = input.code.trim();
    const name = input.name.trim();
    const bag = new FieldErrorBag();
    if (name === "") bag.add("name", "The name field must not be empty.");
    bag.throwIfAny();
    return await unitOfWork(scope.db, async (tx) => {
      const holder = await firstRow(tx.select().from(accounts).where(inOrg(accounts, scope.org.id, eq(accounts.code, code))));
      if (holder) bag.add("code", `The code ${code} is taken by the account ${holder.code} ${holder.name}.`);
      const parentId = input.parent_id ?? null;
      if (parentId !== null) {
        const parent = await firstRow(tx.select().from(accounts).where(inOrg(accounts, scope.org.id, eq(accounts.id, parentId))));
        const problem = parent ? parentProblem(parent, input.type) : "The selected parent_id is invalid.";
        if (problem) bag.add("parent_id", problem);
      }
      bag.throwIfAny();
      const now = nowIso();
      const row: AccountRow = {
        id: newId(),
        organizationId: scope.org.id,
        code,
        name,
        type: input.type,
        parentId,
        isActive: true,
        description: "",
        systemAccount: null,
        createdAt: now,
        updatedAt: now,
      };
      await tx.insert(accounts).values(row);
      const shown = presentAccount(row, 0);
      await recordChange(tx, scope, { action: "account.created", resource: { type: "account", id: row.id }, event: "account.created", data: shown });
      return shown;
    });
  },

  /**
   * Renames, archives (`is_active: false`) or restores an account. Archiving wants a zero balance
   * in every currency and an account nothing else relies on (inUseProblem): else a 409. Audited as
   * account.updated, account.archived or account.restored; the event is account.updated.
   */
  async update(scope: Scope, id: string, input: AccountUpdate): Promise<ShownAccount> {
    const name = input.name?.trim();
    if (name === "") throw ValidationFailed.field("name", "The name field must not be empty.");
    return await unitOfWork(scope.db, async (tx) => {
      const row = await findInOrg(tx, accounts, scope.org.id, id);
      const archiving = input.is_active === false && row.isActive;
      const restoring = input.is_active === true && !row.isActive;
      if (archiving) {
        const problem = await inUseProblem(tx, scope.org.id, row, false);
        if (problem) throw new Conflict(`${problem} It cannot be archived.`);
        const balances = await openBalances(tx, row);
        if (balances.length > 0) {
          throw new Conflict(`The account ${row.code} ${row.name} has a balance (${balances.join(", ")}): only an account with a zero balance can be archived. Move it to another account with a journal entry first.`);
        }
      }
      await updateInOrg(tx, accounts, scope.org.id, row.id, { ...(name !== undefined ? { name } : {}), ...(input.is_active !== undefined ? { isActive: input.is_active } : {}), updatedAt: nowIso() });
      const shown = (await presentAccounts(tx, scope.org.currency, [await findInOrg(tx, accounts, scope.org.id, row.id)]))[0]!;
      const action = archiving ? "account.archived" : restoring ? "account.restored" : "account.updated";
      await recordChange(tx, scope, { action, resource: { type: "account", id: row.id }, event: "account.updated", data: shown });
      return shown;
    });
  },

  /**
   * Deletes an account nothing refers to: no postings (an account that was posted to is archived
   * instead, so the journal keeps it), no sub-accounts, no bank line booked to it, and nothing
   * inUseProblem names. Else a 409 saying which.
   */
  async remove(scope: Scope, id: string): Promise<void> {
    await unitOfWork(scope.db, async (tx) => {
      const row = await findInOrg(tx, accounts, scope.org.id, id);
      const what = `${row.code} ${row.name}`;
      const problem = await inUseProblem(tx, scope.org.id, row, true);
      if (problem) throw new Conflict(`${problem} It cannot be deleted.`);
      const posted = await firstRow(tx.select({ id: journalLines.id }).from(journalLines).where(and(eq(journalLines.organizationId, scope.org.id), eq(journalLines.accountId, row.id))).limit(1));
      const booked = await firstRow(tx.select({ id: bankTransactions.id }).from(bankTransactions).where(inOrg(bankTransactions, scope.org.id, eq(bankTransactions.bookedAccountId, row.id))).limit(1));
      if (posted || booked) throw new Conflict(`The account ${what} has postings: only an account never posted to can be deleted. Archive it instead (PUT with is_active false).`);
      const child = await firstRow(tx.select({ code: accounts.code, name: accounts.name }).from(accounts).where(inOrg(accounts, scope.org.id, eq(accounts.parentId, row.id))).orderBy(asc(accounts.code)).limit(1));
      if (child) throw new Conflict(`The account ${what} has sub-accounts (${child.code} ${child.name}): delete or keep them first.`);
      const last = (await presentAccounts(tx, scope.org.currency, [row]))[0]!;
      await tx.delete(accounts).where(inOrg(accounts, scope.org.id, eq(accounts.id, row.id)));
      await recordChange(tx, scope, { action: "account.deleted", resource: { type: "account", id: row.id }, event: "account.deleted", data: last });
    });
  },
};

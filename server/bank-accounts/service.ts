/**
 * Bank accounts: read over the API (banking.view), added from the CLI (`kontor bank-account
 * add`). Each has a ledger account of its own; its balance is that account's.
 */
import { and, eq, or } from "drizzle-orm";
import { bankAccounts, nocase, organizations } from "../../db/schema.ts";
import type { Tx } from "../../db/client.ts";
import { newBankLedgerAccount, unlinkedBankLedgerAccount } from "../ledger/accounts.ts";
import { debitBalances } from "../ledger/balances.ts";
import { recordChange } from "../changes/record.ts";
import { ApiError, FieldErrorBag, ValidationFailed } from "../lib/errors.ts";
import { bicProblem, ibanProblem, normalizeBic, normalizeIban } from "../lib/iban.ts";
import { oneLineProblem } from "../lib/characters.ts";
import { booleanFilter, listPage, type ListQuery, type ListSpec } from "../lib/list.ts";
import { formatCents } from "../lib/money.ts";
import { isCurrencyCode } from "../lib/iso-codes.ts";
import { Currency } from "../lib/schemas.ts";
import { findInOrg, inOrg, snapshot, unitOfWork, updateInOrg, type Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import { firstRow } from "../../db/client.ts";

type BankAccountRow = typeof bankAccounts.$inferSelect;

/** The bank accounts as the API shows them: each one's balance is its ledger account's, in its currency. */
export async function presentBankAccounts(tx: Tx, rows: BankAccountRow[]) {
  const shown: ReturnType<typeof presentBankAccount>[] = [];
  for (const row of rows) shown.push(presentBankAccount(row, (await debitBalances(tx, [row.accountId], row.currency)).get(row.accountId) ?? 0));
  return shown;
}

function presentBankAccount(row: BankAccountRow, balanceCents: number) {
  return {
    id: row.id,
    name: row.name,
    iban: row.iban,
    bic: row.bic,
    bank_name: row.bankName,
    currency: row.currency,
    balance: formatCents(balanceCents),
    is_active: row.isActive,
    account_id: row.accountId,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export const bankAccountList: ListSpec<typeof bankAccounts> = {
  table: bankAccounts,
  sorts: { name: nocase(bankAccounts.name) },
  defaultSort: "name",
  filters: {
    is_active: booleanFilter(bankAccounts.isActive),
    currency: { column: bankAccounts.currency, schema: Currency },
  },
  search: "bank_accounts_fts",
  updatedAt: bankAccounts.updatedAt,
};

export type BankAccountInput = { name: string; iban: string; bic?: string | null; bankName?: string | null; currency?: string | null };

/** The BIC as given (an empty one is none) in its stored form, or its problem in `bag`. */
export function readBic(bag: FieldErrorBag, input: string | null | undefined): string | null {
  const bic = input?.trim() ? normalizeBic(input) : null;
  const problem = bic ? bicProblem(bic) : null;
  if (problem) bag.add("bic", problem);
  return bic;
}

export const bankAccountService = {
  async list(scope: Scope, query: ListQuery, url: string) {
    return await listPage(scope, bankAccountList, query, url, (rows, tx) => presentBankAccounts(tx, rows));
  },

  get(scope: Scope, id: string) {
    return snapshot(scope.db, async (tx) => (await presentBankAccounts(tx, [await findInOrg(tx, bankAccounts, scope.org.id, id)]))[0]!);
  },

  /**
   * Adds a bank account, audited, with a ledger account: the chart's 1110 for the organisation's
   * first one in its currency (unlinkedBankLedgerAccount), else one of its own (1111, 1112, … under 1100 Bank).
   */
  async add(scope: Scope, input: BankAccountInput) {
    const bag = new FieldErrorBag();
    const name = input.name.trim();
    if (name === "" || name.length > 255) bag.add("name", "The name must be 1 to 255 characters.");
    else if (oneLineProblem("name", name)) bag.add("name", oneLineProblem("name", name)!);
    const iban = normalizeIban(input.iban);
    const problem = ibanProblem(iban);
    if (problem) bag.add("iban", problem);
    const bic = readBic(bag, input.bic);
    const bankName = input.bankName?.trim() || null;
    if (bankName && bankName.length > 255) bag.add("bank_name", "The bank name must not be longer than 255 characters.");
    else if (bankName && oneLineProblem("bank name", bankName)) bag.add("bank_name", oneLineProblem("bank name", bankName)!);
    const currency = (input.currency ?? scope.org.currency).toUpperCase();
    if (!isCurrencyCode(currency)) bag.add("currency", "The currency must be an ISO 4217 code (e.g. EUR).");
    bag.throwIfAny();

    return await unitOfWork(scope.db, async (tx) => {
      const taken = await firstRow(tx
        .select({ id: bankAccounts.id })
        .from(bankAccounts)
        .where(inOrg(bankAccounts, scope.org.id, eq(bankAccounts.iban, iban))));
      if (taken) throw ValidationFailed.field("iban", `${scope.org.name} already has a bank account with IBAN ${iban}.`);
      const now = nowIso();
      const row: BankAccountRow = {
        id: newId(),
        organizationId: scope.org.id,
        name,
        iban,
        bic,
        bankName,
        currency,
        isActive: true,
        isPlaceholder: false,
        // the first account in the organisation's currency takes 1110, where payments without a bank account went
        accountId: (currency === scope.org.currency ? await unlinkedBankLedgerAccount(tx, scope.org.id) : null) ?? await newBankLedgerAccount(tx, scope.org.id, name),
        createdAt: now,
        updatedAt: now,
      };
      await tx.insert(bankAccounts).values(row);
      await recordChange(tx, scope, { action: "bank_account.created", resource: { type: "bank_account", id: row.id } });
      return presentBankAccount(row, 0);
    });
  },

  /** A bank account of the organisation by id or IBAN (spaces allowed), for the CLI. */
  async find(scope: Scope, ref: string): Promise<BankAccountRow> {
    const row = await firstRow(scope.db
      .select()
      .from(bankAccounts)
      .where(inOrg(bankAccounts, scope.org.id, or(eq(bankAccounts.id, ref), eq(bankAccounts.iban, normalizeIban(ref))))));
    if (!row) throw new ApiError(404, `${scope.org.name} has no bank account "${ref}".`);
    return row;
  },

  /** Changes a bank account's display name, BIC or bank name (`kontor bank-account set`; an empty BIC clears it); its IBAN and ledger account stay. */
  async update(scope: Scope, row: BankAccountRow, input: { name?: string; bic?: string | null; bankName?: string | null }) {
    const bag = new FieldErrorBag();
    const set: Partial<BankAccountRow> = {};
    if (input.name !== undefined) {
      set.name = input.name.trim();
      if (set.name === "" || set.name.length > 255) bag.add("name", "The name must be 1 to 255 characters.");
      else if (oneLineProblem("name", set.name)) bag.add("name", oneLineProblem("name", set.name)!);
    }
    if (input.bic !== undefined) set.bic = readBic(bag, input.bic);
    if (input.bankName !== undefined) {
      set.bankName = input.bankName?.trim() || null;
      if (set.bankName && set.bankName.length > 255) bag.add("bank_name", "The bank name must not be longer than 255 characters.");
      else if (set.bankName && oneLineProblem("bank name", set.bankName)) bag.add("bank_name", oneLineProblem("bank name", set.bankName)!);
    }
    bag.throwIfAny();
    return await unitOfWork(scope.db, async (tx) => {
      await updateInOrg(tx, bankAccounts, scope.org.id, row.id, { ...set, updatedAt: nowIso() });
      await recordChange(tx, scope, { action: "bank_account.updated", resource: { type: "bank_account", id: row.id } });
      return (await presentBankAccounts(tx, [await findInOrg(tx, bankAccounts, scope.org.id, row.id)]))[0]!;
    });
  },

  /**
   * Deactivates a bank account (`kontor bank-account deactivate`): documents no longer show it and
   * payments no longer default to it; its ledger account and history stay. If it was the default,
   * the organisation has none until one is chosen (documents take its first active account).
   */
  async deactivate(scope: Scope, row: BankAccountRow) {
    return await unitOfWork(scope.db, async (tx) => {
      await updateInOrg(tx, bankAccounts, scope.org.id, row.id, { isActive: false, updatedAt: nowIso() });
      await tx.update(organizations)
        .set({ defaultBankAccountId: null })
        .where(and(eq(organizations.id, scope.org.id), eq(organizations.defaultBankAccountId, row.id)));
      await recordChange(tx, scope, { action: "bank_account.deactivated", resource: { type: "bank_account", id: row.id } });
      return (await presentBankAccounts(tx, [await findInOrg(tx, bankAccounts, scope.org.id, row.id)]))[0]!;
    });
  },

  /** Makes an active bank account of the organisation the one its documents show (`kontor bank-account default`). */
  async makeDefault(scope: Scope, row: BankAccountRow) {
    if (row.isPlaceholder) throw ValidationFailed.field("bank_account", `${row.iban} is the placeholder the earlier Kontor seeded, not the organisation's account.`);
    if (!row.isActive) throw ValidationFailed.field("bank_account", `The bank account ${row.name} is not active.`);
    return await unitOfWork(scope.db, async (tx) => {
      await tx.update(organizations).set({ defaultBankAccountId: row.id, updatedAt: nowIso() }).where(eq(organizations.id, scope.org.id));
      await recordChange(tx, scope, { action: "organization.updated", resource: { type: "organization", id: scope.org.id } });
      return (await presentBankAccounts(tx, [row]))[0]!;
    });
  },
};

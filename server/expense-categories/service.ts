/**
 * The category → expense account map (seeded from DEFAULT_CATEGORY_ACCOUNTS or, in the be chart, BE_CATEGORY_ACCOUNTS: server/accounts/seed.ts).
 * A category not in it posts to the `purchases` account (6800 General expenses; 643 in the be chart). A category may
 * post to a fixed-asset account instead (investment goods, reported in grid 83 of the VAT return). Changing it
 * changes what later approvals post; what is posted stays as it was.
 */
import { and, asc, eq } from "drizzle-orm";
import { accounts, expenseCategoryAccounts } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { categoryKey, chartOf, isFixedAsset } from "../ledger/accounts.ts";
import { NotFound, ValidationFailed } from "../lib/errors.ts";
import { inOrg, snapshot, unitOfWork, type Scope } from "../lib/scope.ts";
import { nowIso } from "../lib/time.ts";
import { firstRow } from "../../db/client.ts";

const present = (row: { category: string; accountId: string }) => ({ category: row.category, account_id: row.accountId });

function keyOf(category: string): string {
  // Elysia has decoded the path parameter already
  const key = categoryKey(category);
  if (key === "" || key.length > 100) throw new NotFound();
  return key;
}

export const expenseCategoryService = {
  async list(scope: Scope) {
    return await snapshot(scope.db, async (tx) =>
      (await tx.select().from(expenseCategoryAccounts).where(eq(expenseCategoryAccounts.organizationId, scope.org.id)).orderBy(asc(expenseCategoryAccounts.category))).map(present),
    );
  },

  async set(scope: Scope, category: string, input: { account_id: string }) {
    const key = keyOf(category);
    return await unitOfWork(scope.db, async (tx) => {
      const account = await firstRow(tx.select().from(accounts).where(inOrg(accounts, scope.org.id, eq(accounts.id, input.account_id))));
      if (!account) throw ValidationFailed.field("account_id", "The selected account_id is invalid.");
      // an expense account, or a fixed-asset account: investment goods, the VAT return's 83 (one rule: isFixedAsset)
      const fixedAsset = isFixedAsset(account, await chartOf(tx, scope.org.id));
      if ((account.type !== "expense" && !fixedAsset) || !account.isActive) {
        throw ValidationFailed.field("account_id", `The account ${account.code} ${account.name} is not an active expense or fixed-asset account (a fixed asset is in PCMN class 2 in the Belgian chart, 1600–1699 in the generic one).`);
      }
      const now = nowIso();
      await tx.insert(expenseCategoryAccounts)
        .values({ organizationId: scope.org.id, category: key, accountId: account.id, updatedAt: now })
        .onConflictDoUpdate({ target: [expenseCategoryAccounts.organizationId, expenseCategoryAccounts.category], set: { accountId: account.id, updatedAt: now } });
      await recordChange(tx, scope, { action: "expense_category.mapped", resource: { type: "expense_category", id: key } });
      return present({ category: key, accountId: account.id });
    });
  },

  async remove(scope: Scope, category: string): Promise<void> {
    const key = keyOf(category);
    await unitOfWork(scope.db, async (tx) => {
      const removed = await firstRow(tx
        .delete(expenseCategoryAccounts)
        .where(and(eq(expenseCategoryAccounts.organizationId, scope.org.id), eq(expenseCategoryAccounts.category, key)))
        .returning());
      if (!removed) throw new NotFound();
      await recordChange(tx, scope, { action: "expense_category.unmapped", resource: { type: "expense_category", id: key } });
    });
  },
};

/** The chart of accounts (server/accounts; server/ledger adds a system account a posting needs). */
import { sql } from "drizzle-orm";
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { ACCOUNT_TYPES, SYSTEM_ACCOUNTS } from "../values.ts";
import { bool, createdAt, id, nocase, updatedAt } from "./columns.ts";
import { orgId } from "./orgs.ts";

export const accounts = sqliteTable(
  "accounts",
  {
    id: id(),
    organizationId: orgId(),
    code: text("code").notNull(),
    name: text("name").notNull(),
    type: text("type", { enum: ACCOUNT_TYPES }).notNull(),
    parentId: text("parent_id"),
    isActive: bool("is_active").notNull(),
    description: text("description").notNull(),
    /** the role Kontor posts to the account in (as Xero's SystemAccount); null for the others */
    systemAccount: text("system_account", { enum: SYSTEM_ACCOUNTS }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // one account per role, but every bank account has a ledger account of its own
    uniqueIndex("accounts_org_system").on(t.organizationId, t.systemAccount).where(sql`${t.systemAccount} IS NOT NULL AND ${t.systemAccount} <> 'bank'`),
    uniqueIndex("accounts_org_code").on(t.organizationId, t.code),
    index("accounts_org_name").on(t.organizationId, nocase(t.name), t.id),
    index("accounts_org_type").on(t.organizationId, t.type, t.code),
    index("accounts_org_parent").on(t.organizationId, t.parentId, t.code),
    index("accounts_org_updated").on(t.organizationId, t.updatedAt, t.id),
  ],
);

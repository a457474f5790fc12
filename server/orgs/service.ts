/** Organisations and users: managed from the CLI (contract section 2). */
import { isCountryCode, isCurrencyCode } from "../lib/schemas.ts";
import { eq, or, sql } from "drizzle-orm";
import { Value } from "@sinclair/typebox/value";
import type { Db, Tx } from "../../db/client.ts";
import { apiTokens, bankAccounts, organizations, users } from "../../db/schema.ts";
import { ROLES, type Role } from "../auth/abilities.ts";
import { recordChange } from "../changes/record.ts";
import { ApiError, FieldErrorBag, NotFound, ValidationFailed } from "../lib/errors.ts";
import { deleteInOrg, inOrg, snapshot, transaction, updateInOrg, type Actor, type Organization, type Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import { seedVatRates } from "../vat-rates/seed.ts";
import { seedChart } from "../accounts/seed.ts";
import { toValidationFailed } from "../http/validation.ts";
import { OrganizationModel, type OrganizationUpdate } from "./model.ts";

export const CLI_ACTOR: Actor = { type: "cli", id: null, ip: null, requestId: null };

export type OrganizationInput = { name: string; currency?: string; country?: string; apiAccess?: boolean };

export function createOrganization(db: Db, input: OrganizationInput, actor: Actor = CLI_ACTOR): Organization {
  const bag = new FieldErrorBag();
  const name = input.name?.trim() ?? "";
  const currency = (input.currency ?? "EUR").toUpperCase();
  const country = (input.country ?? "BE").toUpperCase();
  if (name === "" || name.length > 255) bag.add("name", "The name must be 1 to 255 characters.");
  if (!isCurrencyCode(currency)) bag.add("currency", "The currency must be an ISO 4217 code (e.g. EUR).");
  if (!isCountryCode(country)) bag.add("country", "The country must be an ISO 3166-1 alpha-2 code (e.g. BE).");
  bag.throwIfAny();
  const now = nowIso();
  const org: Organization = { id: newId(), name, currency, country, apiAccess: input.apiAccess ?? true };
  return transaction(db, (tx) => {
    tx.insert(organizations).values({ ...org, createdAt: now, updatedAt: now }).run();
    seedVatRates(tx, org.id, country);
    // the seeded bank account is the one documents show until another is chosen
    const bankAccountId = seedChart(tx, org.id, currency);
    tx.update(organizations).set({ defaultBankAccountId: bankAccountId }).where(eq(organizations.id, org.id)).run();
    recordChange(tx, { db, org, actor }, { action: "organization.created", resource: { type: "organization", id: org.id } });
    return org;
  });
}

export function listOrganizations(db: Db) {
  return db.select().from(organizations).orderBy(organizations.createdAt).all();
}

/** An organisation by id or unique name. */
export function findOrganization(db: Db, ref: string): Organization {
  const rows = db
    .select()
    .from(organizations)
    .where(or(eq(organizations.id, ref), eq(organizations.name, ref)))
    .all();
  if (rows.length === 0) throw new ApiError(404, `No organisation "${ref}".`);
  if (rows.length > 1) throw new ApiError(422, `"${ref}" names ${rows.length} organisations; use its id.`);
  const { id, name, currency, country, apiAccess } = rows[0]!;
  return { id, name, currency, country, apiAccess };
}

export function setApiAccess(db: Db, org: Organization, on: boolean, actor: Actor = CLI_ACTOR): Organization {
  return transaction(db, (tx) => {
    // the organisation itself: its id is the scope
    tx.update(organizations).set({ apiAccess: on, updatedAt: nowIso() }).where(eq(organizations.id, org.id)).run();
    recordChange(tx, { db, org, actor }, {
      action: on ? "organization.api_access_enabled" : "organization.api_access_disabled",
      resource: { type: "organization", id: org.id },
    });
    return { ...org, apiAccess: on };
  });
}

type OrganizationRow = typeof organizations.$inferSelect;

/** The organisation as `GET /api/v1/organization` shows it. */
export function presentOrganization(row: OrganizationRow) {
  return {
    id: row.id,
    name: row.name,
    address: row.address,
    city: row.city,
    postal_code: row.postalCode,
    country: row.country,
    vat_number: row.vatNumber,
    company_number: row.companyNumber,
    email: row.email,
    phone: row.phone,
    website: row.website,
    peppol_id: row.peppolId,
    default_bank_account_id: row.defaultBankAccountId,
    currency: row.currency,
    language: row.language,
    api_access: row.apiAccess,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export type ShownOrganization = ReturnType<typeof presentOrganization>;

/** The organisation's row (its id is the scope: there is no organization_id to add). */
export function readOrganization(tx: Tx, orgId: string): OrganizationRow {
  const row = tx.select().from(organizations).where(eq(organizations.id, orgId)).get();
  if (!row) throw new NotFound();
  return row;
}

export function showOrganization(scope: Scope): ShownOrganization {
  return snapshot(scope.db, (tx) => presentOrganization(readOrganization(tx, scope.org.id)));
}

/**
 * Changes the organisation's identity (API `PUT /api/v1/organization`, CLI `kontor org set`):
 * the same rules for both, so the input is checked against the request schema here too (the
 * CLI has no Elysia in front of it). Audited as organization.updated; there is no webhook event
 * for the organisation.
 */
export function updateOrganization(scope: Scope, input: OrganizationUpdate): ShownOrganization {
  const problems = [...Value.Errors(OrganizationModel.update, input)];
  if (problems.length > 0) throw toValidationFailed(problems);
  const set: Partial<OrganizationRow> = {};
  if (input.name !== undefined) {
    set.name = input.name.trim();
    if (set.name === "") throw ValidationFailed.field("name", "The name field must not be empty.");
  }
  if (input.address !== undefined) set.address = input.address;
  if (input.city !== undefined) set.city = input.city;
  if (input.postal_code !== undefined) set.postalCode = input.postal_code;
  if (input.country !== undefined) set.country = input.country;
  if (input.vat_number !== undefined) set.vatNumber = input.vat_number;
  if (input.company_number !== undefined) set.companyNumber = input.company_number;
  if (input.email !== undefined) set.email = input.email === null ? null : input.email.trim().toLowerCase();
  if (input.phone !== undefined) set.phone = input.phone;
  if (input.website !== undefined) set.website = input.website;
  if (input.peppol_id !== undefined) set.peppolId = input.peppol_id;
  if (input.language !== undefined) set.language = input.language;
  return transaction(scope.db, (tx) => {
    if (input.default_bank_account_id !== undefined && input.default_bank_account_id !== null) {
      // one of the organisation's own accounts, and in use: a 422 on the field, not a 404
      const account = tx
        .select({ id: bankAccounts.id, isActive: bankAccounts.isActive })
        .from(bankAccounts)
        .where(inOrg(bankAccounts, scope.org.id, eq(bankAccounts.id, input.default_bank_account_id)))
        .get();
      if (!account) throw ValidationFailed.field("default_bank_account_id", "The selected default bank account id is invalid.");
      if (!account.isActive) throw ValidationFailed.field("default_bank_account_id", "The selected default bank account is not active.");
    }
    if (input.default_bank_account_id !== undefined) set.defaultBankAccountId = input.default_bank_account_id;
    tx.update(organizations)
      .set({ ...set, updatedAt: nowIso() })
      .where(eq(organizations.id, scope.org.id))
      .run();
    recordChange(tx, scope, { action: "organization.updated", resource: { type: "organization", id: scope.org.id } });
    return presentOrganization(readOrganization(tx, scope.org.id));
  });
}

export type UserRow = typeof users.$inferSelect;

export function createUser(db: Db, org: Organization, input: { email: string; name: string; role: string }, actor: Actor = CLI_ACTOR): UserRow {
  const bag = new FieldErrorBag();
  const email = input.email?.trim().toLowerCase() ?? "";
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) bag.add("email", "The email must be a valid email address.");
  if (!input.name?.trim()) bag.add("name", "The name is required.");
  if (!ROLES.includes(input.role as Role)) bag.add("role", `The role must be one of ${ROLES.join(", ")}.`);
  bag.throwIfAny();
  const taken = db.select({ id: users.id }).from(users).where(inOrg(users, org.id, eq(users.email, email))).get();
  if (taken) throw new ApiError(422, `A user with email ${email} already exists in ${org.name}.`);
  const now = nowIso();
  const row: UserRow = { id: newId(), organizationId: org.id, email, name: input.name.trim(), role: input.role as Role, createdAt: now, updatedAt: now };
  return transaction(db, (tx) => {
    tx.insert(users).values(row).run();
    recordChange(tx, { db, org, actor }, { action: "user.created", resource: { type: "user", id: row.id } });
    return row;
  });
}

export function listUsers(db: Db, org: Organization): UserRow[] {
  return db.select().from(users).where(inOrg(users, org.id)).orderBy(users.createdAt).all();
}

/** A user by id or email (unique across organisations, else use the id). */
export function findUser(db: Db, ref: string): UserRow {
  const rows = db
    .select()
    .from(users)
    .where(or(eq(users.id, ref), eq(users.email, ref.toLowerCase())))
    .all();
  if (rows.length === 0) throw new ApiError(404, `No user "${ref}".`);
  if (rows.length > 1) throw new ApiError(422, `"${ref}" names ${rows.length} users; use the id.`);
  return rows[0]!;
}

function orgOf(db: Db, id: string): Organization {
  const o = db.select().from(organizations).where(eq(organizations.id, id)).get();
  if (!o) throw new NotFound();
  return { id: o.id, name: o.name, currency: o.currency, country: o.country, apiAccess: o.apiAccess };
}

export function setUserRole(db: Db, user: UserRow, role: string, actor: Actor = CLI_ACTOR): UserRow {
  if (!ROLES.includes(role as Role)) throw new ApiError(422, `The role must be one of ${ROLES.join(", ")}.`);
  const scope: Scope = { db, org: orgOf(db, user.organizationId), actor };
  return transaction(db, (tx) => {
    updateInOrg(tx, users, scope.org.id, user.id, { role: role as Role, updatedAt: nowIso() });
    recordChange(tx, scope, { action: "user.role_changed", resource: { type: "user", id: user.id } });
    return { ...user, role: role as Role };
  });
}

/** Removes a user: their personal tokens go with them; organisation tokens they minted stay. */
export function removeUser(db: Db, user: UserRow, actor: Actor = CLI_ACTOR): { revokedTokens: number } {
  const scope: Scope = { db, org: orgOf(db, user.organizationId), actor };
  return transaction(db, (tx) => {
    const personal = tx
      .select({ n: sql<number>`count(*)` })
      .from(apiTokens)
      .where(inOrg(apiTokens, scope.org.id, eq(apiTokens.userId, user.id)))
      .get()!.n;
    deleteInOrg(tx, users, scope.org.id, user.id); // cascades to personal tokens
    recordChange(tx, scope, { action: "user.removed", resource: { type: "user", id: user.id } });
    return { revokedTokens: personal };
  });
}

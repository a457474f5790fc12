/**
 * Organisations and users: managed from the CLI (docs/operations.md#the-cli). What every CLI command
 * goes through (CLI_ACTOR, findOrganization): nothing here loads a schema. The organisation's
 * identity, which the API's request schema checks, is identity.ts.
 */
import { VAT_PERIODS, type VatPeriod } from "../../db/values.ts";
import { oneLineProblem } from "../lib/characters.ts";
import { isCountryCode, isCurrencyCode } from "../lib/iso-codes.ts";
import { eq, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { apiTokens, organizations, users } from "../../db/schema.ts";
import { ROLES, type Role } from "../auth/abilities.ts";
import { CHARTS, DOCUMENT_LANGUAGES, type Chart, type DocumentLanguage } from "../../db/values.ts";
import { recordChange } from "../changes/record.ts";
import { ApiError, FieldErrorBag, NotFound } from "../lib/errors.ts";
import { deleteInOrg, inOrg, unitOfWork, updateInOrg, type Actor, type Organization, type Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import { seedVatRates } from "../vat-rates/seed.ts";
import { seedBankAccount, seedChart } from "../accounts/seed.ts";
import { fiscalYearSettings } from "./fiscal-year-settings.ts";
import { bicProblem, ibanProblem, normalizeBic, normalizeIban } from "../lib/iban.ts";
import type { SecretBox } from "../lib/secret-box.ts";
import { firstRow } from "../../db/client.ts";

export const CLI_ACTOR: Actor = { type: "cli", id: null, ip: null, requestId: null };

/**
 * `iban` (and `bic`, `bankName`): the organisation's own bank account, the default; without it,
 * none. `chart`: the chart of accounts seeded, generic (the default) or be (the PCMN, named in
 * `language`). `fiscalYearStart` (MM-01) and `firstFiscalYearStart`/`End`: its fiscal years
 * (./fiscal-year-settings.ts); without them, calendar years. `vatPeriod`: how often it files its
 * VAT return, quarterly by default.
 */
export type OrganizationInput = {
  name: string;
  currency?: string;
  country?: string;
  apiAccess?: boolean;
  iban?: string | null;
  bic?: string | null;
  bankName?: string | null;
  chart?: string;
  language?: string;
  fiscalYearStart?: string;
  firstFiscalYearStart?: string;
  firstFiscalYearEnd?: string;
  /** how often it files its VAT return; default quarterly */
  vatPeriod?: string;
  /** finalize refuses documents lacking the legal mentions of its country and kind (docs/invoicing.md#legal-mentions); `kontor org create` turns it on, the first start's Default organisation leaves it off */
  checkLegalMentions?: boolean;
};

export async function createOrganization(db: Db, input: OrganizationInput, actor: Actor = CLI_ACTOR): Promise<Organization> {
  const bag = new FieldErrorBag();
  const name = input.name?.trim() ?? "";
  const currency = (input.currency ?? "EUR").toUpperCase();
  const country = (input.country ?? "BE").toUpperCase();
  if (name === "" || name.length > 255) bag.add("name", "The name must be 1 to 255 characters.");
  else if (oneLineProblem("name", name)) bag.add("name", oneLineProblem("name", name)!);
  if (!isCurrencyCode(currency)) bag.add("currency", "The currency must be an ISO 4217 code that EN 16931 accepts (e.g. EUR; not XXX or XTS).");
  if (!isCountryCode(country)) bag.add("country", "The country must be an ISO 3166-1 alpha-2 code that EN 16931 accepts (e.g. BE; the United Kingdom is GB, Northern Ireland XI).");
  const iban = input.iban?.trim() ? normalizeIban(input.iban) : null;
  const ibanIssue = iban ? ibanProblem(iban) : null;
  if (ibanIssue) bag.add("iban", ibanIssue);
  const bic = input.bic?.trim() ? normalizeBic(input.bic) : null;
  const bicIssue = bic ? (iban ? bicProblem(bic) : "A BIC goes with an IBAN: give --iban too.") : null;
  if (bicIssue) bag.add("bic", bicIssue);
  const bankName = input.bankName?.trim() || null;
  if (bankName && bankName.length > 255) bag.add("bank_name", "The bank name must not be longer than 255 characters.");
  else if (bankName && oneLineProblem("bank name", bankName)) bag.add("bank_name", oneLineProblem("bank name", bankName)!);
  const { chart, language } = readChartOptions(bag, input);
  const vatPeriod = input.vatPeriod ?? "quarterly";
  if (!(VAT_PERIODS as readonly string[]).includes(vatPeriod)) bag.add("vat_period", "The VAT period must be monthly or quarterly.");
  bag.throwIfAny();
  const now = nowIso();
  const fiscalYears = fiscalYearSettings(
    { fiscalYearStart: "01-01", firstFiscalYearStart: null, firstFiscalYearEnd: null },
    { fiscal_year_start: input.fiscalYearStart, first_fiscal_year_start: input.firstFiscalYearStart, first_fiscal_year_end: input.firstFiscalYearEnd },
    now,
  );
  const org: Organization = { id: newId(), name, currency, country, apiAccess: input.apiAccess ?? true };
  return await unitOfWork(db, async (tx) => {
    await tx.insert(organizations).values({ ...org, chart, language, ...fiscalYears, vatPeriod: vatPeriod as VatPeriod, checkLegalMentions: input.checkLegalMentions ?? false, createdAt: now, updatedAt: now });
    await seedVatRates(tx, org.id, country);
    const bankLedgerId = await seedChart(tx, org.id, chart, language);
    // its own account, if given, is the default; without one, documents carry no payment instructions
    if (iban) {
      const bankAccountId = await seedBankAccount(tx, org.id, bankLedgerId, { iban, bic, bankName, currency });
      await tx.update(organizations).set({ defaultBankAccountId: bankAccountId }).where(eq(organizations.id, org.id));
    }
    await recordChange(tx, { db, org, actor }, { action: "organization.created", resource: { type: "organization", id: org.id } });
    return org;
  });
}

/** The chart (generic by default) and document language (en by default) an organisation is created with. */
function readChartOptions(bag: FieldErrorBag, input: OrganizationInput): { chart: Chart; language: DocumentLanguage } {
  const chart = (input.chart ?? "generic").trim().toLowerCase() as Chart;
  if (!CHARTS.includes(chart)) bag.add("chart", `The chart must be one of ${CHARTS.join(", ")}.`);
  const language = (input.language ?? "en").trim().toLowerCase() as DocumentLanguage;
  if (!DOCUMENT_LANGUAGES.includes(language)) bag.add("language", `The language must be one of ${DOCUMENT_LANGUAGES.join(", ")}.`);
  return { chart, language };
}

export async function listOrganizations(db: Db) {
  return await db.select().from(organizations).orderBy(organizations.createdAt);
}

/** An organisation by id or unique name. */
export async function findOrganization(db: Db, ref: string): Promise<Organization> {
  const rows = await db
    .select()
    .from(organizations)
    .where(or(eq(organizations.id, ref), eq(organizations.name, ref)));
  if (rows.length === 0) throw new ApiError(404, `No organisation "${ref}".`);
  if (rows.length > 1) throw new ApiError(422, `"${ref}" names ${rows.length} organisations; use its id.`);
  const { id, name, currency, country, apiAccess } = rows[0]!;
  return { id, name, currency, country, apiAccess };
}

export async function setApiAccess(db: Db, org: Organization, on: boolean, actor: Actor = CLI_ACTOR): Promise<Organization> {
  return await unitOfWork(db, async (tx) => {
    // the organisation itself: its id is the scope
    await tx.update(organizations).set({ apiAccess: on, updatedAt: nowIso() }).where(eq(organizations.id, org.id));
    await recordChange(tx, { db, org, actor }, {
      action: on ? "organization.api_access_enabled" : "organization.api_access_disabled",
      resource: { type: "organization", id: org.id },
    });
    return { ...org, apiAccess: on };
  });
}

export type UserRow = typeof users.$inferSelect;

export async function createUser(db: Db, org: Organization, input: { email: string; name: string; role: string }, actor: Actor = CLI_ACTOR): Promise<UserRow> {
  const bag = new FieldErrorBag();
  const email = input.email?.trim().toLowerCase() ?? "";
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) bag.add("email", "The email must be a valid email address.");
  if (!input.name?.trim()) bag.add("name", "The name is required.");
  if (!ROLES.includes(input.role as Role)) bag.add("role", `The role must be one of ${ROLES.join(", ")}.`);
  bag.throwIfAny();
  const taken = await firstRow(db.select({ id: users.id }).from(users).where(inOrg(users, org.id, eq(users.email, email))));
  if (taken) throw new ApiError(422, `A user with email ${email} already exists in ${org.name}.`);
  const now = nowIso();
  const row: UserRow = { id: newId(), organizationId: org.id, email, name: input.name.trim(), role: input.role as Role, createdAt: now, updatedAt: now };
  return await unitOfWork(db, async (tx) => {
    await tx.insert(users).values(row);
    await recordChange(tx, { db, org, actor }, { action: "user.created", resource: { type: "user", id: row.id } });
    return row;
  });
}

export async function listUsers(db: Db, org: Organization): Promise<UserRow[]> {
  return await db.select().from(users).where(inOrg(users, org.id)).orderBy(users.createdAt);
}

/** A user by id or email (unique across organisations, else use the id). */
export async function findUser(db: Db, ref: string): Promise<UserRow> {
  const rows = await db
    .select()
    .from(users)
    .where(or(eq(users.id, ref), eq(users.email, ref.toLowerCase())));
  if (rows.length === 0) throw new ApiError(404, `No user "${ref}".`);
  if (rows.length > 1) throw new ApiError(422, `"${ref}" names ${rows.length} users; use the id.`);
  return rows[0]!;
}

async function orgOf(db: Db, id: string): Promise<Organization> {
  const o = await firstRow(db.select().from(organizations).where(eq(organizations.id, id)));
  if (!o) throw new NotFound();
  return { id: o.id, name: o.name, currency: o.currency, country: o.country, apiAccess: o.apiAccess };
}

export async function setUserRole(db: Db, user: UserRow, role: string, actor: Actor = CLI_ACTOR): Promise<UserRow> {
  if (!ROLES.includes(role as Role)) throw new ApiError(422, `The role must be one of ${ROLES.join(", ")}.`);
  const scope: Scope = { db, org: await orgOf(db, user.organizationId), actor };
  return await unitOfWork(db, async (tx) => {
    await updateInOrg(tx, users, scope.org.id, user.id, { role: role as Role, updatedAt: nowIso() });
    await recordChange(tx, scope, { action: "user.role_changed", resource: { type: "user", id: user.id } });
    return { ...user, role: role as Role };
  });
}

/** Removes a user: their personal tokens go with them; organisation tokens they minted stay. */
export async function removeUser(db: Db, user: UserRow, actor: Actor = CLI_ACTOR): Promise<{ revokedTokens: number }> {
  const scope: Scope = { db, org: await orgOf(db, user.organizationId), actor };
  return await unitOfWork(db, async (tx) => {
    const personal = (await firstRow(tx
      .select({ n: sql<number>`count(*)` })
      .from(apiTokens)
      .where(inOrg(apiTokens, scope.org.id, eq(apiTokens.userId, user.id)))))!.n;
    await deleteInOrg(tx, users, scope.org.id, user.id); // cascades to personal tokens
    await recordChange(tx, scope, { action: "user.removed", resource: { type: "user", id: user.id } });
    return { revokedTokens: personal };
  });
}

/** What an organisation's SMTP URL is sealed with: it opens for that organisation only. */
export const smtpSecretContext = (orgId: string) => `organization:${orgId}:smtp_url`;

/**
 * Gives the organisation its own SMTP server (`kontor org set --smtp-url`; never over the API: the
 * URL holds credentials), sealed with the server's secret box as webhook secrets are; null goes
 * back to the server's. Audited without the URL.
 */
export async function setOrganizationSmtp(db: Db, org: Organization, url: string | null, secrets: SecretBox): Promise<void> {
  await unitOfWork(db, async (tx) => {
    await tx.update(organizations)
      .set({ smtpUrl: url === null ? null : secrets.seal(url, smtpSecretContext(org.id)), updatedAt: nowIso() })
      .where(eq(organizations.id, org.id));
    await recordChange(tx, { db, org, actor: CLI_ACTOR }, { action: url === null ? "organization.smtp_cleared" : "organization.smtp_set", resource: { type: "organization", id: org.id } });
  });
}

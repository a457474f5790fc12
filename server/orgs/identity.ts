/**
 * The organisation's own identity (docs/invoicing.md#the-organisation): what its documents say of the seller, as
 * `GET /api/v1/organization` shows it and `PUT` (or `kontor org set`) changes it. Checked against
 * the API's request schema, so this module loads it; the rest of the organisation's management
 * (service.ts) does not.
 */
import { eq } from "drizzle-orm";
import { Value } from "@sinclair/typebox/value";
import type { Tx } from "../../db/client.ts";
import { bankAccounts, organizations, vatReturns } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { toValidationFailed } from "../http/validation.ts";
import { FieldErrorBag, NotFound, ValidationFailed } from "../lib/errors.ts";
import { formatCents, readMoney } from "../lib/money.ts";
import { isCurrencyCode } from "../lib/iso-codes.ts";
import { inOrg, snapshot, unitOfWork, type Scope } from "../lib/scope.ts";
import { isTimeZone, nowIso } from "../lib/time.ts";
import { belgianEnterpriseNumberProblem, compactVatNumber } from "../lib/vat-numbers.ts";
import { changeFiscalYears } from "./fiscal-year-settings.ts";
import { OrganizationModel, type OrganizationUpdate } from "./model.ts";
import { firstRow } from "../../db/client.ts";

type OrganizationRow = typeof organizations.$inferSelect;

/**
 * Whether its documents carry payment instructions (IBAN, EPC QR code, UBL PaymentMeans): only
 * with an active bank account of its own (a placeholder flagged by the upgrade is inactive).
 */
async function hasPayee(tx: Tx, orgId: string): Promise<boolean> {
  return !!(await firstRow(tx
    .select({ id: bankAccounts.id })
    .from(bankAccounts)
    .where(inOrg(bankAccounts, orgId, eq(bankAccounts.isActive, true), eq(bankAccounts.isPlaceholder, false)))
    .limit(1)));
}

/** The organisation as `GET /api/v1/organization` shows it. */
export async function presentOrganization(tx: Tx, row: OrganizationRow) {
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
    contact_name: row.contactName,
    default_bank_account_id: row.defaultBankAccountId,
    payment_instructions: await hasPayee(tx, row.id),
    currency: row.currency,
    language: row.language,
    api_access: row.apiAccess,
    prices_include_vat: row.pricesIncludeVat,
    einvoice_business_customers: row.einvoiceBusinessCustomers,
    mail_sender_name: row.mailSenderName,
    mail_reply_to: row.mailReplyTo,
    own_smtp: row.smtpUrl !== null,
    send_on_finalize: row.sendOnFinalize,
    peppol_provider: row.peppolProvider,
    late_compensation: row.lateCompensationCents === null ? null : formatCents(row.lateCompensationCents),
    late_compensation_by_currency: Object.fromEntries(Object.entries(row.lateCompensationByCurrency).map(([code, cents]) => [code, formatCents(cents)])),
    timezone: row.timezone,
    chart: row.chart,
    fiscal_year_start: row.fiscalYearStart,
    first_fiscal_year_start: row.firstFiscalYearStart,
    first_fiscal_year_end: row.firstFiscalYearEnd,
    vat_period: row.vatPeriod,
    legal_kind: row.legalKind,
    legal_form: row.legalForm,
    share_capital: row.shareCapitalCents === null ? null : formatCents(row.shareCapitalCents),
    register_kind: row.registerKind,
    register_number: row.registerNumber,
    register_place: row.registerPlace,
    managing_directors: row.managingDirectors,
    general_terms: row.generalTerms,
    discount_terms: row.discountTerms,
    check_legal_mentions: row.checkLegalMentions,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export type ShownOrganization = Awaited<ReturnType<typeof presentOrganization>>;

/** The organisation's row (its id is the scope: there is no organization_id to add). */
export async function readOrganization(tx: Tx, orgId: string): Promise<OrganizationRow> {
  const row = await firstRow(tx.select().from(organizations).where(eq(organizations.id, orgId)));
  if (!row) throw new NotFound();
  return row;
}

/**
 * A Belgian organisation's company number is its enterprise number: 10 digits, mod 97, as the
 * Peppol 0208 scheme and the Crossroads Bank for Enterprises check it. Checked when it or the
 * country changes; other countries' registration numbers have no one form.
 */
async function checkCompanyNumber(tx: Tx, orgId: string, set: Partial<OrganizationRow>): Promise<void> {
  const row = await readOrganization(tx, orgId);
  const companyNumber = set.companyNumber !== undefined ? set.companyNumber : row.companyNumber;
  if (companyNumber === null || (set.country ?? row.country) !== "BE") return;
  const problem = belgianEnterpriseNumberProblem(companyNumber);
  if (problem === "format") {
    throw ValidationFailed.field("company_number", "The company_number field is not a valid Belgian enterprise number (10 digits starting with 0 or 1, e.g. 0123.456.749).");
  }
  if (problem === "checkDigits") throw ValidationFailed.field("company_number", "The company_number field is not a valid Belgian enterprise number (check digits).");
}

/** The compensation settings of interest notes, in cents (each amount checked as money: 422 naming it). */
function readLateCompensation(input: OrganizationUpdate, set: Partial<OrganizationRow>): void {
  const bag = new FieldErrorBag();
  if (input.late_compensation !== undefined) {
    const cents = readMoney(bag, "late_compensation", input.late_compensation);
    set.lateCompensationCents = cents === 0 ? null : cents;
  }
  if (input.late_compensation_by_currency !== undefined) {
    const byCurrency: Record<string, number> = {};
    for (const [code, amount] of Object.entries(input.late_compensation_by_currency)) {
      if (!isCurrencyCode(code)) {
        bag.add(`late_compensation_by_currency.${code}`, `"${code}" is not an ISO 4217 currency code.`);
        continue;
      }
      const cents = readMoney(bag, `late_compensation_by_currency.${code}`, amount, { min: 1 });
      if (cents !== null) byCurrency[code] = cents;
    }
    set.lateCompensationByCurrency = byCurrency;
  }
  bag.throwIfAny();
}

/** The legal mentions' fields (docs/invoicing.md#legal-mentions): texts trimmed, empty as null; the share capital in cents, 0 as none. */
function readLegalIdentity(input: OrganizationUpdate, set: Partial<OrganizationRow>): void {
  const text = (value: string | null | undefined) => (value === undefined ? undefined : value === null ? null : value.trim() || null);
  const texts = {
    legalForm: text(input.legal_form),
    registerKind: text(input.register_kind),
    registerNumber: text(input.register_number),
    registerPlace: text(input.register_place),
    managingDirectors: text(input.managing_directors),
    generalTerms: text(input.general_terms),
    discountTerms: text(input.discount_terms),
  };
  for (const [key, value] of Object.entries(texts)) if (value !== undefined) Object.assign(set, { [key]: value });
  if (input.legal_kind !== undefined) set.legalKind = input.legal_kind;
  if (input.check_legal_mentions !== undefined) set.checkLegalMentions = input.check_legal_mentions;
  if (input.share_capital !== undefined) {
    const bag = new FieldErrorBag();
    const cents = readMoney(bag, "share_capital", input.share_capital);
    bag.throwIfAny();
    set.shareCapitalCents = cents === 0 ? null : cents;
  }
}

/**
 * The VAT period is fixed once a return is filed: periods of the other kind would overlap the
 * filed ones, and the documents they declared would be reported again.
 */
async function refuseVatPeriodChange(tx: Tx, orgId: string): Promise<void> {
  const filed = await tx.select({ period: vatReturns.period }).from(vatReturns).where(eq(vatReturns.organizationId, orgId)).orderBy(vatReturns.periodFrom);
  if (filed.length === 0) return;
  throw ValidationFailed.field(
    "vat_period",
    `The VAT period cannot change once a VAT return is filed (${filed.map((r) => r.period).join(", ")}): periods of the other kind would overlap the filed ones and declare their documents again.`,
  );
}

export async function showOrganization(scope: Scope): Promise<ShownOrganization> {
  return await snapshot(scope.db, async (tx) => presentOrganization(tx, await readOrganization(tx, scope.org.id)));
}

/**
 * Changes the organisation's identity (API `PUT /api/v1/organization`, CLI `kontor org set`):
 * the same rules for both, so the input is checked against the request schema here too (the
 * CLI has no Elysia in front of it). Audited as organization.updated; there is no webhook event
 * for the organisation.
 */
export async function updateOrganization(scope: Scope, input: OrganizationUpdate): Promise<ShownOrganization> {
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
  // stored compact, as e-invoices carry it (server/lib/vat-numbers.ts)
  if (input.vat_number !== undefined) set.vatNumber = input.vat_number === null ? null : compactVatNumber(input.vat_number);
  if (input.company_number !== undefined) set.companyNumber = input.company_number;
  if (input.email !== undefined) set.email = input.email === null ? null : input.email.trim().toLowerCase();
  if (input.phone !== undefined) set.phone = input.phone;
  if (input.website !== undefined) set.website = input.website;
  if (input.peppol_id !== undefined) set.peppolId = input.peppol_id;
  if (input.contact_name !== undefined) set.contactName = input.contact_name === null ? null : input.contact_name.trim() || null;
  if (input.language !== undefined) set.language = input.language;
  if (input.prices_include_vat !== undefined) set.pricesIncludeVat = input.prices_include_vat;
  if (input.einvoice_business_customers !== undefined) set.einvoiceBusinessCustomers = input.einvoice_business_customers;
  if (input.mail_sender_name !== undefined) set.mailSenderName = input.mail_sender_name === null || input.mail_sender_name.trim() === "" ? null : input.mail_sender_name.trim();
  if (input.mail_reply_to !== undefined) set.mailReplyTo = input.mail_reply_to === null ? null : input.mail_reply_to.trim().toLowerCase();
  if (input.send_on_finalize !== undefined) set.sendOnFinalize = input.send_on_finalize;
  if (input.late_compensation !== undefined || input.late_compensation_by_currency !== undefined) readLateCompensation(input, set);
  readLegalIdentity(input, set);
  if (input.timezone !== undefined) {
    if (!isTimeZone(input.timezone)) throw ValidationFailed.field("timezone", "The timezone field must be an IANA time zone, e.g. Europe/Brussels.");
    set.timezone = input.timezone;
  }
  if (input.vat_period !== undefined) set.vatPeriod = input.vat_period;
  return await unitOfWork(scope.db, async (tx) => {
    if (input.default_bank_account_id !== undefined && input.default_bank_account_id !== null) {
      // one of the organisation's own accounts, and in use: a 422 on the field, not a 404
      const account = await firstRow(tx
        .select({ id: bankAccounts.id, isActive: bankAccounts.isActive })
        .from(bankAccounts)
        .where(inOrg(bankAccounts, scope.org.id, eq(bankAccounts.id, input.default_bank_account_id))));
      if (!account) throw ValidationFailed.field("default_bank_account_id", "The selected default_bank_account_id is invalid.");
      if (!account.isActive) throw ValidationFailed.field("default_bank_account_id", "The selected default bank account is not active.");
    }
    if (input.default_bank_account_id !== undefined) set.defaultBankAccountId = input.default_bank_account_id;
    if (input.company_number !== undefined || input.country !== undefined) await checkCompanyNumber(tx, scope.org.id, set);
    const current = await readOrganization(tx, scope.org.id);
    if (set.vatPeriod !== undefined && set.vatPeriod !== current.vatPeriod) await refuseVatPeriodChange(tx, scope.org.id);
    Object.assign(set, await changeFiscalYears(tx, current, input));
    await tx.update(organizations)
      .set({ ...set, updatedAt: nowIso() })
      .where(eq(organizations.id, scope.org.id));
    const shown = await presentOrganization(tx, await readOrganization(tx, scope.org.id));
    await recordChange(tx, scope, { action: "organization.updated", resource: { type: "organization", id: scope.org.id }, event: "organization.updated", data: shown });
    return shown;
  });
}

/** `kontor org …` and `kontor user …` (declared in cli/commands/orgs.ts). */
import "../../server/http/elysia-production.ts";
import {
  CLI_ACTOR,
  createOrganization,
  createUser,
  findOrganization,
  findUser,
  listOrganizations,
  listUsers,
  removeUser,
  setApiAccess,
  setOrganizationSmtp,
  setUserRole,
} from "../../server/orgs/service.ts";
import { smtpUrl as parseSmtpUrl } from "../../server/config.ts";
import type { OrganizationUpdate } from "../../server/orgs/model.ts";
import type { PeppolSettingsInput } from "../../server/sending/peppol/settings.ts";
import { unitOfWork } from "../../server/lib/scope.ts";
import { open } from "../context.ts";
import type { GlobalOptions } from "../globals.ts";
import { printJson, printLine, printRecord, printTable } from "../output.ts";

export type CreateOrgOptions = GlobalOptions & {
  name: string;
  currency: string;
  country: string;
  apiAccess: boolean;
  iban?: string;
  bic?: string;
  bankName?: string;
  chart?: string;
  language?: string;
  fiscalYearStart?: string;
  firstFiscalYearStart?: string;
  firstFiscalYearEnd?: string;
  vatPeriod?: string;
  legalKind?: string;
  checkLegalMentions?: "on" | "off";
} & Record<string, unknown>;
export type CreateUserOptions = GlobalOptions & { org: string; email: string; name: string; role: string };

const orgJson = (o: { id: string; name: string; currency: string; country: string; apiAccess: boolean }) => ({
  id: o.id,
  name: o.name,
  currency: o.currency,
  country: o.country,
  api_access: o.apiAccess,
});

const userJson = (u: { id: string; email: string; name: string; role: string }) => ({ id: u.id, email: u.email, name: u.name, role: u.role });

/** `legal`: its legal mentions by the API's field names (cli/commands/orgs.ts), set with the rules of PUT /organization. */
export async function createOrg(options: CreateOrgOptions, legal: Record<string, unknown> = {}): Promise<void> {
  const { db } = await open(options);
  // in the creation's transaction: a refused field creates nothing
  const identity = Object.keys(legal).length > 0 ? await import("../../server/orgs/identity.ts") : null;
  const created = await unitOfWork(db, async () => {
    const org = await createOrganization(db, { ...options, checkLegalMentions: options.checkLegalMentions !== "off" });
    if (identity) await identity.updateOrganization({ db, org, actor: CLI_ACTOR }, legal as OrganizationUpdate);
    return org;
  });
  const bankAccount = !!options.iban?.trim();
  if (options.json) printJson({ ...orgJson(created), payment_instructions: bankAccount });
  else {
    printRecord(orgJson(created));
    if (!bankAccount) printLine(noBankAccount(created.name));
  }
}

/** What `kontor org create` (and the first `kontor serve`) says of an organisation without a bank account. */
export function noBankAccount(name: string): string {
  return `${name} has no bank account: its documents carry no payment instructions (no IBAN, no QR code) until you add one with kontor bank-account add --org "${name}" --name "Current account" --iban <IBAN> --default`;
}

export async function listOrgs(options: GlobalOptions): Promise<void> {
  const { db } = await open(options);
  const rows = (await listOrganizations(db)).map(orgJson);
  if (options.json) printJson(rows);
  else printTable(rows, [["ID", (r) => r.id], ["NAME", (r) => r.name], ["CURRENCY", (r) => r.currency], ["COUNTRY", (r) => r.country], ["API ACCESS", (r) => r.api_access]]);
}

export async function setOrgApiAccess(ref: string, state: "on" | "off", options: GlobalOptions): Promise<void> {
  const { db } = await open(options);
  const updated = await setApiAccess(db, await findOrganization(db, ref), state === "on");
  if (options.json) printJson(orgJson(updated));
  else printLine(`API access for ${updated.name} is ${state}.`);
}

/**
 * `input`: the API's fields, as `kontor org set`'s options gave them (cli/commands/orgs.ts). The
 * API's request schema checks them: the one command here that loads it (server/orgs/identity.ts).
 */
export async function setOrg(
  ref: string,
  input: Record<string, unknown>,
  options: GlobalOptions,
  settings: { smtpUrl?: string; peppol?: PeppolSettingsInput } = {},
): Promise<void> {
  const { showOrganization, updateOrganization } = await import("../../server/orgs/identity.ts");
  const { db, secrets } = await open(options);
  const scope = { db, org: await findOrganization(db, ref), actor: CLI_ACTOR };
  const { smtpUrl, peppol } = settings;
  // checked before anything is written: a URL that is not smtp(s):// changes nothing
  const url = smtpUrl === undefined || smtpUrl.trim() === "" ? null : parseSmtpUrl("--smtp-url", smtpUrl);
  const peppolSettings = peppol ? await import("../../server/sending/peppol/settings.ts") : null;
  // one transaction: a refused identity field leaves the SMTP server and the access point as they were, and the other way round
  const updated = await unitOfWork(db, async () => {
    if (smtpUrl !== undefined) await setOrganizationSmtp(db, scope.org, url, secrets);
    if (peppolSettings && peppol) await peppolSettings.setPeppolAccessPoint(scope, secrets, peppol);
    // settings alone leave the identity be (no organization.updated without a change)
    return (!peppol && smtpUrl === undefined) || Object.keys(input).length > 0 ? await updateOrganization(scope, input as OrganizationUpdate) : await showOrganization(scope);
  });
  if (options.json) printJson(updated);
  else printRecord(updated);
}

export async function createOrgUser(options: CreateUserOptions): Promise<void> {
  const { db } = await open(options);
  const created = await createUser(db, await findOrganization(db, options.org), options);
  if (options.json) printJson(userJson(created));
  else printRecord(userJson(created));
}

export async function listOrgUsers(options: GlobalOptions & { org: string }): Promise<void> {
  const { db } = await open(options);
  const rows = (await listUsers(db, await findOrganization(db, options.org))).map(userJson);
  if (options.json) printJson(rows);
  else printTable(rows, [["ID", (r) => r.id], ["EMAIL", (r) => r.email], ["NAME", (r) => r.name], ["ROLE", (r) => r.role]]);
}

export async function setRole(ref: string, role: string, options: GlobalOptions): Promise<void> {
  const { db } = await open(options);
  const updated = await setUserRole(db, await findUser(db, ref), role);
  if (options.json) printJson(userJson(updated));
  else printLine(`${updated.email} is now ${updated.role}.`);
}

export async function removeOrgUser(ref: string, options: GlobalOptions): Promise<void> {
  const { db } = await open(options);
  const target = await findUser(db, ref);
  const result = await removeUser(db, target);
  if (options.json) printJson({ id: target.id, removed: true, revoked_tokens: result.revokedTokens });
  else printLine(`Removed ${target.email}; ${result.revokedTokens} personal token(s) no longer work.`);
}

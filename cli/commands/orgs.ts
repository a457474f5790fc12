import { Argument, Option, type Command } from "commander";
import { ROLES } from "../../server/auth/abilities.ts";
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
  setUserRole,
  updateOrganization,
} from "../../server/orgs/service.ts";
import type { OrganizationUpdate } from "../../server/orgs/model.ts";
import { DOCUMENT_LANGUAGES } from "../../server/documents/model.ts";
import { open, type GlobalOptions } from "../context.ts";
import { withGlobals } from "../main.ts";
import { printJson, printLine, printRecord, printTable } from "../output.ts";

const orgJson = (o: { id: string; name: string; currency: string; country: string; apiAccess: boolean }) => ({
  id: o.id,
  name: o.name,
  currency: o.currency,
  country: o.country,
  api_access: o.apiAccess,
});
/** `kontor org set` options: [flag, API field, help, may be cleared with ""]; the service checks them as the API does. */
const SET_FIELDS: [string, string, string, boolean][] = [
  ["--name <name>", "name", "organisation name", false],
  ["--address <text>", "address", "street and number", true],
  ["--city <text>", "city", "city", true],
  ["--postal-code <text>", "postal_code", "postal code", true],
  ["--country <code>", "country", "ISO 3166-1 alpha-2 country (BE: Belgian structured payment references)", false],
  ["--vat-number <text>", "vat_number", "VAT number, e.g. BE0123456749", true],
  ["--company-number <text>", "company_number", "company number, e.g. the Belgian enterprise number", true],
  ["--email <email>", "email", "email address", true],
  ["--phone <text>", "phone", "phone number", true],
  ["--website <url>", "website", "website", true],
  ["--peppol-id <scheme:id>", "peppol_id", "Peppol participant id, e.g. 0208:0123456749", true],
  ["--default-bank-account <id>", "default_bank_account_id", "id of the bank account whose IBAN goes on documents", true],
];
/** "--postal-code <text>" → "postalCode", as commander names the option. */
const optionKey = (flag: string) => flag.split(" ")[0]!.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

const userJson = (u: { id: string; email: string; name: string; role: string }) => ({ id: u.id, email: u.email, name: u.name, role: u.role });

export function registerOrgCommands(program: Command): void {
  const org = program.command("org").description("manage organisations");
  withGlobals(org.command("create").description("create an organisation (seeds its chart of accounts, VAT rates and a bank account)"))
    .requiredOption("--name <name>", "organisation name")
    .option("--currency <code>", "ISO 4217 currency", "EUR")
    .option("--country <code>", "ISO 3166-1 alpha-2 country", "BE")
    .option("--no-api-access", "create with api_access off")
    .action((options: GlobalOptions & { name: string; currency: string; country: string; apiAccess: boolean }) => {
      const { db } = open(options);
      const created = createOrganization(db, options);
      if (options.json) printJson(orgJson(created));
      else printRecord(orgJson(created));
    });
  withGlobals(org.command("list").description("list organisations")).action((options: GlobalOptions) => {
    const { db } = open(options);
    const rows = listOrganizations(db).map(orgJson);
    if (options.json) printJson(rows);
    else printTable(rows, [["ID", (r) => r.id], ["NAME", (r) => r.name], ["CURRENCY", (r) => r.currency], ["COUNTRY", (r) => r.country], ["API ACCESS", (r) => r.api_access]]);
  });
  withGlobals(org.command("api-access").description("turn API access on or off").argument("<org>", "organisation id or name"))
    .addArgument(new Argument("<state>", "on or off").choices(["on", "off"]))
    .action((ref: string, state: "on" | "off", options: GlobalOptions) => {
      const { db } = open(options);
      const updated = setApiAccess(db, findOrganization(db, ref), state === "on");
      if (options.json) printJson(orgJson(updated));
      else printLine(`API access for ${updated.name} is ${state}.`);
    });

  const set = withGlobals(
    org
      .command("set")
      .description("set the organisation's identity (what its documents say of the seller); an empty value clears a field")
      .argument("<org>", "organisation id or name"),
  );
  for (const [flag, , description] of SET_FIELDS) set.option(flag, description);
  set.addOption(new Option("--language <code>", "default document language").choices([...DOCUMENT_LANGUAGES]));
  set.action((ref: string, options: GlobalOptions & Record<string, string | undefined>) => {
    const { db } = open(options);
    const input: Record<string, unknown> = {};
    for (const [flag, field, , nullable] of SET_FIELDS) {
      const value = options[optionKey(flag)];
      if (value !== undefined) input[field] = value === "" && nullable ? null : value;
    }
    if (options.language !== undefined) input.language = options.language;
    const updated = updateOrganization({ db, org: findOrganization(db, ref), actor: CLI_ACTOR }, input as OrganizationUpdate);
    if (options.json) printJson(updated);
    else printRecord(updated);
  });

  const user = program.command("user").description("manage users");
  withGlobals(user.command("create").description("create a user"))
    .requiredOption("--org <org>", "organisation id or name")
    .requiredOption("--email <email>", "email address")
    .requiredOption("--name <name>", "display name")
    .addOption(new Option("--role <role>", "role").choices([...ROLES]).makeOptionMandatory())
    .action((options: GlobalOptions & { org: string; email: string; name: string; role: string }) => {
      const { db } = open(options);
      const created = createUser(db, findOrganization(db, options.org), options);
      if (options.json) printJson(userJson(created));
      else printRecord(userJson(created));
    });
  withGlobals(user.command("list").description("list an organisation's users"))
    .requiredOption("--org <org>", "organisation id or name")
    .action((options: GlobalOptions & { org: string }) => {
      const { db } = open(options);
      const rows = listUsers(db, findOrganization(db, options.org)).map(userJson);
      if (options.json) printJson(rows);
      else printTable(rows, [["ID", (r) => r.id], ["EMAIL", (r) => r.email], ["NAME", (r) => r.name], ["ROLE", (r) => r.role]]);
    });
  withGlobals(user.command("role").description("change a user's role").argument("<user>", "user id or email"))
    .addArgument(new Argument("<role>", "new role").choices([...ROLES]))
    .action((ref: string, role: string, options: GlobalOptions) => {
      const { db } = open(options);
      const updated = setUserRole(db, findUser(db, ref), role);
      if (options.json) printJson(userJson(updated));
      else printLine(`${updated.email} is now ${updated.role}.`);
    });
  withGlobals(user.command("remove").description("remove a user (their personal tokens stop working)").argument("<user>", "user id or email")).action(
    (ref: string, options: GlobalOptions) => {
      const { db } = open(options);
      const target = findUser(db, ref);
      const result = removeUser(db, target);
      if (options.json) printJson({ id: target.id, removed: true, revoked_tokens: result.revokedTokens });
      else printLine(`Removed ${target.email}; ${result.revokedTokens} personal token(s) no longer work.`);
    },
  );
}

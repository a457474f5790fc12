/**
 * `kontor org …` and `kontor user …`: the declarations (loaded for every command, so --help lists
 * the options); what they do is in cli/actions/orgs.ts, imported when one of them runs.
 */
import { Argument, Option, type Command } from "commander";
import { CHARTS, DOCUMENT_LANGUAGES, LEGAL_KINDS, PEPPOL_PROVIDERS, ROLES } from "../../db/values.ts";
import type { CreateOrgOptions, CreateUserOptions } from "../actions/orgs.ts";
import { withGlobals, type GlobalOptions } from "../globals.ts";

/** Its fiscal years (docs/books.md#fiscal-years), for `org create` and `org set`: [flag, API field, help]. */
const FISCAL_YEAR_OPTIONS: [string, string, string][] = [
  ["--fiscal-year-start <MM-01>", "fiscal_year_start", "the day its fiscal years start, e.g. 07-01 (from 1 July to 30 June); default 01-01, calendar years"],
  ["--first-fiscal-year-start <date>", "first_fiscal_year_start", "the first day of its first fiscal year (default: the first of the month it is created in)"],
  ["--first-fiscal-year-end <date>", "first_fiscal_year_end", "the last day of its first fiscal year (6 to 24 months), e.g. 2027-06-30"],
];
/** The legal mentions (docs/invoicing.md#legal-mentions), for `org create` and `org set`: [flag, API field, help]. */
const LEGAL_OPTIONS: [string, string, string][] = [
  ["--legal-form <text>", "legal_form", "legal form on its documents, e.g. SRL, BV, SAS, GmbH (a French sole trader: EI)"],
  ["--share-capital <amount>", "share_capital", "share capital in its currency, e.g. 10000.00"],
  ["--register-kind <text>", "register_kind", "the register: RPR/RPM, RCS, HRB, HRA, KvK"],
  ["--register-number <text>", "register_number", "number in that register (SIREN after RCS, HRB number, KvK number)"],
  ["--register-place <text>", "register_place", "the register's court or city, e.g. Gent, Paris, Amtsgericht München"],
  ["--managing-directors <text>", "managing_directors", "managing directors, as documents name them"],
  ["--general-terms <text>", "general_terms", "general terms of sale, or where to read them"],
  ["--discount-terms <text>", "discount_terms", "early-payment discount (French sellers; without it: no discount)"],
];
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
  ["--contact-name <name>", "contact_name", "the seller's contact person on e-invoices (BT-41; XRechnung requires it)", true],
  ["--website <url>", "website", "website", true],
  ["--peppol-id <scheme:id>", "peppol_id", "Peppol participant id, e.g. 0208:0123456749", true],
  ["--default-bank-account <id>", "default_bank_account_id", "id of the bank account whose IBAN goes on documents", true],
  ["--mail-sender-name <name>", "mail_sender_name", "sender name of its e-mails (default: the organisation's name)", true],
  ["--mail-reply-to <email>", "mail_reply_to", "where replies to its e-mails go (default: its email)", true],
  ["--timezone <name>", "timezone", "IANA time zone its dates are local to (reminder runs), e.g. Europe/Brussels", false],
  ...FISCAL_YEAR_OPTIONS.map(([flag, field, help]): [string, string, string, boolean] => [flag, field, help, field !== "fiscal_year_start"]),
  ...LEGAL_OPTIONS.map(([flag, field, help]): [string, string, string, boolean] => [flag, field, help, true]),
];
/** `kontor org set` settings, on or off: [flag, API field, help]. */
const SET_SWITCHES: [string, string, string][] = [
  ["--einvoice-business-customers <state>", "einvoice_business_customers", "issue every Belgian business customer (in BE, with a Belgian VAT number) a Peppol e-invoice: finalize checks its UBL (the Belgian mandate)"],
  ["--prices-include-vat <state>", "prices_include_vat", "new invoices priced VAT-inclusive by default"],
  ["--check-legal-mentions <state>", "check_legal_mentions", "finalize refuses documents lacking the legal mentions of its country and kind"],
];
/** `kontor org set` options of the Peppol access point: [flag, its setting, help]. */
const PEPPOL_OPTIONS: [string, string, string][] = [
  ["--peppol-api-key <key>", "apiKey", "the access point's API key"],
  ["--peppol-api-secret <secret>", "apiSecret", "the access point's API secret (stored encrypted)"],
  ["--peppol-company-id <id>", "companyId", "the organisation's company id at the access point"],
  ["--peppol-base-url <url>", "baseUrl", "the access point's API (default for recommand: https://app.recommand.eu/api/v1)"],
];
/** "--postal-code <text>" → "postalCode", as commander names the option. */
const optionKey = (flag: string) => flag.split(" ")[0]!.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

const actions = () => import("../actions/orgs.ts");

export function registerOrgCommands(program: Command): void {
  const org = program.command("org").description("manage organisations");
  const create = withGlobals(
    org.command("create").description("create an organisation (seeds its chart of accounts and VAT rates; its bank account is the one --iban gives, else none)"),
  )
    .requiredOption("--name <name>", "organisation name")
    .option("--iban <iban>", "the organisation's own bank account (its default, linked to 1110, or 550 in the be chart); without it documents carry no payment instructions")
    .option("--bic <bic>", "BIC (ISO 9362, 8 or 11 characters) of --iban, shown beside it on documents")
    .option("--bank-name <name>", "name of the bank of --iban")
    .option("--currency <code>", "ISO 4217 currency", "EUR")
    .option("--country <code>", "ISO 3166-1 alpha-2 country", "BE")
    .addOption(new Option("--vat-period <period>", "how often it files its VAT return (its periods are YYYY-MM or YYYY-Qn)").choices(["monthly", "quarterly"]).default("quarterly"))
    .option("--no-api-access", "create with api_access off")
    // the chart of accounts, fixed once the organisation exists (docs/books.md#chart-of-accounts)
    .addOption(new Option("--chart <chart>", "chart of accounts: generic, or be (the Belgian PCMN)").choices([...CHARTS]).default("generic"))
    .addOption(new Option("--language <code>", "default document language (the be chart's account names: nl, fr, else en)").choices([...DOCUMENT_LANGUAGES]))
    // legal mentions (docs/invoicing.md#legal-mentions): checked at finalize unless turned off
    .addOption(new Option("--legal-kind <kind>", "company or sole_trader: which legal mentions its documents need").choices([...LEGAL_KINDS]))
    .addOption(new Option("--check-legal-mentions <state>", "finalize refuses documents lacking the legal mentions of its country and kind").choices(["on", "off"]).default("on"))
    .action(async (options: CreateOrgOptions) => {
      // its legal identity, by the API's field names: set with the rules of PUT /organization
      const legal: Record<string, unknown> = {};
      for (const [flag, field] of LEGAL_OPTIONS) {
        const value = options[optionKey(flag)];
        if (typeof value === "string" && value !== "") legal[field] = value;
      }
      if (options.legalKind !== undefined) legal.legal_kind = options.legalKind;
      await (await actions()).createOrg(options, legal);
    });
  for (const [flag, , help] of FISCAL_YEAR_OPTIONS) create.option(flag, help);
  for (const [flag, , help] of LEGAL_OPTIONS) create.option(flag, help);
  withGlobals(org.command("list").description("list organisations")).action(async (options: GlobalOptions) => (await actions()).listOrgs(options));
  withGlobals(org.command("api-access").description("turn API access on or off").argument("<org>", "organisation id or name"))
    .addArgument(new Argument("<state>", "on or off").choices(["on", "off"]))
    .action(async (ref: string, state: "on" | "off", options: GlobalOptions) => (await actions()).setOrgApiAccess(ref, state, options));

  const set = withGlobals(
    org
      .command("set")
      .description("set the organisation's identity (what its documents say of the seller); an empty value clears a field")
      .argument("<org>", "organisation id or name"),
  );
  for (const [flag, , description] of SET_FIELDS) set.option(flag, description);
  set.addOption(new Option("--language <code>", "default document language").choices([...DOCUMENT_LANGUAGES]));
  set.addOption(new Option("--vat-period <period>", "how often it files its VAT return (its periods are YYYY-MM or YYYY-Qn)").choices(["monthly", "quarterly"]));
  set.addOption(new Option("--legal-kind <kind>", "company or sole_trader: which legal mentions its documents need").choices([...LEGAL_KINDS]));
  for (const [flag, , description] of SET_SWITCHES) set.addOption(new Option(flag, description).choices(["on", "off"]));
  set.addOption(new Option("--send-on-finalize <channel>", "send every document at finalize over this channel (preferred: each customer's); off: never").choices(["email", "peppol", "preferred", "off"]));
  set.option("--smtp-url <url>", "its own SMTP server, e.g. smtp://user:password@mail.example.com:587 (stored encrypted; CLI only; \"\" goes back to the server's KONTOR_SMTP_URL)");
  // the Peppol access point (docs/sending.md): sealed with the server's key, never shown by the API
  set.addOption(new Option("--peppol-provider <name>", "Peppol access point documents are sent and received through (none: remove it)").choices([...PEPPOL_PROVIDERS, "none"]));
  for (const [flag, , description] of PEPPOL_OPTIONS) set.option(flag, description);
  set.action(async (ref: string, options: GlobalOptions & Record<string, string | undefined>) => {
    const input: Record<string, unknown> = {};
    for (const [flag, field, , nullable] of SET_FIELDS) {
      const value = options[optionKey(flag)];
      // the share capital is money: "" clears it as 0 does
      if (value !== undefined) input[field] = value === "" && field === "share_capital" ? "0" : value === "" && nullable ? null : value;
    }
    if (options.language !== undefined) input.language = options.language;
    if (options.vatPeriod !== undefined) input.vat_period = options.vatPeriod;
    if (options.legalKind !== undefined) input.legal_kind = options.legalKind;
    if (options.sendOnFinalize !== undefined) input.send_on_finalize = options.sendOnFinalize === "off" ? null : options.sendOnFinalize;
    for (const [flag, field] of SET_SWITCHES) {
      const value = options[optionKey(flag)];
      if (value !== undefined) input[field] = value === "on";
    }
    const peppol: Record<string, string> = {};
    for (const [flag, key] of [["--peppol-provider", "provider"], ...PEPPOL_OPTIONS] as const) {
      const value = options[optionKey(flag)];
      if (value !== undefined) peppol[key] = value;
    }
    await (await actions()).setOrg(ref, input, options, { smtpUrl: options.smtpUrl, peppol: Object.keys(peppol).length > 0 ? peppol : undefined });
  });

  const user = program.command("user").description("manage users");
  withGlobals(user.command("create").description("create a user"))
    .requiredOption("--org <org>", "organisation id or name")
    .requiredOption("--email <email>", "email address")
    .requiredOption("--name <name>", "display name")
    .addOption(new Option("--role <role>", "role").choices([...ROLES]).makeOptionMandatory())
    .action(async (options: CreateUserOptions) => (await actions()).createOrgUser(options));
  withGlobals(user.command("list").description("list an organisation's users"))
    .requiredOption("--org <org>", "organisation id or name")
    .action(async (options: GlobalOptions & { org: string }) => (await actions()).listOrgUsers(options));
  withGlobals(user.command("role").description("change a user's role").argument("<user>", "user id or email"))
    .addArgument(new Argument("<role>", "new role").choices([...ROLES]))
    .action(async (ref: string, role: string, options: GlobalOptions) => (await actions()).setRole(ref, role, options));
  withGlobals(user.command("remove").description("remove a user (their personal tokens stop working)").argument("<user>", "user id or email")).action(
    async (ref: string, options: GlobalOptions) => (await actions()).removeOrgUser(ref, options),
  );
}

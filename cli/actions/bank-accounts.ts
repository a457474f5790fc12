/** `kontor bank-account add` (declared in cli/commands/bank-accounts.ts). */
import "../../server/http/elysia-production.ts";
import { bankAccountService } from "../../server/bank-accounts/service.ts";
import { CLI_ACTOR, findOrganization } from "../../server/orgs/service.ts";
import { open } from "../context.ts";
import type { GlobalOptions } from "../globals.ts";
import { printJson, printRecord } from "../output.ts";

export type AddOptions = GlobalOptions & { org: string; name: string; iban: string; bankName?: string; currency?: string };

export function add(options: AddOptions): void {
  const { db } = open(options);
  const org = findOrganization(db, options.org);
  const added = bankAccountService.add({ db, org, actor: CLI_ACTOR }, options);
  if (options.json) printJson(added);
  else printRecord(added);
}

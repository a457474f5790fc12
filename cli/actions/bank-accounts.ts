/** `kontor bank-account add | set | deactivate | default` (declared in cli/commands/bank-accounts.ts). */
import "../../server/http/elysia-production.ts";
import { bankAccountService } from "../../server/bank-accounts/service.ts";
import { CLI_ACTOR, findOrganization } from "../../server/orgs/service.ts";
import type { Scope } from "../../server/lib/scope.ts";
import { open } from "../context.ts";
import type { GlobalOptions } from "../globals.ts";
import { printJson, printRecord } from "../output.ts";

export type AddOptions = GlobalOptions & { org: string; name: string; iban: string; bic?: string; bankName?: string; currency?: string; default?: boolean };
export type RefOptions = GlobalOptions & { org: string };
export type SetOptions = RefOptions & { name?: string; bic?: string; bankName?: string };

async function scopeOf(options: RefOptions): Promise<Scope> {
  const { db } = await open(options);
  return { db, org: await findOrganization(db, options.org), actor: CLI_ACTOR };
}

function print(options: GlobalOptions, shown: Record<string, unknown>): void {
  if (options.json) printJson(shown);
  else printRecord(shown);
}

export async function add(options: AddOptions): Promise<void> {
  const scope = await scopeOf(options);
  const added = await bankAccountService.add(scope, options);
  print(options, options.default ? await bankAccountService.makeDefault(scope, await bankAccountService.find(scope, added.id)) : added);
}

export async function set(ref: string, options: SetOptions): Promise<void> {
  const scope = await scopeOf(options);
  print(options, await bankAccountService.update(scope, await bankAccountService.find(scope, ref), { name: options.name, bic: options.bic, bankName: options.bankName }));
}

export async function deactivate(ref: string, options: RefOptions): Promise<void> {
  const scope = await scopeOf(options);
  print(options, await bankAccountService.deactivate(scope, await bankAccountService.find(scope, ref)));
}

export async function makeDefault(ref: string, options: RefOptions): Promise<void> {
  const scope = await scopeOf(options);
  print(options, await bankAccountService.makeDefault(scope, await bankAccountService.find(scope, ref)));
}

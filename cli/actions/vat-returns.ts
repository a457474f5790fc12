/** `kontor vat-return …` (declared in cli/commands/vat-returns.ts): server/vat-returns/service.ts on the command line. */
import type { Scope } from "../../server/lib/scope.ts";
import { CLI_ACTOR, findOrganization } from "../../server/orgs/service.ts";
import { vatReturnService, type VatReturnShown } from "../../server/vat-returns/service.ts";
import { open } from "../context.ts";
import type { GlobalOptions } from "../globals.ts";
import { printJson, printLine, printTable } from "../output.ts";

export type VatReturnOptions = GlobalOptions & { org: string; askRestitution?: boolean };

async function scopeOf(options: VatReturnOptions): Promise<Scope> {
  const { db } = await open(options);
  return { db, org: await findOrganization(db, options.org), actor: CLI_ACTOR };
}

function print(shown: VatReturnShown, options: VatReturnOptions): void {
  if (options.json) return printJson(shown);
  printLine(`VAT return ${shown.period} (${shown.from}..${shown.to}): ${shown.filed ? `filed ${shown.filed_at}` : "not filed"}`);
  // in the form's order (a JSON object lists "44" before "01": integer-like keys come first)
  printTable(Object.entries(shown.grids).sort(([a], [b]) => Number(a) - Number(b)).map(([grid, amount]) => ({ grid, amount, documents: shown.sources[grid]?.length ?? 0 })), [
    ["GRID", (r) => r.grid],
    ["AMOUNT", (r) => r.amount],
    ["DOCUMENTS", (r) => (r.documents === 0 ? "" : String(r.documents))],
  ]);
  for (const warning of shown.warnings) printLine(`warning: ${warning}`);
}

export async function show(period: string, options: VatReturnOptions): Promise<void> {
  print(await vatReturnService.show(await scopeOf(options), period), options);
}

export async function xml(period: string, options: VatReturnOptions): Promise<void> {
  const file = await vatReturnService.xml(await scopeOf(options), period, options.askRestitution === true);
  if (options.json) return printJson({ period, xml: file.body });
  process.stdout.write(file.body);
}

export async function file(period: string, options: VatReturnOptions): Promise<void> {
  print(await vatReturnService.file(await scopeOf(options), period, options.askRestitution === true), options);
}

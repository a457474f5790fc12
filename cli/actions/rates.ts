/** `kontor rates …` (declared in cli/commands/rates.ts). */
import { addRate, listRates, type RateInput } from "../../server/interest/rates.ts";
import { open } from "../context.ts";
import type { GlobalOptions } from "../globals.ts";
import { printJson, printRecord, printTable } from "../output.ts";

export type AddRateOptions = GlobalOptions & RateInput;

export async function add(options: AddRateOptions): Promise<void> {
  const { db } = await open(options);
  const rate = await addRate(db, options);
  if (options.json) printJson(rate);
  else printRecord(rate);
}

export async function list(options: GlobalOptions & { country?: string }): Promise<void> {
  const { db } = await open(options);
  const rows = await listRates(db, options.country?.trim().toUpperCase());
  if (options.json) printJson(rows);
  else
    printTable(rows, [
      ["COUNTRY", (r) => r.country],
      ["FROM", (r) => r.valid_from],
      ["TO", (r) => r.valid_to],
      ["RATE", (r) => `${r.rate} %`],
      ["BY", (r) => r.created_by],
      ["SOURCE", (r) => r.source],
    ]);
}

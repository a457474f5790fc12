/** `kontor export journal` (declared in cli/commands/export.ts). */
import "../../server/http/elysia-production.ts";
import { exportJournal, type ExportFormat } from "../../server/journal/export.ts";
import { CLI_ACTOR, findOrganization } from "../../server/orgs/service.ts";
import { open } from "../context.ts";
import type { GlobalOptions } from "../globals.ts";

export type JournalOptions = GlobalOptions & { org: string; format: ExportFormat; from?: string; to?: string };

export async function journal(options: JournalOptions): Promise<void> {
  const { db } = await open(options);
  const org = await findOrganization(db, options.org);
  process.stdout.write(await exportJournal({ db, org, actor: CLI_ACTOR }, options.format, { from: options.from, to: options.to }));
}

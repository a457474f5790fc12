/** `kontor peppol poll` (declared in cli/commands/peppol.ts). */
import "../../server/http/elysia-production.ts";
import { findOrganization } from "../../server/orgs/service.ts";
import { pollPeppolInbox } from "../../server/sending/peppol/inbox.ts";
import { open } from "../context.ts";
import type { GlobalOptions } from "../globals.ts";
import { printJson, printLine, printTable } from "../output.ts";

export type PollOptions = GlobalOptions & { org?: string };

export async function poll(options: PollOptions): Promise<void> {
  const runtime = await open(options);
  const orgId = options.org ? (await findOrganization(runtime.db, options.org)).id : undefined;
  const result = await pollPeppolInbox({ db: runtime.db, secrets: runtime.secrets, log: runtime.log }, orgId);
  if (options.json) printJson(result);
  else {
    printLine(`Polled ${result.organizations} access point(s): ${result.documents.filter((d) => d.outcome === "imported").length} document(s) imported.`);
    if (result.documents.length > 0) {
      printTable(result.documents, [
        ["ORGANIZATION", (d) => d.organization_id],
        ["DOCUMENT", (d) => d.provider_document_id],
        ["OUTCOME", (d) => d.outcome],
        ["ID", (d) => d.id ?? ""],
        ["DETAIL", (d) => d.detail ?? ""],
      ]);
    }
    for (const e of result.errors) printLine(`${e.organization_id}: ${e.detail}`);
  }
  // something left undone is worth a non-zero exit to a cron job
  if (result.errors.length > 0 || result.documents.some((d) => d.outcome === "error" || d.outcome === "refused")) process.exitCode = 1;
}

/** `kontor worker` (declared in cli/commands/core.ts): the webhook worker alone, no HTTP app. */
import "../../server/http/elysia-production.ts";
import { openHolding } from "../../db/holders.ts";
import { loadConfig } from "../../server/config.ts";
import { sealPlaintextSecrets } from "../../server/webhooks/service.ts";
import { startBackground } from "../../server/background.ts";
import { open } from "../context.ts";
import type { GlobalOptions } from "../globals.ts";
import { printLine } from "../output.ts";
import { stopOnSignal } from "./signals.ts";

export async function worker(options: GlobalOptions): Promise<void> {
  const { opened, letGo } = await openHolding(options.db ?? loadConfig().dbPath, "worker", () => open(options));
  const { db, config, secrets } = opened;
  await sealPlaintextSecrets(db, secrets);
  const worker = await startBackground(opened);
  if (!options.json) printLine(`Kontor worker running on ${config.dbPath}: webhooks, document deliveries, Peppol inboxes, recurring invoices, reminders`);
  stopOnSignal(() =>
    worker.stop().then(() => {
      db.$client.close();
      letGo();
    }),
  );
}

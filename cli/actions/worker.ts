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
import { databaseName } from "../../server/config.ts";

export async function worker(options: GlobalOptions): Promise<void> {
  // a SQLite file is held (a restore refuses to swap it meanwhile); PostgreSQL's backups are its own
  const { opened, letGo } = loadConfig().databaseUrl !== null ? { opened: await open(options), letGo: () => {} } : await openHolding(options.db ?? loadConfig().dbPath, "worker", () => open(options));
  const { db, config, secrets } = opened;
  await sealPlaintextSecrets(db, secrets);
  const worker = await startBackground(opened);
  if (!options.json) printLine(`Kontor worker running on ${databaseName(config)}: webhooks, document deliveries, Peppol inboxes, recurring invoices, reminders`);
  stopOnSignal(() =>
    worker.stop().then(() => {
      letGo();
      return db.connection.close();
    }),
  );
}

/** `kontor worker` (declared in cli/commands/core.ts): the webhook worker alone, no HTTP app. */
import "../../server/http/elysia-production.ts";
import { openHolding } from "../../db/holders.ts";
import { loadConfig } from "../../server/config.ts";
import { sealPlaintextSecrets } from "../../server/webhooks/service.ts";
import { startWorker } from "../../server/webhooks/worker.ts";
import { startReminderSchedule } from "../../server/reminders/schedule.ts";
import { open } from "../context.ts";
import type { GlobalOptions } from "../globals.ts";
import { printLine } from "../output.ts";
import { stopOnSignal } from "./signals.ts";

export function worker(options: GlobalOptions): void {
  const { opened, letGo } = openHolding(options.db ?? loadConfig().dbPath, "worker", () => open(options));
  const { db, config, secrets, log } = opened;
  sealPlaintextSecrets(db, secrets);
  const worker = startWorker(db, config, { secrets, log: (line) => log.warn(line) });
  const reminderRuns = startReminderSchedule(db, config, log);
  if (!options.json) printLine(`Kontor webhook worker running on ${config.dbPath}`);
  stopOnSignal(() =>
    worker.stop().then(() => {
      reminderRuns.stop();
      db.$client.close();
      letGo();
    }),
  );
}

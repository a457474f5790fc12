/**
 * The events feed keeps KONTOR_EVENT_RETENTION_DAYS of events (docs/events.md#retention): older
 * ones are pruned when the worker starts and then hourly. A stop waits for a prune in flight, so
 * a process that stops has pruned whole batches and nothing is left half-done in its name.
 */
import { Cron } from "croner";
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import { pruneEvents } from "./feed.ts";

export type Retention = { stop: () => Promise<void> };

export function startRetention(db: Db, config: Pick<Config, "eventRetentionDays">, log: (line: string) => void): Retention {
  let running: Promise<void> = Promise.resolve();
  const prune = () => {
    running = pruneEvents(db, config.eventRetentionDays).then(
      () => undefined,
      (error) => log(`[kontor] retention: pruning old events failed (the next hour tries again): ${(error as Error).message}`),
    );
    return running;
  };
  // protect: an hour's prune still running is not started twice
  const hourly = new Cron("0 * * * *", { protect: true }, prune);
  void prune();
  return {
    async stop() {
      hourly.stop();
      await running;
    },
  };
}

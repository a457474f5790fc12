/**
 * The events feed keeps KONTOR_EVENT_RETENTION_DAYS of events (docs/events.md#how-long): older
 * ones are pruned when the process starts and then hourly, each hour by one server
 * (server/schedule/job.ts). A stop waits for a prune in flight.
 */
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { scheduleJob, type ScheduledJob } from "../schedule/job.ts";
import { pruneEvents } from "./feed.ts";

export function startRetention(db: Db, config: Pick<Config, "eventRetentionDays">, log: Logger): ScheduledJob {
  return scheduleJob(db, {
    job: "retention",
    pattern: "0 * * * *",
    period: "hour",
    atStart: true,
    run: async () => {
      await pruneEvents(db, config.eventRetentionDays);
    },
    log,
  });
}

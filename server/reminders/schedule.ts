/**
 * The daily reminder run of the worker (docs/reminders.md#reminder-runs): every hour at :05, a run for each organisation
 * whose local time is past 06:00, at its local date. A run records only the levels not yet
 * recorded, so the later hours of a day send nothing twice, and a worker that was down at 06:00
 * catches up at its next hour. Each hour's run is one server's (server/schedule/job.ts).
 */
import type { Db } from "../../db/client.ts";
import type { Logger } from "../log.ts";
import { scheduleJob, type ScheduledJob } from "../schedule/job.ts";
import { runReminders } from "./run.ts";

export const REMINDER_HOUR = 6;

export function startReminderSchedule(db: Db, log: Logger): ScheduledJob {
  const run = async () => {
    // a reminder recorded without the interest of days no statutory rate covers is a warning here
    const runs = await runReminders(db, { notBeforeHour: REMINDER_HOUR, log, countOnly: true });
    const sent = runs.reduce((n, run) => n + run.recorded, 0);
    if (sent > 0) log.info("reminders recorded", { organizations: runs.length, reminders: sent });
  };
  return scheduleJob(db, { job: "reminders", pattern: "5 * * * *", period: "hour", run, log });
}

/**
 * The daily reminder run of the worker (docs/reminders.md#reminder-runs): every hour at :05, a run for each organisation
 * whose local time is past 06:00, at its local date. A run records only the levels not yet
 * recorded, so the later hours of a day send nothing twice, and a worker that was down at 06:00
 * catches up at its next hour.
 */
import { Cron } from "croner";
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { runReminders } from "./run.ts";

export const REMINDER_HOUR = 6;

export type ReminderSchedule = { stop: () => void };

export function startReminderSchedule(db: Db, config: Config, log?: Logger): ReminderSchedule {
  void config;
  const cron = new Cron("5 * * * *", { protect: true }, async () => {
    try {
      // a reminder recorded without the interest of days no statutory rate covers is a warning here
      const runs = await runReminders(db, { notBeforeHour: REMINDER_HOUR, log, countOnly: true });
      const sent = runs.reduce((n, run) => n + run.recorded, 0);
      if (sent > 0) log?.info("reminders recorded", { organizations: runs.length, reminders: sent });
    } catch (error) {
      log?.error("reminder run failed", { error: (error as Error).message });
    }
  });
  return { stop: () => cron.stop() };
}

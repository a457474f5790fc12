/**
 * The periods of the scheduled runs (server/schedule/job.ts): a row per job and period, taken by
 * the first server whose run of that period starts, so each period runs once across servers.
 */
import { primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const scheduledRuns = sqliteTable(
  "scheduled_runs",
  {
    /** the job: "recurring", "reminders", "retention" */
    job: text("job").notNull(),
    /** the period it ran for: a UTC hour (2026-11-27T09) or a UTC day (2026-11-27) */
    period: text("period").notNull(),
    /** the process that ran it (host:pid:random) */
    runBy: text("run_by").notNull(),
    startedAt: text("started_at").notNull(),
    /** null while it runs, or when the process running it died (the next period does what it left) */
    finishedAt: text("finished_at"),
  },
  (t) => [primaryKey({ columns: [t.job, t.period] })],
);

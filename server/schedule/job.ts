/**
 * A scheduled run (docs/operations.md#running-on-postgresql, "Several servers"): a job that fires on a croner pattern in
 * every `kontor serve` and `kontor worker`, run once per period across all of them. A firing
 * first takes its period, inserting (job, period) into scheduled_runs in a write unit (on
 * PostgreSQL that unit holds the write lock, a transaction-level advisory lock, so two servers'
 * firings take turns): the first server to fire runs the period, the others find the row and
 * skip it. The row says who ran it, when, and whether it finished.
 *
 * A run started when a process starts (`atStart`: catching up what a downtime missed) takes no
 * period: every start catches up. The runs themselves are written so that running twice does
 * nothing twice (a period row per recurring invoice, a reminder level once); a run killed midway
 * leaves its period started and unfinished, and the next period's run does what it left.
 * A stop waits for the run in flight.
 */
import { Cron } from "croner";
import { and, eq, lt } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { scheduledRuns } from "../../db/schema.ts";
import { unitOfWork } from "../lib/scope.ts";
import { holderTag, isoDaysBefore, nowIso } from "../lib/time.ts";
import type { Logger } from "../log.ts";

export type ScheduledJob = {
  /** stops firing, then waits for the run in flight */
  stop: () => Promise<void>;
  /** fires as the schedule does at `at`: runs unless the period was taken; resolves to whether this process ran it */
  fire: (at?: Date) => Promise<boolean>;
};

export type JobSpec = {
  /** the job's name in scheduled_runs and in log lines */
  job: string;
  /** croner's pattern (seconds optional), in UTC */
  pattern: string;
  /** what one firing stands for: a UTC hour or a UTC day */
  period: "hour" | "day";
  /** run once when the process starts as well, without a period */
  atStart?: boolean;
  /** the work; a throw is logged, and the next period tries again */
  run: () => Promise<void>;
  log: Logger;
};

/** How long the rows of finished periods are kept (what ran when, for an operator). */
const KEPT_DAYS = 30;

/** The period `at` falls in: "2026-11-27T09" (an hour) or "2026-11-27" (a day), in UTC. */
export function periodOf(at: Date, period: JobSpec["period"]): string {
  return at.toISOString().slice(0, period === "hour" ? 13 : 10);
}

export function scheduleJob(db: Db, spec: JobSpec): ScheduledJob {
  const runBy = holderTag();
  /** runs and firings under way, which a stop waits for */
  const underWay = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    underWay.add(work);
    void work.finally(() => underWay.delete(work));
    return work;
  };
  let stopped = false;
  /** Runs the work; resolves to whether it succeeded (a failure is logged). */
  const runNow = (): Promise<boolean> =>
    track(spec.run().then(
      () => true,
      (error) => {
        spec.log.error("a scheduled run failed (the next one tries again)", { job: spec.job, error: (error as Error).message });
        return false;
      },
    ));
  const fire = async (at = new Date()): Promise<boolean> => {
    if (stopped) return false;
    const period = periodOf(at, spec.period);
    const where = and(eq(scheduledRuns.job, spec.job), eq(scheduledRuns.period, period));
    const taken = await takePeriod(db, spec.job, period, runBy).catch((error) => {
      spec.log.error("a scheduled run could not take its period (the next one tries again)", { job: spec.job, period, error: (error as Error).message });
      return false;
    });
    if (!taken) return false;
    if (stopped) {
      // stopped while taking it: the period goes back, for a server still running to take
      await unitOfWork(db, async (tx) => void (await tx.delete(scheduledRuns).where(where))).catch(() => {});
      return false;
    }
    // a failed run stays unfinished: the row says so, and the next period does what it left
    if (!(await runNow())) return true;
    await unitOfWork(db, async (tx) => void (await tx.update(scheduledRuns).set({ finishedAt: nowIso() }).where(where)))
      .catch((error) => spec.log.error("a scheduled run's end could not be recorded", { job: spec.job, period, error: (error as Error).message }));
    return true;
  };
  // protect: a firing still under way (its promise returned) is not started again beside it
  const cron = new Cron(spec.pattern, { protect: true, timezone: "UTC" }, () => track(fire()));
  if (spec.atStart) void runNow();
  return {
    fire,
    async stop() {
      stopped = true;
      cron.stop();
      while (underWay.size > 0) await Promise.allSettled([...underWay]);
    },
  };
}

/** Takes (job, period) for `runBy`; false when a server took it first. Drops this job's rows older than KEPT_DAYS. */
async function takePeriod(db: Db, job: string, period: string, runBy: string): Promise<boolean> {
  return await unitOfWork(db, async (tx) => {
    const taken = await tx.insert(scheduledRuns).values({ job, period, runBy, startedAt: nowIso() }).onConflictDoNothing().returning({ period: scheduledRuns.period });
    const cutoff = isoDaysBefore(Date.now(), KEPT_DAYS);
    await tx.delete(scheduledRuns).where(and(eq(scheduledRuns.job, job), lt(scheduledRuns.startedAt, cutoff)));
    return taken.length === 1;
  });
}

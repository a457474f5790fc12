/**
 * Scheduled backups of `kontor serve` (KONTOR_BACKUP_DIR, KONTOR_BACKUP_EVERY, KONTOR_BACKUP_KEEP):
 * every period a checked copy `kontor-<UTC time>.db` (db/backup.ts, written under a temporary
 * name and renamed when complete), then all but the newest KEEP are deleted. The next backup is
 * due one period after the newest one in the folder, so a restart neither skips one nor takes
 * an extra one. Each runs on a thread of its own (server/backup/thread.ts).
 */
import { join } from "node:path";
import { newestBackup, pruneBackups, removeUnfinishedBackups, scheduledBackupName, type BackupResult } from "../../db/backup.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { BackupAnswer, BackupRequest } from "./thread.ts";

/** The thread's entry point, as server/serve.ts finds the HTTP threads' (beside this file, or in the binary). */
const BACKUP_ENTRY = import.meta.url.includes("$bunfs") ? "./server/backup/thread.ts" : new URL("./thread.ts", import.meta.url).href;

/** A failed backup (a full disk, a locked database) is tried again this soon, or at the next period if sooner. */
const RETRY_MS = 5 * 60_000;

export type BackupSchedule = { stop: () => Promise<void> };

export function startBackupSchedule(config: Config, log: Logger): BackupSchedule {
  const dir = config.backupDir!;
  // what a backup cut short by a crash left behind (never a file under a backup's own name)
  removeUnfinishedBackups(dir);
  let timer: Timer | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;

  /** `retryAt`: after a failure, when to try again (the newest backup is as old as it was) */
  const schedule = (retryAt?: number) => {
    if (stopped) return;
    const newest = newestBackup(dir);
    const due = retryAt ?? (newest ? newest.mtimeMs + config.backupEveryMs : Date.now());
    // timers hold at most 2^31-1 ms; a longer wait is taken in steps
    timer = setTimeout(run, Math.min(Math.max(0, due - Date.now()), 2 ** 31 - 1));
  };
  const run = () => {
    let retryAt: number | undefined;
    const newest = newestBackup(dir);
    if (newest && newest.mtimeMs + config.backupEveryMs > Date.now() + 1000) return schedule();
    running = backupOnThread({ source: config.dbPath, target: join(dir, scheduledBackupName(new Date())) })
      .then((result) => {
        const pruned = pruneBackups(dir, config.backupKeep);
        log.info("backup written", {
          path: result.path,
          bytes: result.bytes,
          duration_ms: result.duration_ms,
          last_change_at: result.last_change?.at ?? null,
          pruned: pruned.length,
        });
      })
      .catch((error) => {
        log.error("scheduled backup failed", { dir, error: (error as Error).message });
        retryAt = Date.now() + Math.min(config.backupEveryMs, RETRY_MS);
      })
      .finally(() => {
        running = null;
        schedule(retryAt);
      });
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

function backupOnThread(request: BackupRequest): Promise<BackupResult> {
  const thread = new Worker(BACKUP_ENTRY);
  return new Promise<BackupResult>((resolve, reject) => {
    thread.addEventListener("error", (event) => reject(new Error(event.message)));
    thread.addEventListener("message", (event: MessageEvent<BackupAnswer>) => {
      if (event.data.ok) resolve(event.data.result);
      else reject(new Error(event.data.message));
    });
    thread.postMessage(request);
  }).finally(() => thread.terminate());
}

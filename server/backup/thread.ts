/**
 * A scheduled backup, off the HTTP threads (server/backup/schedule.ts): `VACUUM INTO` and the
 * integrity check read the whole database synchronously, which on the main thread would hold up
 * the requests it answers for as long.
 */
import "../http/elysia-production.ts";
import { backupFile, type BackupResult } from "../../db/backup.ts";

declare const self: Worker;

export type BackupRequest = { source: string; target: string };
export type BackupAnswer = { ok: true; result: BackupResult } | { ok: false; message: string };

self.addEventListener("message", (event: MessageEvent<BackupRequest>) => {
  let answer: BackupAnswer;
  try {
    answer = { ok: true, result: backupFile(event.data.source, event.data.target) };
  } catch (error) {
    answer = { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  self.postMessage(answer);
});

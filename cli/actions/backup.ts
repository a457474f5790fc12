/**
 * `kontor backup --to FILE` and `kontor restore FILE` (declared in cli/commands/backup.ts).
 * A backup is taken while the server runs and keeps answering (db/backup.ts); a restore swaps
 * the database file, so it refuses while a server or worker holds it (db/holders.ts).
 */
import { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, statSync, unlinkSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { backupFile, checkDatabase, compactUtc, fsyncPath, NotAKontorDatabase, type DatabaseFacts } from "../../db/backup.ts";
import { DatabaseTooNew, refuseNewer } from "../../db/connection.ts";
import { liveHolders } from "../../db/holders.ts";
import { loadConfig } from "../../server/config.ts";
import { UserError, type GlobalOptions } from "../globals.ts";
import { printJson, printLine } from "../output.ts";

export type BackupOptions = GlobalOptions & { to: string };

/** On PostgreSQL the database's own tools back up and restore (pg_dump, base backups and WAL archiving). */
function refuseOnPostgres(command: string): void {
  if (loadConfig().databaseUrl !== null) {
    throw new UserError(`${command} works on a SQLite file; on PostgreSQL use the database's own backups (pg_dump, or base backups with WAL archiving for point-in-time recovery): see docs/operations.md#running-on-postgresql`);
  }
}

export function backup(options: BackupOptions): void {
  refuseOnPostgres("kontor backup");
  const source = options.db ?? loadConfig().dbPath;
  const result = describeFailure(() => backupFile(source, options.to));
  if (options.json) printJson(result);
  else {
    printLine(`Backup of ${source} written to ${result.path}: ${megabytes(result.bytes)} in ${result.duration_ms} ms, integrity check ok.`);
    printLine(`Last change it holds: ${describeChange(result)}.`);
  }
}

export function restore(file: string, options: GlobalOptions): void {
  refuseOnPostgres("kontor restore");
  const config = loadConfig();
  const target = resolve(options.db ?? config.dbPath);
  const source = resolve(file);
  if (!existsSync(source)) throw new UserError(`there is no file ${file}`);
  if (source === target) throw new UserError("the backup is the database itself");
  const holders = liveHolders(target);
  if (holders.length > 0) {
    const who = holders.map((h) => `kontor ${h.role} (pid ${h.pid})`).join(", ");
    throw new UserError(`${who} holds ${target}: stop it before restoring (nothing was changed)`);
  }
  // the bytes checked are the bytes put in place: copied beside the database first
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  const incoming = join(dirname(target), `${basename(target)}.restoring-${randomBytes(6).toString("hex")}`);
  copyFileSync(source, incoming);
  let facts: DatabaseFacts;
  try {
    chmodSync(incoming, 0o600);
    facts = describeFailure(() => checkIncoming(incoming));
    fsyncPath(incoming);
  } catch (error) {
    unlinkSync(incoming);
    throw error;
  }
  let replaced: string | null = null;
  if (existsSync(target)) {
    replaced = `${target}.replaced-${compactUtc(new Date())}`;
    // with its -wal and -shm: what the WAL holds belongs to the replaced database
    for (const suffix of ["", "-wal", "-shm"]) if (existsSync(`${target}${suffix}`)) renameSync(`${target}${suffix}`, `${replaced}${suffix}`);
  }
  renameSync(incoming, target);
  fsyncPath(dirname(target));
  const result = { restored: target, from: source, replaced, bytes: statSync(target).size, ...facts };
  if (options.json) printJson(result);
  else {
    printLine(`Restored ${target} from ${source} (${megabytes(result.bytes)}); last change it holds: ${describeChange(result)}.`);
    printLine(replaced ? `The replaced database was kept as ${replaced}.` : "There was no database to replace.");
    printLine("Webhook secrets open only with the key file they were sealed with (KONTOR_SECRET_KEY_FILE, default kontor.key beside the database): restore it too if it was lost.");
  }
}

/** integrity_check, Kontor's tables, and not from a newer Kontor (which this one would refuse to start on). */
function checkIncoming(path: string): DatabaseFacts {
  let db: Database;
  try {
    db = new Database(path, { readwrite: true, create: false });
  } catch (error) {
    throw new NotAKontorDatabase(`cannot open it (${(error as Error).message})`);
  }
  try {
    // a scheduled or `kontor backup` file is one self-contained file; so is the restored one until the server opens it
    db.exec("PRAGMA journal_mode = DELETE");
    const facts = checkDatabase(db);
    refuseNewer(db);
    return facts;
  } catch (error) {
    if (error instanceof DatabaseTooNew || error instanceof NotAKontorDatabase) throw error;
    throw new NotAKontorDatabase(`not an SQLite database (${(error as Error).message})`);
  } finally {
    db.close();
  }
}

/** The checks' findings are the user's problem (exit 1), not a crash. */
function describeFailure<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof NotAKontorDatabase || error instanceof DatabaseTooNew) throw new UserError(error.message);
    if ((error as NodeJS.ErrnoException).code) throw new UserError((error as Error).message);
    throw error;
  }
}

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

function describeChange({ last_change }: DatabaseFacts): string {
  return last_change ? `${last_change.at} ${last_change.action} ${last_change.resource_type} ${last_change.resource_id}` : "none (no audit entry yet)";
}

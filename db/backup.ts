/**
 * Backups of a live database, and what a restore checks first.
 *
 * A backup is SQLite's `VACUUM INTO` on a connection to the database: one read transaction, so
 * the copy holds exactly what had committed when it began (every change the server acknowledged
 * by then) and nothing half-written, while the server keeps reading and writing (in WAL mode a
 * reader blocks no writer). A file copy could catch the database between two writes, or miss
 * what is still only in the -wal file.
 *
 * The copy is written under a temporary name beside the target, checked (`PRAGMA
 * integrity_check`, and that it is a Kontor database), flushed to disk and only then renamed
 * to the target: a reader of the target name finds a complete, checked backup or none (a crash
 * leaves at most a `*.tmp-*` file).
 */
import { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

export type LastChange = { at: string; action: string; resource_type: string; resource_id: string; audit_id: string };

/** What a checked database file holds, as far as a backup or a restore cares. */
export type DatabaseFacts = {
  /** migrations applied (drizzle's __drizzle_migrations) */
  migrations: number;
  /** the newest audit entry: every change through the API or the CLI writes one in its transaction */
  last_change: LastChange | null;
};

export type BackupResult = DatabaseFacts & { path: string; bytes: number; duration_ms: number };

/** A file that is not an intact Kontor database. */
export class NotAKontorDatabase extends Error {}

/** Writes a consistent, checked copy of the database `source` is connected to, to `target`. */
export function backupDatabase(source: Database, target: string): BackupResult {
  const started = performance.now();
  const path = resolve(target);
  const dir = dirname(path);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temporary = join(dir, `${basename(path)}.tmp-${randomBytes(6).toString("hex")}`);
  try {
    source.run("VACUUM INTO ?", [temporary]);
    // the copy carries the source's WAL flag: a backup is one self-contained file
    const copy = new Database(temporary, { readwrite: true, create: false });
    let facts: DatabaseFacts;
    try {
      copy.exec("PRAGMA journal_mode = DELETE");
      facts = checkDatabase(copy);
    } finally {
      copy.close();
    }
    chmodSync(temporary, 0o600);
    fsyncPath(temporary);
    renameSync(temporary, path);
    fsyncPath(dir);
    return { path, bytes: statSync(path).size, duration_ms: Math.round(performance.now() - started), ...facts };
  } catch (error) {
    if (existsSync(temporary)) unlinkSync(temporary);
    throw error;
  }
}

/** Opens the file at `path` (which must exist) and backs it up; for the CLI, which is not the server. */
export function backupFile(source: string, target: string): BackupResult {
  if (!existsSync(source)) throw new NotAKontorDatabase(`there is no database at ${source}`);
  const db = new Database(source, { readwrite: true, create: false });
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    return backupDatabase(db, target);
  } finally {
    db.close();
  }
}

/**
 * `integrity_check` says "ok" and the file has Kontor's tables; else NotAKontorDatabase.
 * Reads the whole file: the cost of being sure a backup can be restored.
 */
export function checkDatabase(db: Database): DatabaseFacts {
  let verdict: string[];
  try {
    verdict = (db.query("PRAGMA integrity_check").all() as { integrity_check: string }[]).map((r) => r.integrity_check);
  } catch (error) {
    throw new NotAKontorDatabase(`not an SQLite database (${(error as Error).message})`);
  }
  if (verdict.length !== 1 || verdict[0] !== "ok") throw new NotAKontorDatabase(`the integrity check failed: ${verdict.slice(0, 5).join("; ")}`);
  // integrity_check does not compare a full-text index with the rows it indexes (by rowid);
  // FTS5's own check does, so a copy whose search would find the wrong rows is refused
  for (const table of searchTables(db)) {
    try {
      db.run(`INSERT INTO "${table}"("${table}", rank) VALUES ('integrity-check', 1)`);
    } catch (error) {
      throw new NotAKontorDatabase(`the search index ${table} does not match its table (${(error as Error).message})`);
    }
  }
  const tables = new Set((db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
  for (const table of ["__drizzle_migrations", "organizations", "audit_log"]) {
    if (!tables.has(table)) throw new NotAKontorDatabase(`not a Kontor database (no ${table} table)`);
  }
  const migrations = (db.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
  // the newest entry of each organisation, through its (organization_id, created_at, id) index
  const last = db
    .query(
      `SELECT a.id, a.action, a.resource_type, a.resource_id, a.created_at FROM organizations o
         JOIN audit_log a ON a.id = (SELECT id FROM audit_log WHERE organization_id = o.id ORDER BY created_at DESC, id DESC LIMIT 1)
        ORDER BY a.created_at DESC, a.id DESC LIMIT 1`,
    )
    .get() as { id: string; action: string; resource_type: string; resource_id: string; created_at: string } | null;
  return {
    migrations,
    last_change: last && { at: last.created_at, action: last.action, resource_type: last.resource_type, resource_id: last.resource_id, audit_id: last.id },
  };
}

/** The FTS5 tables of the database (server/lib/list.ts searches them). */
export function searchTables(db: Database): string[] {
  return (db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%'").all() as { name: string }[]).map(
    (r) => r.name,
  );
}

/** `at` in UTC to the second, compact and sortable: 20261124T002503Z (backup and replaced-file names). */
export const compactUtc = (at: Date) => at.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");

/** The name of a scheduled backup written at `at`: sorts by time, and `newestBackup` finds it. */
export const scheduledBackupName = (at: Date) => `kontor-${compactUtc(at)}.db`;
const SCHEDULED = /^kontor-\d{8}T\d{6}Z\.db$/;

/** Removes what scheduled backups cut short by a crash left in `dir` (their temporary files, never a backup). */
export function removeUnfinishedBackups(dir: string): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) if (/^kontor-\d{8}T\d{6}Z\.db\.tmp-/.test(name)) unlinkSync(join(dir, name));
}

/** The complete scheduled backups in `dir`, newest first (temporary files are not backups). */
export function scheduledBackups(dir: string): { path: string; mtimeMs: number }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => SCHEDULED.test(name))
    .sort()
    .reverse()
    .map((name) => ({ path: join(dir, name), mtimeMs: statSync(join(dir, name)).mtimeMs }));
}

export const newestBackup = (dir: string) => scheduledBackups(dir)[0] ?? null;

/** Deletes all but the newest `keep` scheduled backups; returns the deleted paths. */
export function pruneBackups(dir: string, keep: number): string[] {
  const old = scheduledBackups(dir).slice(keep);
  for (const { path } of old) unlinkSync(path);
  return old.map((b) => b.path);
}

/** fsync of a file or a folder (a rename is durable once its folder is synced). */
export function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Which processes hold the database: `kontor serve` and `kontor worker` each leave a file
 * `<database>.holders/<pid>` while they run, so `kontor restore` can refuse to swap the file
 * from under them. A holder killed without its clean stop leaves its file behind; a file whose
 * process is gone does not count.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const folderOf = (dbPath: string) => `${dbPath}.holders`;

/** Marks the database as held by this process (as `role`); the function returned lets go. */
export function holdDatabase(dbPath: string, role: string): () => void {
  if (dbPath === ":memory:") return () => {};
  const folder = folderOf(dbPath);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const file = join(folder, String(process.pid));
  writeFileSync(file, `${role}\n`, { mode: 0o600 });
  return () => {
    rmSync(file, { force: true });
    // the folder goes with its last holder (rmdir refuses a folder another holder wrote to meanwhile)
    try {
      rmdirSync(folder);
    } catch {}
  };
}

/**
 * Opens the database with `open` while holding it (a long upgrade included: a restore must not
 * swap the file meanwhile); a refused start lets go at once, leaving no holder behind.
 */
export async function openHolding<T>(dbPath: string, role: string, open: () => T | Promise<T>): Promise<{ opened: T; letGo: () => void }> {
  const letGo = holdDatabase(dbPath, role);
  try {
    return { opened: await open(), letGo };
  } catch (error) {
    letGo();
    throw error;
  }
}

/** The live processes holding the database. */
export function liveHolders(dbPath: string): { pid: number; role: string }[] {
  const folder = folderOf(dbPath);
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    // this process is not a holder (in a container, a holder that died as pid 1 left "1" behind)
    .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid && isAlive(Number(name)))
    .map((name) => ({ pid: Number(name), role: readFileSync(join(folder, name), "utf8").trim() }));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

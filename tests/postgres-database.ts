/**
 * The suite on PostgreSQL (`KONTOR_TEST_DATABASE_URL=postgres://…`): each test file gets a fresh
 * database copied from a template that is migrated once per baseline (CREATE DATABASE … TEMPLATE,
 * a few milliseconds, where migrating takes a second), and dropped when the file is done.
 */
import { SQL } from "bun";
import { createHash } from "node:crypto";
import { openPostgres } from "../db/postgres/connection.ts";
import { baselineStatements } from "../db/postgres/baseline.ts";
import { KNOWN_MIGRATIONS } from "../db/postgres/migrate.ts";
import { migrateDatabase } from "../server/data-migrations.ts";

/** The PostgreSQL server of the suite, or null: the suite runs on SQLite. */
export const TEST_DATABASE_URL = process.env.KONTOR_TEST_DATABASE_URL || null;

/** The advisory lock under which one test process makes the template while the others wait. */
const TEMPLATE_LOCK_KEY = 0x4b546d70;

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

let counter = 0;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A fresh, migrated database on the suite's server: its URL, and how to drop it. */
export async function freshPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const server = TEST_DATABASE_URL!;
  const template = `kontor_template_${createHash("sha256").update([...baselineStatements(), ...KNOWN_MIGRATIONS].join(";\n")).digest("hex").slice(0, 16)}`;
  const admin = new SQL(server, { max: 1 });
  try {
    const connection = await admin.reserve();
    try {
      await connection.unsafe(`SELECT pg_advisory_lock(${TEMPLATE_LOCK_KEY})`);
      const exists = await connection.unsafe(`SELECT 1 FROM pg_database WHERE datname = $1`, [template]);
      if (exists.length === 0) {
        const making = `${template}_making_${process.pid}`;
        await connection.unsafe(`DROP DATABASE IF EXISTS "${making}" WITH (FORCE)`);
        await connection.unsafe(`CREATE DATABASE "${making}" TEMPLATE template0 ENCODING 'UTF8'`);
        const db = openPostgres(withDatabase(server, making), { max: 2 });
        try {
          await migrateDatabase(db);
        } finally {
          await db.connection.close();
        }
        await connection.unsafe(`ALTER DATABASE "${making}" RENAME TO "${template}"`);
      }
      // databases a test process left behind when it ended without dropping them (killed, or a file that did not close its env)
      for (const { datname } of await connection.unsafe(`SELECT datname FROM pg_database WHERE datname LIKE 'kontor\\_test\\_%'`)) {
        const pid = Number(/^kontor_test_(\d+)_/.exec(datname)?.[1]);
        if (pid > 0 && pid !== process.pid && !alive(pid)) await connection.unsafe(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
      }
      await connection.unsafe(`SELECT pg_advisory_unlock(${TEMPLATE_LOCK_KEY})`);
      const name = `kontor_test_${process.pid}_${++counter}_${Date.now().toString(36)}`;
      await connection.unsafe(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
      return {
        url: withDatabase(server, name),
        drop: async () => {
          const dropper = new SQL(server, { max: 1 });
          try {
            await dropper.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
          } finally {
            await dropper.close();
          }
        },
      };
    } finally {
      connection.release();
    }
  } finally {
    await admin.close();
  }
}

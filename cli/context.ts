import { migrate, openDatabase, type Db } from "../db/client.ts";
import { loadConfig, type Config } from "../server/config.ts";

export type GlobalOptions = { db?: string; json?: boolean };

/** Opens (and migrates) the database named by --db or KONTOR_DB. */
export function open(options: GlobalOptions): { db: Db; config: Config } {
  const config = loadConfig();
  if (options.db) config.dbPath = options.db;
  const db = openDatabase(config.dbPath);
  migrate(db);
  return { db, config };
}

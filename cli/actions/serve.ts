/** `kontor serve` (declared in cli/commands/core.ts): the only command that loads the HTTP app. */
// first: Elysia reads NODE_ENV once, when it loads (server/http/elysia-production.ts)
import "../../server/http/elysia-production.ts";
import { writeSync } from "node:fs";
import { keepStatisticsFresh } from "../../db/client.ts";
import { openHolding } from "../../db/holders.ts";
import { lockDatabaseForServer } from "../../db/server-lock.ts";
import { bootstrapIfEmpty, bootstrapMessage } from "../../server/bootstrap.ts";
import { databaseName, loadConfig } from "../../server/config.ts";
import { migrateDatabase } from "../../server/data-migrations.ts";
import { loggerFor } from "../../server/log.ts";
import { createRuntime, openConfiguredDatabase } from "../../server/runtime.ts";
import { refuseTakenPort, startServer, type Running } from "../../server/serve.ts";
import type { GlobalOptions } from "../globals.ts";
import { jsonText, terminalSafe } from "../output.ts";
import { stopOnSignal } from "./signals.ts";

export type ServeOptions = GlobalOptions & { host?: string; port?: number; worker: boolean };

export async function serve(options: ServeOptions): Promise<void> {
  const config = loadConfig();
  if (options.db) config.dbPath = options.db;
  if (options.host) config.host = options.host;
  if (options.port !== undefined) config.port = options.port;
  const log = loggerFor(config);
  // a port another process listens on is refused before anything is created or upgraded (the
  // first start's token would otherwise be made and never printed); checked again as it binds
  refuseTakenPort(config.host, config.port);
  const openMigrated = async () => {
    const db = openConfiguredDatabase(config);
    await migrateDatabase(db, {
      backupDir: config.backupDir,
      onBackup: (backup) => log.warn("backed up the database before upgrading it", { path: backup.path, bytes: backup.bytes }),
      onNotice: (notice) => log.warn("upgrade notice", { notice }),
    });
    return db;
  };
  // one server per SQLite file, taken before the upgrade: two starts must not both migrate. On
  // PostgreSQL several servers share the database, and migrations take turns in it
  const sqlite = config.databaseUrl === null;
  const unlock = sqlite ? lockDatabaseForServer(config.dbPath) : () => {};
  const { opened: db, letGo } = sqlite ? await openHolding(config.dbPath, "serve", openMigrated) : { opened: await openMigrated(), letGo: () => {} };
  const created = await bootstrapIfEmpty(db);
  const stopStatistics = keepStatisticsFresh(db);
  // a signal stops the server also while it starts: the listening line is out (and a script may
  // stop it) before the other HTTP threads listen, which is when startServer resolves
  let starting: Promise<Running> | undefined;
  stopOnSignal(async () => {
    stopStatistics();
    await (await starting)?.stop();
    await db.connection.close();
    letGo();
    unlock();
  });
  starting = startServer(createRuntime(config, { db, log }), {
    worker: options.worker,
    // written at once (not buffered), before the first request is answered: a script that
    // waits for /health finds the first start's token in the output
    onListening: (url: string) => {
      const baseUrl = config.baseUrl ?? url;
      const text = options.json
        ? jsonText({ url: baseUrl, bootstrap: created })
        : terminalSafe([`Kontor listening on ${url} (database ${databaseName(config)}, docs at ${baseUrl}/docs)`, ...(created ? [bootstrapMessage(created, baseUrl)] : [])].join("\n"), { keepNewlines: true });
      writeSync(1, `${text}\n`);
    },
  });
  const running = await starting;
  if (running.metricsUrl) log.info("metrics served", { url: `${running.metricsUrl}/metrics` });
}

import { writeSync } from "node:fs";
import { InvalidArgumentError, type Command } from "commander";
import { keepStatisticsFresh, openDatabase } from "../../db/client.ts";
import { migrateDatabase } from "../../server/data-migrations.ts";
import { openHolding } from "../../db/holders.ts";
import { loggerFor } from "../../server/log.ts";
import { bootstrapIfEmpty, bootstrapMessage } from "../../server/bootstrap.ts";
import { loadConfig } from "../../server/config.ts";
import { createRuntime } from "../../server/runtime.ts";
import { startServer } from "../../server/serve.ts";
import { sealPlaintextSecrets } from "../../server/webhooks/service.ts";
import { startWorker } from "../../server/webhooks/worker.ts";
import { withGlobals } from "../main.ts";
import { jsonText, printError, printJson, printLine, terminalSafe } from "../output.ts";
import { open, type GlobalOptions } from "../context.ts";

export function registerCoreCommands(program: Command): void {
  withGlobals(program.command("serve").description("apply migrations, then serve the API (with the webhook worker)"))
    .option("--host <host>", "interface to listen on (KONTOR_HOST, default 127.0.0.1)")
    .option("--port <port>", "port (KONTOR_PORT, default 8080)", parsePort)
    .option("--no-worker", "do not run the webhook worker in this process")
    .action(async (options: GlobalOptions & { host?: string; port?: number; worker: boolean }) => {
      const config = loadConfig();
      if (options.db) config.dbPath = options.db;
      if (options.host) config.host = options.host;
      if (options.port !== undefined) config.port = options.port;
      const log = loggerFor(config);
      const { opened: db, letGo } = openHolding(config.dbPath, "serve", () => {
        const db = openDatabase(config.dbPath);
        migrateDatabase(db, { backupDir: config.backupDir, onBackup: (backup) => log.warn("backed up the database before upgrading it", { path: backup.path, bytes: backup.bytes }) });
        return db;
      });
      const created = bootstrapIfEmpty(db);
      const stopStatistics = keepStatisticsFresh(db);
      const running = await startServer(createRuntime(config, { db, log }), {
        worker: options.worker,
        // written at once (not buffered), before the first request is answered: a script that
        // waits for /health finds the first start's token in the output
        onListening: (url: string) => {
          const baseUrl = config.baseUrl ?? url;
          const text = options.json
            ? jsonText({ url: baseUrl, bootstrap: created })
            : terminalSafe([`Kontor listening on ${url} (database ${config.dbPath}, docs at ${baseUrl}/docs)`, ...(created ? [bootstrapMessage(created, baseUrl)] : [])].join("\n"), { keepNewlines: true });
          writeSync(1, `${text}\n`);
        },
      });
      if (running.metricsUrl) log.info("metrics served", { url: `${running.metricsUrl}/metrics` });
      stopOnSignal(() => {
        stopStatistics();
        return running.stop().then(() => {
          db.$client.close();
          letGo();
        });
      });
    });

  withGlobals(program.command("worker").description("run only the webhook worker (a second process on the same database)")).action(
    (options: GlobalOptions) => {
      const { opened, letGo } = openHolding(options.db ?? loadConfig().dbPath, "worker", () => open(options));
      const { db, config, secrets, log } = opened;
      sealPlaintextSecrets(db, secrets);
      const worker = startWorker(db, config, { secrets, log: (line) => log.warn(line) });
      if (!options.json) printLine(`Kontor webhook worker running on ${config.dbPath}`);
      stopOnSignal(() =>
        worker.stop().then(() => {
          db.$client.close();
          letGo();
        }),
      );
    },
  );

  withGlobals(program.command("migrate").description("apply database migrations and exit")).action((options: GlobalOptions) => {
    const config = loadConfig();
    const db = openDatabase(options.db ?? config.dbPath);
    let backup: string | null = null;
    const applied = migrateDatabase(db, { backupDir: config.backupDir, onBackup: (b) => (backup = b.path) });
    if (options.json) printJson({ applied, backup });
    else {
      if (backup) printLine(`Backed up the database before upgrading it: ${backup}`);
      printLine(applied ? `Applied ${applied} migration(s).` : "Database is up to date.");
    }
  });
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError("must be a port number (0-65535)");
  }
  return port;
}

/** SIGTERM/SIGINT: stop claiming work, let what is in flight finish, then exit. */
function stopOnSignal(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = () => {
    if (stopping) return;
    stopping = true;
    stop()
      .catch((error) => printError(`error during shutdown: ${error}`))
      .finally(() => process.exit(0));
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
}

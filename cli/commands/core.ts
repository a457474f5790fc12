/**
 * `kontor serve`, `kontor worker` and `kontor migrate`: the declarations. What each does is in
 * its own module under cli/actions/, imported when it runs: only serve loads the HTTP app.
 */
import { InvalidArgumentError, type Command } from "commander";
import type { DbCopyOptions } from "../actions/db-copy.ts";
import type { ServeOptions } from "../actions/serve.ts";
import { withGlobals, type GlobalOptions } from "../globals.ts";

export function registerCoreCommands(program: Command): void {
  withGlobals(program.command("serve").description("apply migrations, then serve the API (with the webhook worker)"))
    .option("--host <host>", "interface to listen on (KONTOR_HOST, default 127.0.0.1)")
    .option("--port <port>", "port (KONTOR_PORT, default 8080)", parsePort)
    .option("--no-worker", "do not run the webhook worker in this process")
    .action(async (options: ServeOptions) => {
      // before the server's modules load: they would load twice
      (await import("../actions/server-heap.ts")).execWithServerHeapSizing();
      await (await import("../actions/serve.ts")).serve(options);
    });

  withGlobals(program.command("worker").description("run only the webhook worker (a second process on the same database)")).action(
    async (options: GlobalOptions) => (await import("../actions/worker.ts")).worker(options),
  );

  withGlobals(program.command("migrate").description("apply database migrations and exit")).action(
    async (options: GlobalOptions) => (await import("../actions/migrate.ts")).migrate(options),
  );

  const db = program.command("db").description("the database itself");
  withGlobals(db.command("copy").description("copy the SQLite database (--db, KONTOR_DB) to an empty PostgreSQL database, in one transaction"))
    .requiredOption("--to <url>", "the PostgreSQL database: postgres://user:password@host:5432/kontor")
    .action(async (options: DbCopyOptions) => (await import("../actions/db-copy.ts")).dbCopy(options));
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError("must be a port number (0-65535)");
  }
  return port;
}

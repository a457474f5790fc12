/**
 * Writes the OpenAPI document the server serves at /docs/openapi.json (or .yaml) to a file or
 * stdout, built by the app itself on a throw-away database: CI lints exactly what is served.
 *   bun scripts/openapi.ts [out.json|out.yaml]
 */
import "../server/http/elysia-production.ts";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { openDatabase } from "../db/client.ts";
import { migrateDatabase } from "../server/data-migrations.ts";
import { createApp } from "../server/app.ts";
import { loadConfig } from "../server/config.ts";
import { createRuntime } from "../server/runtime.ts";

const out = process.argv[2];
const dir = mkdtempSync(join(tmpdir(), "kontor-openapi-"));
try {
  const config = loadConfig({ KONTOR_ENV: "test", KONTOR_DB: join(dir, "kontor.db") });
  const db = openDatabase(config.dbPath);
  await migrateDatabase(db);
  const app = createApp(createRuntime(config, { db }));
  const format = out?.endsWith(".yaml") || out?.endsWith(".yml") ? "yaml" : "json";
  const response = await app.handle(new Request(`http://localhost/docs/openapi.${format}`));
  if (response.status !== 200) throw new Error(`/docs/openapi.${format} answered ${response.status}`);
  const text = await response.text();
  if (out) {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, text);
  } else process.stdout.write(text);
  db.$client.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

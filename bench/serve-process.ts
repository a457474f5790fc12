/**
 * The real `kontor serve` as a process on a given database (its default HTTP threads), for the
 * benchmarks: it answers once its `--json` line names its URL; its stderr goes to bench/out.
 */
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { OUT_DIR } from "./seed.ts";

const ROOT = join(import.meta.dir, "..");

export type Proc = { url: string; pid: number; stop: () => Promise<void> };

export async function spawnServer(cmd: string[], env: Record<string, string>, logName: string): Promise<Proc> {
  const logPath = join(OUT_DIR, logName);
  const fd = openSync(logPath, "w");
  const proc = Bun.spawn(cmd, { cwd: ROOT, env: { ...process.env, ...env }, stdout: "pipe", stderr: fd });
  closeSync(fd);
  const reader = proc.stdout.getReader();
  let buffered = "";
  const deadline = Date.now() + 120_000;
  const urlPattern = /"url":\s*"([^"]+)"/;
  while (!urlPattern.test(buffered)) {
    const chunk = await Promise.race([
      reader.read(),
      proc.exited.then(() => null),
      Bun.sleep(Math.max(0, deadline - Date.now())).then(() => null),
    ]);
    if (chunk === null || chunk.done || Date.now() > deadline) {
      proc.kill("SIGKILL"); // never leave a half-started server behind
      throw new Error(`${cmd.join(" ")} did not start; see ${logPath}:\n${readFileSync(logPath, "utf8").slice(-2000)}`);
    }
    buffered += new TextDecoder().decode(chunk.value);
  }
  // keep draining stdout so the server never blocks on a full pipe
  void (async () => {
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
  })().catch(() => {});
  const url = urlPattern.exec(buffered)![1]!;
  return {
    url,
    pid: proc.pid,
    async stop() {
      proc.kill("SIGTERM");
      const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(10_000).then(() => false)]);
      if (!exited) proc.kill("SIGKILL");
      await proc.exited;
    },
  };
}

/** `engineEnv`: on PostgreSQL, KONTOR_DATABASE_URL and KONTOR_SECRET_KEY_FILE (bench/run.ts --postgres). */
export function startKontor(dbPath: string, rateLimit: number, logName: string, engineEnv: Record<string, string> = {}): Promise<Proc> {
  return spawnServer(
    ["bun", join(ROOT, "cli/main.ts"), "serve", "--db", dbPath, "--host", "127.0.0.1", "--port", "0", "--json"],
    {
      KONTOR_ENV: "production",
      KONTOR_RATE_LIMIT: String(rateLimit),
      KONTOR_WEBHOOK_ALLOW_HTTP: "true",
      KONTOR_WEBHOOK_ALLOW_PRIVATE: "true",
      ...engineEnv,
    },
    logName,
  );
}


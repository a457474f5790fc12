/**
 * A real `kontor serve` process on a fresh database in a temporary folder, for the benchmarks
 * that measure what a user gets: its URL and the token its first start printed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type FreshServer = { url: string; token: string; pid: number; dbPath: string; stop: () => Promise<void> };

export async function startFreshServer(env: Record<string, string> = {}, { worker = true }: { worker?: boolean } = {}): Promise<FreshServer> {
  const dir = mkdtempSync(join(tmpdir(), "kontor-bench-"));
  const dbPath = join(dir, "kontor.db");
  const args = ["bun", join(import.meta.dir, "../cli/main.ts"), "serve", "--db", dbPath, "--port", "0", "--json"];
  const proc = Bun.spawn(worker ? args : [...args, "--no-worker"], {
    env: { ...process.env, KONTOR_ENV: "production", KONTOR_RATE_LIMIT: "1000000", ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  const stop = async () => {
    proc.kill("SIGTERM");
    await proc.exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const reader = proc.stdout.getReader();
    let out = "";
    // `--json` prints {url, bootstrap: {token, …}} before the first request is answered
    while (!/"bootstrap"[\s\S]*\}\s*\}\s*$/.test(out)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`kontor serve exited: ${out}`);
      out += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    const { url, bootstrap } = JSON.parse(out) as { url: string; bootstrap: { token: string } };
    return { url, token: bootstrap.token, pid: proc.pid, dbPath, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * One server per port and one per SQLite file, with real processes on 127.0.0.1 (one per SQLite
 * file is SQLite's: servers share a PostgreSQL database; one per port holds on either): a second
 * `kontor serve` on a port another process listens on (Kontor or not) or on a database another
 * server serves exits non-zero within seconds, naming the port or the database; Kontor's own HTTP
 * threads still share their port; `kontor worker` and the CLI work beside a running server; a
 * server killed with `kill -9` leaves no lock behind.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestEnv, runCli, serveProcess } from "../helpers.ts";
import { onPostgres, sqliteOnly } from "../raw-sql.ts";

const dir = mkdtempSync(join(tmpdir(), "kontor-one-server-"));
// on PostgreSQL, two databases of the test's own, which the servers reach by these paths
const postgres = onPostgres ? [await createTestEnv(), await createTestEnv()] : [];
const dbA = postgres[0]?.config.dbPath ?? join(dir, "a.db");
const dbB = postgres[1]?.config.dbPath ?? join(dir, "b.db");
const running: { proc: { kill: (signal?: number | NodeJS.Signals) => void; exited: Promise<number> } }[] = [];
afterAll(async () => {
  for (const r of running) {
    r.proc.kill(9);
    await r.proc.exited;
  }
  for (const env of postgres) await env.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `kontor serve` that must not start: its exit code, stderr and how long it took (killed after 20 s). */
async function refusedServe(args: string[], env: Record<string, string> = {}) {
  const started = performance.now();
  const proc = Bun.spawn(["bun", join(import.meta.dir, "../../cli/main.ts"), "serve", ...args], {
    env: { ...process.env, KONTOR_ENV: "test", KONTOR_HTTP_THREADS: "2", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill(9), 20_000);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr, seconds: (performance.now() - started) / 1000 };
}

const portOf = (url: string) => Number(new URL(url).port);

describe("one server per port", () => {
  test("a port another program listens on: kontor serve exits 1 within seconds naming the port, and creates nothing", async () => {
    const foreign = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const db = join(dir, "foreign.db");
      const r = await refusedServe(["--port", String(foreign.port), "--db", db]);
      expect(r.code).toBe(1);
      expect(r.seconds).toBeLessThan(10);
      expect(r.stderr).toContain(`Port ${foreign.port} on 127.0.0.1 is already in use by another process`);
      expect(r.stdout).not.toContain("listening");
      // refused before the database was created: a later start still makes (and prints) the first token
      expect(await Bun.file(db).exists()).toBe(false);
    } finally {
      foreign.stop(true);
    }
  }, 30_000);

  test("a port a running kontor serve (two HTTP threads sharing it) listens on: a second server on another database exits 1 naming the port; the first keeps answering alone", async () => {
    const first = await serveProcess(["--db", dbA], { KONTOR_HTTP_THREADS: "2" });
    running.push(first);
    const port = portOf(first.url);
    const r = await refusedServe(["--port", String(port), "--db", dbB]);
    expect(r.code).toBe(1);
    expect(r.seconds).toBeLessThan(10);
    expect(r.stderr).toContain(`Port ${port} on 127.0.0.1 is already in use`);
    // every connection reaches the first server (a second one on b.db would answer 401 to a's token)
    for (let i = 0; i < 20; i++) expect((await fetch(`${first.url}/health`)).status).toBe(200);
  }, 60_000);
});

sqliteOnly.describe("one server per SQLite file", () => {
  test("a second kontor serve on the same database, another port: exits 1 within seconds naming the database and the server's pid", async () => {
    const first = running[0]!;
    const r = await refusedServe(["--port", "0", "--db", dbA]);
    expect(r.code).toBe(1);
    expect(r.seconds).toBeLessThan(10);
    expect(r.stderr).toContain(`Another kontor serve (pid ${(first.proc as unknown as { pid: number }).pid}) already serves the database ${dbA}`);
  }, 30_000);

  test("kontor worker and the CLI work beside the running server", async () => {
    const list = await runCli(["org", "list", "--json", "--db", dbA]);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).map((o: { name: string }) => o.name)).toEqual(["Default organisation"]);
    const worker = Bun.spawn(["bun", join(import.meta.dir, "../../cli/main.ts"), "worker", "--db", dbA], {
      env: { ...process.env, KONTOR_ENV: "test" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = worker.stdout.getReader();
    let out = "";
    while (!out.includes("Kontor worker running")) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    expect(out).toContain(`Kontor worker running on ${dbA}`);
    // still running a moment later: it took no lock the server holds
    await Bun.sleep(1000);
    expect(worker.exitCode).toBeNull();
    worker.kill("SIGTERM");
    await worker.exited;
  }, 30_000);

  test("a server killed with kill -9 leaves no lock: the next start on the same database and port succeeds", async () => {
    const first = running.shift()!;
    const port = portOf((first as unknown as { url: string }).url);
    first.proc.kill(9);
    await first.proc.exited;
    const next = await serveProcess(["--db", dbA, "--port", String(port)], { KONTOR_HTTP_THREADS: "2" });
    running.push(next);
    expect(portOf(next.url)).toBe(port);
    expect((await fetch(`${next.url}/health`)).status).toBe(200);
    // and it holds the lock in turn
    const r = await refusedServe(["--port", "0", "--db", dbA]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`already serves the database ${dbA}`);
  }, 60_000);
});

/**
 * `kontor serve` runs with JavaScriptCore's heap sized for a server, not for the machine's RAM
 * (cli/actions/server-heap.ts, docs/performance.md#memory): started without the variable, it
 * executes itself again with it set, as the same process, and still serves; an operator's own
 * value is kept. Read from the running server's environment (/proc/<pid>/environ, Linux).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HEAP_RAM_ENV, SERVER_HEAP_RAM_BYTES } from "../../cli/actions/server-heap.ts";
import { serveProcess } from "../helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "kontor-server-heap-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The variable as the running process sees it (its environment after its last exec). */
function heapVariableOf(pid: number): string | null {
  const vars = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
  const found = vars.find((v) => v.startsWith(`${HEAP_RAM_ENV}=`));
  return found === undefined ? null : found.slice(HEAP_RAM_ENV.length + 1);
}

async function serveWith(name: string, env: Record<string, string | undefined>) {
  const server = await serveProcess(["--db", join(dir, `${name}.db`)], { KONTOR_HTTP_THREADS: "2", ...env } as Record<string, string>);
  try {
    expect(await fetch(`${server.url}/health`).then((r) => r.status)).toBe(200);
    return heapVariableOf(server.proc.pid);
  } finally {
    await server.stop();
  }
}

describe.skipIf(!existsSync("/proc/self/environ"))("kontor serve's heap sizing", () => {
  test("started without the variable, the server (same pid, answering) runs with the server's heap size", async () => {
    // undefined removes it from the environment the test runner may have passed on
    expect(await serveWith("default", { [HEAP_RAM_ENV]: undefined })).toBe(String(512 * 1024 * 1024));
    expect(SERVER_HEAP_RAM_BYTES).toBe(512 * 1024 * 1024);
  }, 60_000);

  test("an operator's value is kept (0: the machine's RAM)", async () => {
    expect(await serveWith("operator", { [HEAP_RAM_ENV]: "0" })).toBe("0");
  }, 60_000);
});

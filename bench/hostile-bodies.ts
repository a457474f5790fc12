/**
 * Hostile bodies against the real `kontor serve` (issue 16, item 1): for each shape, the time
 * to answer and the server's memory, then what eight senders of the worst one do to another
 * organisation's `GET /customers`.
 *
 *   bun bench/hostile-bodies.ts [--rounds 20] [--seconds 3]
 */
import { readFileSync } from "node:fs";
import { startFreshServer } from "./fresh-server.ts";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => Number(argv[argv.indexOf(name) + 1] ?? fallback) || fallback;
const rounds = option("--rounds", 20);
const seconds = option("--seconds", 3);

const MIB = 1024 * 1024;
const SHAPES: Record<string, string> = {
  "20,000 arrays deep (40 kB)": `{"name":"x","notes":${"[".repeat(20_000)}${"]".repeat(20_000)}}`,
  "30,000 arrays deep (60 kB)": `{"name":"x","notes":${"[".repeat(30_000)}${"]".repeat(30_000)}}`,
  "1 MiB array of numbers": `{"name":"x","notes":[${"1,".repeat(MIB / 2 - 40)}1]}`,
  "1 MiB array of objects": `{"name":"x","notes":[${"{},".repeat(MIB / 3 - 40)}{}]}`,
  "1 MiB of keys": `{"name":"x",${Array.from({ length: 80_000 }, (_, i) => `"k${i}":1`).join(",")}}`.slice(0, MIB - 2) + "}",
  "1 MiB string": `{"name":"${"a".repeat(MIB - 20)}"}`,
  "31 levels, 1 MiB wide": `{"name":"x","notes":${"[".repeat(30)}${"1,".repeat(MIB / 2 - 100)}1${"]".repeat(30)}}`,
};

function rssKiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : 0;
}
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function main() {
  const server = await startFreshServer({}, { worker: false });
  const { url, pid } = server;
  const cli = (...args: string[]) => {
    const r = Bun.spawnSync(["bun", join(ROOT, "cli/main.ts"), ...args, "--db", server.dbPath, "--json"], { stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(r.stderr.toString());
    return JSON.parse(r.stdout.toString());
  };
  try {
    const viewer = await (
      await fetch(`${url}/api/v1/org-tokens`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "viewer", abilities: ["contacts.view"] }),
      })
    ).json() as { token: string };
    cli("org", "create", "--name", "Victim");
    const victim = cli("token", "create", "--org", "Victim", "--organisation", "--name", "victim", "--abilities", "contacts.view").token as string;
    const hostile = (body: string) =>
      fetch(`${url}/api/v1/customers`, { method: "POST", headers: { authorization: `Bearer ${viewer.token}`, "content-type": "application/json" }, body });

    console.log(`kontor serve at ${url}, pid ${pid}, RSS ${(rssKiB(pid, "VmRSS") / 1024).toFixed(0)} MB`);
    console.log(`\n| body | status | p50 ms | max ms | RSS growth MB | peak RSS MB |\n|---|---:|---:|---:|---:|---:|`);
    for (const [name, body] of Object.entries(SHAPES)) {
      const before = rssKiB(pid, "VmRSS");
      const times: number[] = [];
      let status = 0;
      for (let i = 0; i < rounds; i++) {
        const t0 = performance.now();
        const r = await hostile(body);
        await r.arrayBuffer();
        times.push(performance.now() - t0);
        status = r.status;
      }
      times.sort((a, b) => a - b);
      const grown = (rssKiB(pid, "VmRSS") - before) / 1024;
      console.log(
        `| ${name} | ${status} | ${quantile(times, 0.5).toFixed(1)} | ${times.at(-1)!.toFixed(1)} | ${grown.toFixed(1)} | ${(rssKiB(pid, "VmHWM") / 1024).toFixed(0)} |`,
      );
    }

    // eight senders of the deepest body, and another organisation reading its customers
    const worst = SHAPES["30,000 arrays deep (60 kB)"]!;
    const until = Date.now() + seconds * 1000;
    let sent = 0;
    const senders = Array.from({ length: 8 }, async () => {
      while (Date.now() < until) {
        await (await hostile(worst)).arrayBuffer();
        sent++;
      }
    });
    const waits: number[] = [];
    while (Date.now() < until) {
      const t0 = performance.now();
      await (await fetch(`${url}/api/v1/customers`, { headers: { authorization: `Bearer ${victim}` } })).arrayBuffer();
      waits.push(performance.now() - t0);
    }
    await Promise.all(senders);
    waits.sort((a, b) => a - b);
    console.log(
      `\n8 senders of 30,000-deep bodies for ${seconds} s (${sent} sent): another organisation's GET /customers ` +
        `p50 ${quantile(waits, 0.5).toFixed(1)} ms, p99 ${quantile(waits, 0.99).toFixed(1)} ms, max ${waits.at(-1)!.toFixed(1)} ms ` +
        `(${waits.length} reads); peak RSS ${(rssKiB(pid, "VmHWM") / 1024).toFixed(0)} MB`,
    );
  } finally {
    await server.stop();
  }
}

await main();

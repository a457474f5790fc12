/**
 * How busy the machine was while a benchmark ran, from /proc (Linux): the load average after an
 * idle pause, and the CPU time that processes other than the benchmark and what it started (its
 * servers, the load generator) used during a scenario. A benchmark run beside other work measures
 * that work as much as Kontor: a scenario during which others used more than
 * `MAX_OTHER_CPU_CORES` is marked invalid (docs/performance.md#reading-a-run).
 */
import { readdirSync, readFileSync } from "node:fs";

/** Cores' worth of CPU that other processes may use during a scenario before it is marked invalid. */
export const MAX_OTHER_CPU_CORES = 0.25;
/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every Linux architecture in use). */
const TICKS_PER_SECOND = 100;

/** The 1-minute load average, or null without /proc. */
export function loadAverage(): number | null {
  try {
    return Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
  } catch {
    return null;
  }
}

type CpuSnapshot = { at: number; busyTicks: number; processes: Map<number, { parent: number; ticks: number; command: string }> };

/** The machine's busy CPU ticks and every process's own (all its threads), now; null without /proc. */
export function cpuSnapshot(): CpuSnapshot | null {
  try {
    // cpu  user nice system idle iowait irq softirq steal …: busy is what processes ran (user,
    // nice, system); interrupts are left out, most of them the loopback traffic of the bench itself
    const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    const busyTicks = cpu[0]! + cpu[1]! + cpu[2]!;
    const processes = new Map<number, { parent: number; ticks: number; command: string }>();
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, "utf8");
        // the command name (field 2) may hold spaces and parentheses: the fields after its last ')'
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        const command = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
        processes.set(Number(name), { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]), command });
      } catch {
        // gone meanwhile
      }
    }
    return { at: performance.now(), busyTicks, processes };
  } catch {
    return null;
  }
}

/**
 * The database server's processes, part of what a run on PostgreSQL measures (bench/run.ts
 * --postgres): PostgreSQL's postmaster and backends, though they are not the bench's children.
 */
let databaseCommand: string | null = null;
export function countDatabaseAsOurs(command: string): void {
  databaseCommand = command;
}

/** The benchmark's own processes: this one and its descendants (servers, load generator), and the database server's when counted. */
function ours(snapshot: CpuSnapshot): Set<number> {
  const mine = new Set([process.pid]);
  if (databaseCommand !== null) for (const [pid, { command }] of snapshot.processes) if (command === databaseCommand) mine.add(pid);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, { parent }] of snapshot.processes) {
      if (!mine.has(pid) && mine.has(parent)) {
        mine.add(pid);
        grew = true;
      }
    }
  }
  return mine;
}

/** The CPU, in cores, that processes other than the benchmark's used between two snapshots. */
export function otherCpuCores(before: CpuSnapshot | null, after: CpuSnapshot | null): number | null {
  if (!before || !after) return null;
  const seconds = (after.at - before.at) / 1000;
  if (seconds <= 0) return null;
  let oursTicks = 0;
  for (const pid of ours(after)) oursTicks += after.processes.get(pid)!.ticks - (before.processes.get(pid)?.ticks ?? 0);
  const others = Math.max(0, after.busyTicks - before.busyTicks - oursTicks);
  return others / TICKS_PER_SECOND / seconds;
}

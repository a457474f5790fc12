/**
 * The heap size JavaScriptCore plans for, set for `kontor serve` before it loads anything.
 *
 * JavaScriptCore sizes its garbage collector from the machine's RAM (how far a heap may grow
 * between collections, how much garbage it lets pile up). On a machine with gigabytes to spare,
 * every thread of the server (each has its own heap) lets tens of megabytes of garbage pile up
 * under load before collecting. Told the machine has `SERVER_HEAP_RAM_BYTES`, the server peaks
 * 20–50 MB lower with two HTTP threads, for the same CPU time per request
 * (docs/performance.md#memory).
 *
 * The option is read once, from the environment, when the process starts (its threads share
 * it): so `kontor serve` started without it executes itself again, the same process (same pid,
 * arguments and standard streams), with it set. An operator's own value is kept; 0 means the
 * machine's RAM (JavaScriptCore's default).
 */
export const HEAP_RAM_ENV = "BUN_JSC_forceRAMSize";
export const SERVER_HEAP_RAM_BYTES = 512 * 1024 * 1024;

/** Returns only when the variable is already set (or the platform cannot exec): otherwise the process is replaced. */
export function execWithServerHeapSizing(): void {
  if (process.env[HEAP_RAM_ENV] !== undefined) return;
  if (typeof process.execve !== "function" || process.platform === "win32") return;
  // from source: bun [its flags] cli/main.ts serve …; compiled: the binary, whose argv[1] is its embedded entry point
  const compiled = Bun.main.startsWith("/$bunfs/");
  const args = compiled ? process.argv.slice(2) : [...process.execArgv, ...process.argv.slice(1)];
  process.execve(process.execPath, [process.execPath, ...args], { ...process.env, [HEAP_RAM_ENV]: String(SERVER_HEAP_RAM_BYTES) });
}

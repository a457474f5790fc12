/**
 * Kontor's log: one line per entry on stderr (stdout is the CLI's, where `--json` promises one
 * JSON document), as JSON for a log collector (`KONTOR_LOG_FORMAT=json`, the default outside
 * development) or as `time LEVEL message key=value…` for a person (`pretty`). Entries below
 * `KONTOR_LOG_LEVEL` are dropped before anything is formatted.
 *
 * What is logged is chosen by the callers, field by field: never a request or response body,
 * a token, a secret or a header's value (the request's own id excepted).
 */
import { LOG_LEVELS, type Config, type LogLevel } from "./config.ts";

export type LogFields = Record<string, string | number | boolean | null | undefined>;
export type LogMethod = (message: string, fields?: LogFields) => void;
export type Logger = { readonly [level in LogLevel]: LogMethod };

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Lines waiting for the end of this turn of the event loop, and whether their write is scheduled. */
let pending = "";
let scheduled = false;
/** What a turn's lines reach at once when they are this long, rather than waiting for the turn's end. */
const FLUSH_BYTES = 64 * 1024;

function flushStderr(): void {
  scheduled = false;
  if (pending === "") return;
  const out = pending;
  pending = "";
  process.stderr.write(out);
}
process.on("exit", flushStderr);

/**
 * stderr, written once per turn of the event loop: a request's log line is a system call of its
 * own otherwise, which cost a fifth of a small read's time. Warnings and errors are written at
 * once (with what waits before them), so the reason for a crash is never left in the buffer; a
 * process killed outright loses at most the info lines of its last turn.
 */
function writeStderr(line: string, urgent: boolean): void {
  pending += `${line}\n`;
  if (urgent || pending.length >= FLUSH_BYTES) flushStderr();
  else if (!scheduled) {
    scheduled = true;
    setImmediate(flushStderr);
  }
}

/** The time of an entry, formatted once per millisecond: a thread under load logs several lines in one. */
let formattedAt = -1;
let formatted = "";
function isoNow(): string {
  const now = Date.now();
  if (now !== formattedAt) {
    formattedAt = now;
    formatted = new Date(now).toISOString();
  }
  return formatted;
}

export function createLogger(
  { format, level }: { format: Config["logFormat"]; level: LogLevel },
  write: (line: string, urgent: boolean) => void = writeStderr,
): Logger {
  const method = (entryLevel: LogLevel): LogMethod => {
    if (RANK[entryLevel] < RANK[level]) return () => {};
    const urgent = RANK[entryLevel] >= RANK.warn;
    return (message, fields = {}) => {
      const time = isoNow();
      write(format === "json" ? JSON.stringify({ time, level: entryLevel, msg: message, ...fields }) : pretty(time, entryLevel, message, fields), urgent);
    };
  };
  return Object.fromEntries(LOG_LEVELS.map((l) => [l, method(l)])) as unknown as Logger;
}

/** The logger of `config`'s level and format. */
export const loggerFor = (config: Pick<Config, "logFormat" | "logLevel">) => createLogger({ format: config.logFormat, level: config.logLevel });

/** Writes nothing (tests that do not read the log). */
export const silentLogger: Logger = createLogger({ format: "json", level: "error" }, process.env.KONTOR_TEST_SHOW_ERRORS ? (line) => console.error(line) : () => {});

/**
 * `key=value`, a value quoted as a JSON string when it holds a space, a quote or a control
 * character, so that an error message cannot forge a line of its own in a terminal.
 */
function pretty(time: string, level: LogLevel, message: string, fields: LogFields): string {
  const parts = [time, level.toUpperCase().padEnd(5), safe(message)];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const text = String(value);
    parts.push(`${key}=${/^[^\s"=\\\u0000-\u001f\u007f-\u009f\u2028\u2029]+$/.test(text) ? text : JSON.stringify(text)}`);
  }
  return parts.join(" ");
}

const safe = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => JSON.stringify(c).slice(1, -1));

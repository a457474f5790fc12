import { hostname } from "node:os";

/** Wall clock with microseconds: ISO 8601 UTC, six fraction digits, trailing Z. */
let lastMicros = 0;
export function nowIso(): string {
  return isoFromMicros(nowMicros());
}

/** Strictly increasing within the process, so ordering by timestamp is stable. */
export function nowMicros(): number {
  let micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  if (micros <= lastMicros) micros = lastMicros + 1;
  lastMicros = micros;
  return micros;
}

/** The timestamp (as nowIso writes them) `days` whole days before `now` (epoch ms): a retention's cutoff. */
export function isoDaysBefore(now: number, days: number): string {
  return isoFromMicros((now - days * 86_400_000) * 1000);
}

/** Who holds a lease or ran a period: this host, this process, and a random part for each holder in it ("host:pid:1a2b3c4d"). */
export function holderTag(): string {
  return `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
}

export function isoFromMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const base = new Date(ms).toISOString(); // 2026-11-22T18:32:30.123Z
  return `${base.slice(0, 19)}.${String(micros % 1_000_000).padStart(6, "0")}Z`;
}

/** Converts any ISO timestamp accepted as input to the stored form, or null when invalid. */
export function normalizeTimestamp(input: string): string | null {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/.exec(input);
  if (!m) return null;
  const ms = Date.parse(
    `${m[1]}T${m[2] ?? "00"}:${m[3] ?? "00"}:${m[4] ?? "00"}${m[6] ?? "Z"}`.replace(/([+-]\d{2})(\d{2})$/, "$1:$2"),
  );
  if (Number.isNaN(ms)) return null;
  const fraction = (m[5] ?? "").padEnd(6, "0");
  return `${new Date(ms).toISOString().slice(0, 19)}.${fraction}Z`;
}

export function newId(): string {
  return Bun.randomUUIDv7();
}

/**
 * A real calendar date in YYYY-MM-DD form, in the years 1900–2999: everything dated is posted to
 * the ledger, whose fiscal years close in order (a posting in the year 0001 would leave two
 * thousand years to close).
 */
export function isValidDate(value: string): boolean {
  if (!/^(19|2\d)\d{2}-\d{2}-\d{2}$/.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** Whether `name` is a time zone Intl knows (an IANA name such as Europe/Brussels, or UTC). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The local date (YYYY-MM-DD) in `timeZone` at `at` (default now): an organisation's "today". */
export function localDate(timeZone: string, at: Date = new Date()): string {
  // en-CA formats dates as YYYY-MM-DD
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(at);
}

/** The local hour (0–23) in `timeZone` now. */
export function localHour(timeZone: string, at: Date = new Date()): number {
  return Number(new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", hourCycle: "h23" }).format(at));
}

/**
 * The runnable examples of README.md and docs/*.md (the convention is written down at the top of
 * docs/development.md): finding them, and running them one after the other with bash and the
 * real curl against a real `kontor serve`.
 *
 * - A fenced ```sh or ```bash block right after `<!-- run -->` (blank lines between allowed) is
 *   runnable; one after `<!-- no-run -->` is not. A sh/bash block that uses `$KONTOR` must carry
 *   one of the two, so an example cannot drop out of the test unnoticed.
 * - The blocks of one file run in order, in one session: the variables a block sets are there in
 *   the next ones, as in a terminal. `$KONTOR` is the server's URL and `$TOKEN` the token its first
 *   start printed.
 * - `# → NAME=.path` after a command: NAME is set, for what follows, to the value at `.path` of the
 *   JSON the command printed last (`.data.id`, `.data[0].id`, `.data[rate=21.00].id`: the first
 *   element whose field reads so). `# → .path: <JSON>` checks that value instead (`$NAME` in a
 *   string is the variable's value).
 * - curl fails on an HTTP status of 400 or more (`--fail-with-body`), except a command that prints
 *   its status itself (`-w`/`--write-out`): such a block documents an error on purpose.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..", "..");

export type Step =
  | { kind: "shell"; code: string; line: number }
  | { kind: "capture"; name: string; path: string; line: number }
  | { kind: "check"; path: string; expected: unknown; line: number };

export type Block = { file: string; line: number; language: string; code: string; run: boolean; marked: boolean; steps: Step[] };

const FENCE = /^```([\w-]*)\s*$/;
const CAPTURE = /^#\s*→\s*([A-Z][A-Z0-9_]*)=(\.\S*)\s*$/;
const CHECK = /^#\s*→\s*(\.\S*):\s*(.+?)\s*$/;

/** Every fenced block of a Markdown file, with its marker (`<!-- run -->`, `<!-- no-run -->`) if any. */
export function blocksOf(file: string, markdown: string): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && lines[end] !== "```") end++;
    if (end === lines.length) throw new Error(`${file}:${i + 1}: a code block that is never closed`);
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === "") before--;
    const marker = before >= 0 ? lines[before]!.trim() : "";
    const code = lines.slice(i + 1, end).join("\n");
    const language = open[1]!;
    const run = marker === "<!-- run -->";
    const block: Block = { file, line: i + 1, language, code, run, marked: run || marker === "<!-- no-run -->", steps: [] };
    if (run) block.steps = stepsOf(lines.slice(i + 1, end), i + 2);
    blocks.push(block);
    i = end;
  }
  return blocks;
}

/** A block's code cut into shell parts, each followed by the captures and checks of what it printed. */
function stepsOf(lines: string[], firstLine: number): Step[] {
  const steps: Step[] = [];
  let shell: string[] = [];
  let shellLine = firstLine;
  const flush = () => {
    if (shell.some((l) => l.trim() !== "" && !l.trim().startsWith("#"))) steps.push({ kind: "shell", code: shell.join("\n"), line: shellLine });
    shell = [];
  };
  lines.forEach((text, index) => {
    const line = firstLine + index;
    const capture = CAPTURE.exec(text.trim());
    const check = capture ? null : CHECK.exec(text.trim());
    if (!capture && !check) {
      if (shell.length === 0) shellLine = line;
      shell.push(text);
      return;
    }
    flush();
    if (steps.length === 0) throw new Error(`line ${line}: a "# →" line before any command`);
    if (capture) steps.push({ kind: "capture", name: capture[1]!, path: capture[2]!, line });
    else {
      let expected: unknown;
      try {
        expected = JSON.parse(check![2]!);
      } catch {
        throw new Error(`line ${line}: the value after "${check![1]}:" is not JSON: ${check![2]}`);
      }
      steps.push({ kind: "check", path: check![1]!, expected, line });
    }
  });
  flush();
  return steps;
}

/** `.data.id`, `.data[0].id`, `.data[rate=21.00].id`, `.` (the whole document). */
export function valueAt(document: unknown, path: string): unknown {
  if (path === ".") return document;
  const parts = path.match(/\.[\w-]+|\[\d+\]|\[[A-Za-z_]\w*=[^\]]*\]/g) ?? [];
  if (parts.join("") !== path) throw new Error(`the path ${path} is not of the form .key, [n] or [field=value]`);
  let value: any = document;
  for (const part of parts) {
    if (value === null || value === undefined) return undefined;
    if (part.startsWith(".")) value = value[part.slice(1)];
    else if (/^\[\d+\]$/.test(part)) value = Array.isArray(value) ? value[Number(part.slice(1, -1))] : undefined;
    else {
      const [field, wanted] = part.slice(1, -1).split(/=(.*)/s) as [string, string];
      value = Array.isArray(value) ? value.find((element) => element !== null && typeof element === "object" && String(element[field]) === wanted) : undefined;
    }
  }
  return value;
}

/**
 * The last JSON document a command printed: curl adds no newline, so two answers in a row read
 * `{…}{…}`, and `-w '\n%{http_code}'` puts the status after a body. The earliest point after a
 * `}`, `]` or newline from which the rest parses is where the last document starts.
 */
export function lastJson(stdout: string): unknown {
  const text = stdout.trim();
  for (let i = 0; i < text.length; i++) {
    if (i > 0 && !"}]\n".includes(text[i - 1]!)) continue;
    try {
      return JSON.parse(text.slice(i));
    } catch {
      // not from here
    }
  }
  throw new Error("no JSON");
}

const PRELUDE = `set -euo pipefail
set -a
# the documents' curl: an HTTP status >= 400 fails the command, unless it prints the status itself
curl() {
  local arg
  for arg in "$@"; do
    case "$arg" in -w|--write-out|--write-out=*|-w?*) command curl "$@"; return;; esac
  done
  command curl --fail-with-body "$@"
}
# the CLI of this checkout, on the server's database ($KONTOR_DB), as a self-hoster runs it beside the server
kontor() {
  bun ${JSON.stringify(join(ROOT, "cli/main.ts"))} "$@"
}
`;

const NOT_CARRIED = new Set(["_", "SHLVL", "PWD", "OLDPWD", "BASHOPTS", "SHELLOPTS"]);

/**
 * One terminal session for the blocks of one file: a working folder of its own (where `-o` files
 * go; `tests/` links to the checkout's, for the sample files the guides send), and the variables
 * the blocks set so far.
 */
export class Session {
  readonly dir = mkdtempSync(join(tmpdir(), "kontor-docs-"));
  private env: Record<string, string>;

  constructor(variables: Record<string, string>) {
    symlinkSync(join(ROOT, "tests"), join(this.dir, "tests"));
    this.env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? this.dir,
      LANG: "C.UTF-8",
      TMPDIR: tmpdir(),
      ...variables,
    };
  }

  /** Runs one runnable block: each shell part with bash, then the captures and checks of its output. */
  async run(block: Block): Promise<void> {
    let printed = "";
    let shellLine = block.line;
    for (const step of block.steps) {
      if (step.kind === "shell") {
        shellLine = step.line;
        printed = await this.shell(block, step.code, step.line);
        continue;
      }
      const where = `${block.file}:${step.line}`;
      let document: unknown;
      try {
        document = lastJson(printed);
      } catch {
        throw new Error(`${where}: the command at line ${shellLine} did not print JSON:\n${printed}`);
      }
      const value = valueAt(document, step.path);
      if (step.kind === "capture") {
        if (value === undefined || value === null || typeof value === "object") {
          throw new Error(`${where}: ${step.path} of the answer is ${JSON.stringify(value)}, not a value for ${step.name}:\n${printed}`);
        }
        this.env[step.name] = String(value);
        continue;
      }
      // a string may name the variables of the session: "$INVOICE_ID"
      const expected = typeof step.expected === "string" ? step.expected.replace(/\$([A-Z][A-Z0-9_]*)/g, (_, name: string) => this.env[name] ?? `$${name}`) : step.expected;
      if (!Bun.deepEquals(value, expected)) {
        throw new Error(`${where}: ${step.path} is ${JSON.stringify(value)}, the document says ${JSON.stringify(expected)}:\n${printed}`);
      }
    }
  }

  private async shell(block: Block, code: string, line: number): Promise<string> {
    const state = join(this.dir, ".state");
    const script = `${PRELUDE}\n${code}\nenv -0 > ${JSON.stringify(state)}\n`;
    const proc = Bun.spawn(["bash", "-c", script], { cwd: this.dir, env: this.env, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    if (exitCode !== 0) {
      throw new Error(`${block.file}:${line}: exit code ${exitCode}\n--- code\n${code}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
    }
    const carried: Record<string, string> = {};
    for (const entry of readFileSync(state, "utf8").split("\0")) {
      const at = entry.indexOf("=");
      if (at <= 0) continue;
      const name = entry.slice(0, at);
      if (!NOT_CARRIED.has(name) && !name.startsWith("BASH_FUNC_")) carried[name] = entry.slice(at + 1);
    }
    this.env = carried;
    return stdout;
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `kontor serve` as a process on a fresh database, its URL and the token its first start printed; `env` adds to its environment. */
export async function startKontor(env: Record<string, string> = {}): Promise<{ url: string; token: string; db: string; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "kontor-docs-db-"));
  const proc = Bun.spawn(
    ["bun", join(ROOT, "cli/main.ts"), "serve", "--db", join(dir, "kontor.db"), "--host", "127.0.0.1", "--port", "0", "--json", "--no-worker"],
    {
      cwd: dir,
      env: { ...process.env, KONTOR_ENV: "test", KONTOR_RATE_LIMIT: "1000000", ...env },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  let log = "";
  void (async () => {
    for await (const chunk of proc.stderr) log += new TextDecoder().decode(chunk);
  })().catch(() => {});
  const reader = proc.stdout.getReader();
  let out = "";
  let started: { url: string; bootstrap: { token: string } } | null = null;
  const deadline = Date.now() + 60_000;
  while (started === null) {
    const chunk = await Promise.race([reader.read(), proc.exited.then(() => null), Bun.sleep(Math.max(0, deadline - Date.now())).then(() => null)]);
    if (chunk === null || chunk.done) {
      proc.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`kontor serve did not start within 60 s:\n${out}\n${log}`);
    }
    out += new TextDecoder().decode(chunk.value);
    try {
      started = JSON.parse(out);
    } catch {
      // the JSON document is not complete yet
    }
  }
  reader.releaseLock();
  void proc.stdout.pipeTo(new WritableStream()).catch(() => {});
  const { url, bootstrap } = started as { url: string; bootstrap: { token: string } };
  return {
    url,
    token: bootstrap.token,
    db: join(dir, "kontor.db"),
    async stop() {
      proc.kill("SIGTERM");
      const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(15_000).then(() => false)]);
      if (!exited) proc.kill("SIGKILL");
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The change clock of a connection: one `mark()` whose value changes whenever anything may
 * have committed, in this connection or any other (another HTTP thread, the CLI, a worker
 * process). What is remembered from the database (resolved tokens, list counts, page cursors)
 * is valid only while the mark stays the same.
 */
import type { Database, Statement } from "bun:sqlite";
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";

/** The WAL-index header's first copy: a writer updates the second, then this one. */
const WAL_INDEX_HEADER_BYTES = 48;

/**
 * One descriptor per `-shm` file for the life of the thread, shared by its connections and never
 * closed: SQLite's locks on that file are POSIX locks, which belong to the process, and closing
 * any descriptor of the file drops every one of them, those of every other connection included.
 * So it cannot belong to a connection: it outlives them.
 */
const walIndexFiles = new Map<string, number>();

export class ChangeClock {
  readonly #client: Database;
  #version: Statement<{ v: string }, []> | null = null;
  /** undefined: not looked for yet; null: none (":memory:", a database not in WAL mode) */
  #header: { fd: number; bytes: Buffer } | null | undefined = undefined;

  constructor(client: Database) {
    this.#client = client;
  }

  /**
   * Outside a transaction, the WAL-index header at the start of the `-shm` file
   * (https://sqlite.org/walformat.html), which every commit of every connection and process
   * rewrites; every SQLite version that opens the database shares that file, so its format is
   * fixed. Reading it is one pread, where a read transaction of its own takes shared-memory locks
   * the HTTP threads contend for. Inside a transaction (whose snapshot may be older than the
   * file), and without a `-shm`, it is the snapshot's version (`version()`).
   *
   * Read it before what it vouches for: a commit landing between the two only makes the
   * remembered value newer than its mark, never older.
   */
  mark(): string {
    if (this.#header === undefined) this.#header = openWalIndexHeader(this.#client);
    if (this.#header === null || this.#client.inTransaction) return this.version();
    readSync(this.#header.fd, this.#header.bytes, 0, WAL_INDEX_HEADER_BYTES, 0);
    return this.#header.bytes.toString("latin1");
  }

  /**
   * `total_changes()` moves on every write of this connection, `PRAGMA data_version` on every
   * commit of another one. Costs a read transaction when none is open.
   */
  version(): string {
    this.#version ??= this.#client.prepare<{ v: string }, []>("SELECT total_changes() || ':' || (SELECT data_version FROM pragma_data_version) AS v");
    return this.#version.get()!.v;
  }
}

function openWalIndexHeader(client: Database): { fd: number; bytes: Buffer } | null {
  const mode = client.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode;
  // the path SQLite itself opened: absolute, links resolved ("" for an in-memory database)
  const file = client.query<{ file: string }, []>("SELECT file FROM pragma_database_list WHERE name = 'main'").get()?.file ?? "";
  if (mode !== "wal" || file === "") return null;
  const path = `${file}-shm`;
  try {
    let fd = walIndexFiles.get(path);
    // SQLite deletes the file with the last connection of the process; a descriptor of the old
    // one holds no lock of anyone's and is closed
    if (fd !== undefined && fstatSync(fd).ino !== statSync(path).ino) {
      closeSync(fd);
      fd = undefined;
    }
    if (fd === undefined) walIndexFiles.set(path, (fd = openSync(path, "r")));
    return { fd, bytes: Buffer.alloc(WAL_INDEX_HEADER_BYTES) };
  } catch {
    return null;
  }
}

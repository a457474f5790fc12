/**
 * Units of work (docs/architecture.md#units-of-work): on one SQLite connection they take turns,
 * on PostgreSQL writes take turns through the write lock; on either a nested one is a savepoint,
 * a refused one leaves nothing, and a callback a unit left behind is not taken for part of it
 * once it has ended.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, preparedSql, snapshot, unitOfWork, type Db, type Tx } from "../../db/client.ts";
import { openPostgres } from "../../db/postgres/connection.ts";
import { freshPostgresDatabase } from "../postgres-database.ts";
import { onPostgres, rawSql } from "../raw-sql.ts";

const dir = mkdtempSync(join(tmpdir(), "kontor-uow-"));
// a database of its own: a SQLite file, or a fresh PostgreSQL database
const postgres = onPostgres ? await freshPostgresDatabase() : null;
const db = postgres === null ? openDatabase(join(dir, "units.db")) : openPostgres(postgres.url);
await rawSql(db).run(postgres === null ? "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)" : "CREATE TABLE notes (id serial PRIMARY KEY, text text NOT NULL)");
afterAll(async () => {
  await db.connection.close();
  await postgres?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** The unit's own statements (on PostgreSQL its pooled connection's). */
const sqlOf = (tx: Tx) => rawSql(tx as unknown as Db);
const insert = async (tx: Tx, text: string) => {
  await sqlOf(tx).run("INSERT INTO notes (text) VALUES (?)", text);
};
const texts = async (tx: Tx) => (await sqlOf(tx).all<{ text: string }>("SELECT text FROM notes ORDER BY id")).map((r) => r.text);
const clear = () => unitOfWork(db, async (tx) => void (await sqlOf(tx).run("DELETE FROM notes")));
/** SQLite: the connection is out of every transaction once the units have ended. */
const noTransactionLeftOpen = () => {
  if (!onPostgres) expect(db.$client.inTransaction).toBe(false);
};
/** a pause that lets every other task of the thread run (what an await inside a command may do) */
const yieldToOthers = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("units take turns", () => {
  test("a unit started while another waits inside its transaction runs after it has committed, and reads what it committed", async () => {
    await clear();
    const order: string[] = [];
    const first = unitOfWork(db, async (tx) => {
      order.push("first begins");
      await insert(tx, "a");
      await yieldToOthers();
      await insert(tx, "b");
      order.push("first ends");
    });
    const second = snapshot(db, (tx) => {
      order.push("second reads");
      return texts(tx);
    });
    const [, seen] = await Promise.all([first, second]);
    if (onPostgres) {
      // PostgreSQL's reads wait for no write (each unit has a pooled connection of its own): all of the first or nothing of it
      expect([[], ["a", "b"]]).toContainEqual(seen);
      return;
    }
    expect(order).toEqual(["first begins", "first ends", "second reads"]);
    // all of the first or nothing of it: here, all
    expect(seen).toEqual(["a", "b"]);
  });

  test("three writers at once: each unit's rows stay together, in the order the units asked", async () => {
    await clear();
    const writer = (name: string) =>
      unitOfWork(db, async (tx) => {
        for (let i = 0; i < 3; i++) {
          await insert(tx, `${name}${i}`);
          await yieldToOthers();
        }
      });
    await Promise.all([writer("x"), writer("y"), writer("z")]);
    const seen = await snapshot(db, texts);
    if (onPostgres) {
      // the write lock makes them take turns, in the order each gets it
      const groups = [seen.slice(0, 3), seen.slice(3, 6), seen.slice(6)];
      for (const group of groups) expect(group).toEqual([0, 1, 2].map((i) => `${group[0]![0]}${i}`));
      expect(groups.map((group) => group[0]![0]).sort()).toEqual(["x", "y", "z"]);
      return;
    }
    expect(seen).toEqual(["x0", "x1", "x2", "y0", "y1", "y2", "z0", "z1", "z2"]);
  });

  test("a refused unit stores nothing, and the next unit runs", async () => {
    await clear();
    const refused = unitOfWork(db, async (tx) => {
      await insert(tx, "half");
      await yieldToOthers();
      throw new Error("refused");
    });
    const next = unitOfWork(db, (tx) => insert(tx, "next"));
    await expect(refused).rejects.toThrow("refused");
    await next;
    expect(await snapshot(db, texts)).toEqual(["next"]);
    noTransactionLeftOpen();
  });
});

describe("a unit inside a unit", () => {
  test("is a savepoint: a refused inner command rolls back alone, the outer one commits", async () => {
    await clear();
    await unitOfWork(db, async (tx) => {
      await insert(tx, "outer");
      await expect(
        unitOfWork(db, async (inner) => {
          await insert(inner, "inner");
          await yieldToOthers();
          throw new Error("inner refused");
        }),
      ).rejects.toThrow("inner refused");
      await unitOfWork(db, (inner) => insert(inner, "kept"));
    });
    expect(await snapshot(db, texts)).toEqual(["outer", "kept"]);
  });

  test("a refused outer unit takes its committed savepoints with it", async () => {
    await clear();
    await expect(
      unitOfWork(db, async (tx) => {
        await unitOfWork(db, (inner) => insert(inner, "inner"));
        await insert(tx, "outer");
        throw new Error("outer refused");
      }),
    ).rejects.toThrow("outer refused");
    expect(await snapshot(db, texts)).toEqual([]);
  });

  test("a callback a unit left behind runs as a unit of its own once the unit has ended", async () => {
    await clear();
    let later: Promise<void> | null = null;
    await unitOfWork(db, async (tx) => {
      await insert(tx, "unit");
      // not awaited: it runs after the unit committed, and must not take itself for a savepoint of it
      later = new Promise<void>((resolve) => setTimeout(resolve, 20)).then(() => unitOfWork(db, async (t) => await insert(t, "later")));
    });
    await later;
    noTransactionLeftOpen();
    expect(await snapshot(db, texts)).toEqual(["unit", "later"]);
  });

  test("a callback a unit left behind, running while another unit is open, waits for it instead of joining it", async () => {
    await clear();
    let later: Promise<void> | null = null;
    await unitOfWork(db, async (tx) => {
      await insert(tx, "first");
      later = new Promise<void>((resolve) => setTimeout(resolve, 10)).then(() => unitOfWork(db, async (t) => await insert(t, "later")));
    });
    // open while the callback fires, then refused: had the callback joined it, its row would go too
    await expect(
      unitOfWork(db, async (tx) => {
        await insert(tx, "refused");
        await new Promise((resolve) => setTimeout(resolve, 40));
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    await later;
    expect(await snapshot(db, texts)).toEqual(["first", "later"]);
  });
});

describe("what waits for a unit's end", () => {
  test("the outbox worker is woken once the unit that queued deliveries has committed, not while it is open", async () => {
    let woken = 0;
    const stop = db.connection.outbox.subscribe(() => woken++);
    let wokenInside = -1;
    await unitOfWork(db, async (tx) => {
      tx.connection.outbox.queued();
      // every other task of the thread runs meanwhile: a worker woken now would find nothing committed
      await yieldToOthers();
      wokenInside = woken;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    stop();
    expect([wokenInside, woken]).toEqual([0, 1]);
  });
});

describe.skipIf(!onPostgres)("a unit on PostgreSQL", () => {
  test("a statement kept by the connection runs in the unit of the moment: it sees that unit's writes, and none after a rollback", async () => {
    const count = (tx: Tx) => preparedSql<{ n: number }, []>(tx, "test: notes counted", "SELECT count(*) AS n FROM notes");
    await clear();
    // kept by a first unit that ended long before the others use it
    expect(await snapshot(db, async (tx) => (await count(tx).get())!.n)).toBe(0);
    await expect(
      unitOfWork(db, async (tx) => {
        await insert(tx, "not kept");
        expect((await count(tx).get())!.n).toBe(1);
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect(await snapshot(db, async (tx) => (await count(tx).get())!.n)).toBe(0);
    // and in a savepoint of a unit, the savepoint's
    await unitOfWork(db, async (tx) => {
      await insert(tx, "outer");
      await unitOfWork(db, async (inner) => {
        await insert(inner, "inner");
        expect((await count(inner).get())!.n).toBe(2);
      });
    });
    expect(await snapshot(db, async (tx) => (await count(tx).get())!.n)).toBe(2);
  });

  const isolation = async (tx: Tx) => (await sqlOf(tx).all<{ level: string }>("SELECT current_setting('transaction_isolation') AS level"))[0]!.level;
  test("a read is REPEATABLE READ from its BEGIN; a write is READ COMMITTED behind the write lock; each unit begins as its kind says, whatever ran before", async () => {
    expect(await snapshot(db, isolation)).toBe("repeatable read");
    expect(await unitOfWork(db, isolation)).toBe("read committed");
    // side by side, started in the same turn
    expect(await Promise.all([snapshot(db, isolation), unitOfWork(db, isolation), snapshot(db, isolation), unitOfWork(db, isolation)])).toEqual([
      "repeatable read",
      "read committed",
      "repeatable read",
      "read committed",
    ]);
    // a read sees one state: what another connection commits meanwhile is not in it
    const other = openPostgres(postgres!.url, { max: 1 });
    try {
      await clear();
      const seen = await snapshot(db, async (tx) => {
        const before = await texts(tx);
        await unitOfWork(other, (otx) => insert(otx, "committed meanwhile"));
        return [before, await texts(tx)];
      });
      expect(seen).toEqual([[], []]);
      expect(await snapshot(db, texts)).toEqual(["committed meanwhile"]);
    } finally {
      await other.connection.close();
    }
  });
});

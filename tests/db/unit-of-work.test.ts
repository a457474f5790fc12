/**
 * Units of work on one SQLite connection (docs/architecture.md#units-of-work): they take turns,
 * a nested one is a savepoint, a refused one leaves nothing, and a callback a unit left behind is
 * not taken for part of it once it has ended.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, snapshot, unitOfWork, type Tx } from "../../db/client.ts";

const dir = mkdtempSync(join(tmpdir(), "kontor-uow-"));
const db = openDatabase(join(dir, "units.db"));
db.$client.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)");
afterAll(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert = (tx: Tx, text: string) => tx.$client.run("INSERT INTO notes (text) VALUES (?)", [text]);
const texts = (tx: Tx) => tx.$client.query<{ text: string }, []>("SELECT text FROM notes ORDER BY id").all().map((r) => r.text);
const clear = () => unitOfWork(db, (tx) => void tx.$client.run("DELETE FROM notes"));
/** a pause that lets every other task of the thread run (what an await inside a command may do) */
const yieldToOthers = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("units of one connection take turns", () => {
  test("a unit started while another waits inside its transaction runs after it has committed, and reads what it committed", async () => {
    await clear();
    const order: string[] = [];
    const first = unitOfWork(db, async (tx) => {
      order.push("first begins");
      insert(tx, "a");
      await yieldToOthers();
      insert(tx, "b");
      order.push("first ends");
    });
    const second = snapshot(db, (tx) => {
      order.push("second reads");
      return texts(tx);
    });
    const [, seen] = await Promise.all([first, second]);
    expect(order).toEqual(["first begins", "first ends", "second reads"]);
    // all of the first or nothing of it: here, all
    expect(seen).toEqual(["a", "b"]);
  });

  test("three writers at once: each unit's rows stay together, in the order the units asked", async () => {
    await clear();
    const writer = (name: string) =>
      unitOfWork(db, async (tx) => {
        for (let i = 0; i < 3; i++) {
          insert(tx, `${name}${i}`);
          await yieldToOthers();
        }
      });
    await Promise.all([writer("x"), writer("y"), writer("z")]);
    expect(await snapshot(db, texts)).toEqual(["x0", "x1", "x2", "y0", "y1", "y2", "z0", "z1", "z2"]);
  });

  test("a refused unit stores nothing, and the next unit runs", async () => {
    await clear();
    const refused = unitOfWork(db, async (tx) => {
      insert(tx, "half");
      await yieldToOthers();
      throw new Error("refused");
    });
    const next = unitOfWork(db, (tx) => insert(tx, "next"));
    await expect(refused).rejects.toThrow("refused");
    await next;
    expect(await snapshot(db, texts)).toEqual(["next"]);
    expect(db.$client.inTransaction).toBe(false);
  });
});

describe("a unit inside a unit", () => {
  test("is a savepoint: a refused inner command rolls back alone, the outer one commits", async () => {
    await clear();
    await unitOfWork(db, async (tx) => {
      insert(tx, "outer");
      await expect(
        unitOfWork(db, async (inner) => {
          insert(inner, "inner");
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
        insert(tx, "outer");
        throw new Error("outer refused");
      }),
    ).rejects.toThrow("outer refused");
    expect(await snapshot(db, texts)).toEqual([]);
  });

  test("a callback a unit left behind runs as a unit of its own once the unit has ended", async () => {
    await clear();
    let later: Promise<void> | null = null;
    await unitOfWork(db, (tx) => {
      insert(tx, "unit");
      // not awaited: it runs after the unit committed, and must not take itself for a savepoint of it
      later = new Promise<void>((resolve) => setTimeout(resolve, 20)).then(() => unitOfWork(db, (t) => void insert(t, "later")));
    });
    await later;
    expect(db.$client.inTransaction).toBe(false);
    expect(await snapshot(db, texts)).toEqual(["unit", "later"]);
  });

  test("a callback a unit left behind, running while another unit is open, waits for it instead of joining it", async () => {
    await clear();
    let later: Promise<void> | null = null;
    await unitOfWork(db, (tx) => {
      insert(tx, "first");
      later = new Promise<void>((resolve) => setTimeout(resolve, 10)).then(() => unitOfWork(db, (t) => void insert(t, "later")));
    });
    // open while the callback fires, then refused: had the callback joined it, its row would go too
    await expect(
      unitOfWork(db, async (tx) => {
        insert(tx, "refused");
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

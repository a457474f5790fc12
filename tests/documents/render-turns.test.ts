/** RenderTurns (server/documents/service.ts): PDFs one at a time per thread, other work let through between two. */
import { expect, test } from "bun:test";
import { RenderTurns } from "../../server/lib/render-turns.ts";

test("renders never overlap, run in order, and what came in meanwhile runs between two of them", async () => {
  const turns = new RenderTurns();
  const events: string[] = [];
  let inside = 0;
  const render = (name: string) =>
    turns.run(async () => {
      expect(++inside).toBe(1);
      events.push(`start ${name}`);
      // pdf-lib yields between batches of objects while it writes
      await Bun.sleep(5);
      await Bun.sleep(5);
      events.push(`end ${name}`);
      // a request that came in during this render: it must not wait for the renders queued behind
      if (name === "a") setImmediate(() => events.push("read"));
      inside--;
      return name;
    });
  expect(await Promise.all([render("a"), render("b"), render("c")])).toEqual(["a", "b", "c"]);
  expect(events.indexOf("read")).toBeLessThan(events.indexOf("start b"));
  expect(events.filter((e) => e.startsWith("start"))).toEqual(["start a", "start b", "start c"]);
  // a failing render hands its turn on
  await expect(turns.run(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
  expect(await turns.run(async () => "after")).toBe("after");
});

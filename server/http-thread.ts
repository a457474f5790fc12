/**
 * An HTTP thread of `kontor serve` (server/serve.ts): the same app on its own connection,
 * listening on the server's port beside the others.
 */
import "./http/elysia-production.ts";
import { openDatabase, type Db } from "../db/client.ts";
import { createApp } from "./app.ts";
import { SecretBox } from "./lib/secret-box.ts";
import { listen, type ThreadMessage, type ThreadSetup } from "./serve.ts";

declare const self: Worker;

let stop: (() => Promise<void>) | null = null;
const answer = (message: ThreadMessage) => self.postMessage(message);

self.addEventListener("message", async (event: MessageEvent<{ type: "start"; setup: ThreadSetup } | { type: "stop" }>) => {
  if (event.data.type === "start") {
    const { config, rateLimitMemory, writeTurns, cacheKiB, secretKey } = event.data.setup;
    let db: Db | null = null;
    try {
      db = openDatabase(config.dbPath, { cacheKiB });
      db.connection.transactions.shareWriteTurns(writeTurns);
      const server = listen(createApp({ db, config, rateLimitMemory, secrets: new SecretBox(secretKey) }), config);
      const opened = db;
      stop = async () => {
        await server.stop();
        opened.$client.close();
      };
      answer({ type: "listening" });
    } catch (error) {
      db?.$client.close();
      answer({ type: "failed", message: error instanceof Error ? error.message : String(error) });
    }
  } else {
    await stop?.();
    answer({ type: "stopped" });
  }
});

/** Placeholder until the webhook worker lands (issue 6): deliveries stay queued in the outbox. */
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";

export type Worker = { stop: () => Promise<void> };

export function startWorker(_db: Db, _config: Config): Worker {
  return { stop: async () => {} };
}

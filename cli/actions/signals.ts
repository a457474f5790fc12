import { printError } from "../output.ts";

/** SIGTERM/SIGINT: stop claiming work, let what is in flight finish, then exit. */
export function stopOnSignal(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = async () => {
    if (stopping) return;
    stopping = true;
    await stop()
      .catch((error) => printError(`error during shutdown: ${error}`))
      .finally(() => process.exit(0));
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
}

/**
 * What runs beside the API, in `kontor serve` (unless --no-worker) and alone in `kontor worker`:
 * the outbox worker with its two channels (webhooks; documents by e-mail and Peppol), the events'
 * retention, the poll of the organisations' Peppol inboxes, the daily run of recurring invoices (which catches up at
 * start) and the reminder runs (hourly for each organisation past 06:00 local). One place starts and stops them, so the two commands cannot drift apart.
 */
import { Cron } from "croner";
import { startRecurringSchedule } from "./recurring/run.ts";
import { renderReminderForDelivery } from "./reminders/read.ts";
import { onReminderAccepted } from "./reminders/run.ts";
import { startReminderSchedule } from "./reminders/schedule.ts";
import type { Runtime } from "./runtime.ts";
import { pollPeppolInbox } from "./sending/peppol/inbox.ts";
import { startRetention } from "./changes/retention.ts";
import { startOutboxWorker } from "./outbox/worker.ts";
import { documentChannel, type DeliveryWorkerOptions } from "./sending/worker.ts";
import { webhookChannel, type WorkerOptions } from "./webhooks/worker.ts";

export type Background = { stop: () => Promise<void> };

export type BackgroundOptions = {
  onWebhookAttempt?: WorkerOptions["onAttempt"];
  /** tests only (KONTOR_TEST_DELIVERY_PAUSE_MS): see DeliveryWorkerOptions.pauseBeforeRecordMs */
  deliveryPauseBeforeRecordMs?: number;
};

export async function startBackground(runtime: Runtime, options: BackgroundOptions = {}): Promise<Background> {
  const { db, config, secrets } = runtime;
  const log = (line: string) => runtime.log.warn(line);
  const webhooks = await webhookChannel(db, config, { secrets, log, onAttempt: options.onWebhookAttempt });
  const deliveryOptions: DeliveryWorkerOptions = {
    secrets,
    log,
    // reminders are sent as documents are: the reminders feature renders them and hears of their acceptance
    renderReminder: renderReminderForDelivery,
    onReminderAccepted,
    pauseBeforeRecordMs: options.deliveryPauseBeforeRecordMs ?? testPause(),
  };
  const outbox = startOutboxWorker(db, [webhooks, documentChannel(db, config, deliveryOptions)], { log });
  const retention = startRetention(db, config, runtime.log);
  // received Peppol documents become pending expenses: every 5 minutes (protect: a slow access point's poll is not run twice at once)
  const peppolInbox = new Cron("30 */5 * * * *", { protect: true }, async () => {
    try {
      await pollPeppolInbox({ db, secrets, log: runtime.log, timeoutMs: config.deliveryTimeoutMs });
    } catch (error) {
      log(`[kontor] peppol inbox poll failed (the next one tries again): ${(error as Error).message}`);
    }
  });
  const recurring = startRecurringSchedule(db, runtime.log);
  const reminderRuns = startReminderSchedule(db, runtime.log);
  return {
    async stop() {
      peppolInbox.stop();
      await Promise.allSettled([outbox.stop(), retention.stop(), recurring.stop(), reminderRuns.stop()]);
    },
  };
}

/** The crash test's hook: a pause between a channel's answer and its record, only when a test sets it. */
function testPause(): number | undefined {
  const value = Number(process.env.KONTOR_TEST_DELIVERY_PAUSE_MS);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

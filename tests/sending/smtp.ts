/**
 * A real SMTP server on 127.0.0.1 for the sending tests (smtp-server, the server half of
 * nodemailer's project): it records every message it accepts, raw and parsed (mailparser), and
 * answers as a test scripts it: a temporary 4xx for the next messages, 550 for a recipient.
 */
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";

export type TestSmtp = {
  port: number;
  url: string;
  /** accepted messages, parsed, in arrival order */
  messages: ParsedMail[];
  /** answer the next DATA commands with these codes instead of 250 (e.g. [451]) */
  refuseNext: (codes: number[]) => void;
  /** resolves once `n` messages were accepted (or rejects after `timeoutMs`) */
  received: (n: number, timeoutMs?: number) => Promise<ParsedMail[]>;
  close: () => Promise<void>;
};

/** Recipients whose local part starts with "unknown" are refused with 550 at RCPT TO. */
export async function startSmtp(options: Partial<SMTPServerOptions> = {}): Promise<TestSmtp> {
  const messages: ParsedMail[] = [];
  const refusals: number[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith("unknown")) {
        const error = new Error(`5.1.1 <${address.address}>: Recipient address rejected: User unknown`) as Error & { responseCode: number };
        error.responseCode = 550;
        return callback(error);
      }
      callback();
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", async () => {
        const code = refusals.shift();
        if (code !== undefined) {
          const error = new Error("4.3.0 Mailbox temporarily unavailable, try again later") as Error & { responseCode: number };
          error.responseCode = code;
          return callback(error);
        }
        messages.push(await simpleParser(Buffer.concat(chunks)));
        for (const wake of waiters) wake();
        callback(null, "2.0.0 Ok: queued");
      });
    },
    ...options,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    refuseNext: (codes) => refusals.push(...codes),
    received: (n, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (messages.length < n) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(messages);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`expected ${n} message(s), got ${messages.length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

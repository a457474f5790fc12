/**
 * The e-mail channel (docs/sending.md#e-mail): SMTP through nodemailer, a well-kept implementation of the
 * protocol (STARTTLS, AUTH mechanisms, pipelining, 8BITMIME, MIME encoding of attachments) that
 * we would otherwise get subtly wrong.
 *
 * Credentials travel over TLS only: a URL with a user name either is `smtps://` (implicit TLS) or
 * requires STARTTLS (`requireTLS`), so a server that offers no STARTTLS is refused before AUTH
 * and the delivery fails with that said. An answer of the server is classified as the protocol
 * means it: 4xx and a connection that could not be made or timed out are temporary (retried),
 * 5xx is permanent (the delivery fails at once, with the server's answer).
 */
import nodemailer from "nodemailer";
import type { ChannelResult, OutgoingFile } from "./channel.ts";

/** Where and as whom e-mail is sent: the server's transport or an organisation's own. */
export type MailTransport = { url: string; from: string };

export type MailMessage = {
  fromName: string;
  replyTo: string | null;
  to: string[];
  cc: string[];
  subject: string;
  text: string;
  attachments: OutgoingFile[];
  /** the delivery's id: the Message-ID's left part, so the same delivery sent twice carries the same id */
  deliveryId: string;
};

/** nodemailer's options for a transport URL; exported for the tests of the TLS rule. */
export function transportOptions(url: string, timeoutMs: number) {
  const parsed = new URL(url);
  const secure = parsed.protocol === "smtps:";
  const user = decodeURIComponent(parsed.username);
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
    secure,
    // with credentials, STARTTLS is required (never AUTH in clear); without, it is used when offered
    requireTLS: !secure && user !== "",
    auth: user !== "" ? { user, pass: decodeURIComponent(parsed.password) } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    // one message per connection: a worker sends few, and a pooled connection could outlive a changed URL
    pool: false,
  };
}

/** Node's and nodemailer's codes of a connection that was not made or broke: worth another try. */
const TEMPORARY_CODES = new Set(["ECONNECTION", "ETIMEDOUT", "ESOCKET", "EDNS", "ECONNREFUSED", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "EPIPE"]);

type SmtpError = Error & { code?: string; responseCode?: number; response?: string; command?: string };

/** What an SMTP failure means for the delivery. */
export function classifySmtpError(error: unknown): ChannelResult {
  const e = error as SmtpError;
  const detail = (e.response ?? e.message ?? String(error)).trim();
  // before the code's class: a server that does not know STARTTLS answers it with a 5xx
  if (e.code === "ETLS" || e.command === "STARTTLS") {
    return { outcome: "failed", detail: `The SMTP server offers no STARTTLS, and Kontor sends credentials only over TLS (use smtps:// or a server with STARTTLS): ${detail}` };
  }
  if (typeof e.responseCode === "number") {
    if (e.responseCode >= 400 && e.responseCode < 500) return { outcome: "retry", detail };
    if (e.responseCode >= 500) return { outcome: "failed", detail };
  }
  if (e.code === "EAUTH") return { outcome: "failed", detail: `The SMTP server refused the credentials: ${detail}` };
  if (e.code !== undefined && TEMPORARY_CODES.has(e.code)) return { outcome: "retry", detail: `${e.code}: ${detail}` };
  // anything else (a malformed address nodemailer refused, …) will not get better by itself
  return { outcome: "failed", detail };
}

export async function sendEmail(transport: MailTransport, message: MailMessage, timeoutMs: number): Promise<ChannelResult> {
  const mailer = nodemailer.createTransport(transportOptions(transport.url, timeoutMs));
  const domain = transport.from.split("@")[1] ?? "kontor.invalid";
  try {
    const info = await mailer.sendMail({
      from: { name: message.fromName, address: transport.from },
      replyTo: message.replyTo ?? undefined,
      to: message.to,
      cc: message.cc.length > 0 ? message.cc : undefined,
      subject: message.subject,
      text: message.text,
      messageId: `<${message.deliveryId}@${domain}>`,
      attachments: message.attachments.map((file) => ({ filename: file.filename, content: Buffer.from(file.content), contentType: file.contentType })),
    });
    // a server may accept some recipients and refuse others: a refused one is that recipient's failure, said as such
    if (info.rejected.length > 0 && info.accepted.length === 0) return { outcome: "failed", detail: `${info.response} (refused: ${info.rejected.join(", ")})` };
    const refused = info.rejected.length > 0 ? ` (refused: ${info.rejected.join(", ")})` : "";
    return { outcome: "accepted", detail: `${info.response}${refused}`, providerReference: info.messageId };
  } catch (error) {
    return classifySmtpError(error);
  } finally {
    mailer.close();
  }
}

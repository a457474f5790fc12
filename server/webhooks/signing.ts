/**
 * Webhook secrets and the two signatures every attempt carries (docs/webhooks.md#verifying-a-delivery).
 *
 * A secret is `whsec_` followed by 44 characters encoding 33 random bytes (264 bits). Only
 * encodings without `+` and `/` are kept, so the text reads the same in base64 and base64url
 * (the secret is documented as base64url; the Standard Webhooks libraries decode plain base64) and
 * every decoder yields the same bytes. The two signatures use the secret differently:
 *
 * - `X-Webhook-Signature`: hex HMAC-SHA256 of the raw body, keyed with the
 *   secret exactly as shown, `whsec_` included (its UTF-8 bytes);
 * - `webhook-signature` (Standard Webhooks): `v1,` + base64 HMAC-SHA256 of
 *   `"<webhook-id>.<webhook-timestamp>.<body>"`, keyed with the 33 bytes that the text after
 *   `whsec_` decodes to. This is what `new Webhook(secret)` of the `standardwebhooks` package does.
 */
import { createHmac, randomBytes } from "node:crypto";

const SECRET_PREFIX = "whsec_";
/** A multiple of 3, so the encoding has no `=` padding. */
const SECRET_BYTES = 33;

export function generateSecret(): string {
  // about one draw in four qualifies; the kept characters are uniform over 62 symbols
  for (;;) {
    const encoded = randomBytes(SECRET_BYTES).toString("base64");
    if (!/[+/]/.test(encoded)) return SECRET_PREFIX + encoded;
  }
}

/** The Standard Webhooks key: the bytes the text after `whsec_` decodes to. */
export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
}

export type SignatureHeaders = {
  "x-webhook-signature": string;
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

/** Signs one attempt: the timestamp is the attempt's own, so receivers can refuse old replays. */
export function signatureHeaders(secret: string, messageId: string, body: string, timestampSeconds: number): SignatureHeaders {
  const signed = `${messageId}.${timestampSeconds}.${body}`;
  return {
    "x-webhook-signature": createHmac("sha256", secret).update(body).digest("hex"),
    "webhook-id": messageId,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": `v1,${createHmac("sha256", standardWebhooksKey(secret)).update(signed).digest("base64")}`,
  };
}

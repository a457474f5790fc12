/**
 * List cursors are sealed with AES-256-GCM under a key of the database (`server_keys`, made by the
 * migration that created it, never shown): a client can neither read what a cursor carries (its
 * sort key is a row's value, a customer's name in a proxy's log) nor make one up or edit one; a
 * cursor opens only for the list and organisation it was made for (docs/api.md#cursors-and-incremental-sync).
 */
import { createCipheriv, createDecipheriv, createHmac } from "node:crypto";
import { eq } from "drizzle-orm";
import { firstRow, type Tx } from "../../db/client.ts";
import { serverKeys } from "../../db/schema.ts";
import { ValidationFailed } from "./errors.ts";

const IV_BYTES = 12;
const TAG_BYTES = 16;

const CURSOR_KEY = "lists: cursor key";

/** The database's cursor key, read once per connection (kept once read: a failed read is tried again). */
async function cursorKey(tx: Tx): Promise<Buffer> {
  const kept = tx.connection.statements.get(CURSOR_KEY) as Buffer | undefined;
  if (kept) return kept;
  const row = await firstRow(tx.select({ key: serverKeys.key }).from(serverKeys).where(eq(serverKeys.name, "cursor")));
  if (!row) throw new Error("The database has no cursor key (server_keys): run kontor migrate.");
  const key = Buffer.from(row.key);
  tx.connection.statements.set(CURSOR_KEY, key);
  return key;
}

/**
 * `plain` sealed for `context` (the list and organisation it continues), as base64url. The same
 * cursor seals to the same text (its nonce is a MAC of what it seals, as in a synthetic-IV
 * scheme), so a page answered twice is the same bytes and keeps its ETag; different cursors never
 * share a nonce.
 */
export async function sealCursor(tx: Tx, plain: string, context: string): Promise<string> {
  const key = await cursorKey(tx);
  const iv = createHmac("sha256", key).update("nonce\u0000").update(context).update("\u0000").update(plain).digest().subarray(0, IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const sealed = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url");
}

/** What a sealed cursor holds, or a 422 naming `cursor` when it was not made for `context` by this database. */
export async function openCursor(tx: Tx, text: string, context: string, refusal: string): Promise<string> {
  const bytes = Buffer.from(text, "base64url");
  if (bytes.length <= IV_BYTES + TAG_BYTES || bytes.toString("base64url") !== text) throw ValidationFailed.field("cursor", refusal);
  try {
    const decipher = createDecipheriv("aes-256-gcm", await cursorKey(tx), bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    throw ValidationFailed.field("cursor", refusal);
  }
}

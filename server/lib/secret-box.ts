/**
 * Secrets the server must be able to use again (webhook signing secrets), encrypted at rest
 * with a key kept outside the database: a copied database or backup alone cannot sign.
 *
 * The key is 32 random bytes in a file (KONTOR_SECRET_KEY_FILE, default `kontor.key` beside the
 * database), created with mode 0600 on first start. A sealed value is
 * `enc:v1:<base64(iv | tag | ciphertext)>`, AES-256-GCM with a fresh 12-byte IV; the row it
 * belongs to (`context`, e.g. the webhook id) is authenticated with it, so a sealed value
 * copied onto another row does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { chmodSync, closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";

export const SECRET_KEY_BYTES = 32;
const SEALED = "enc:";
const V1 = "enc:v1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed value that this key cannot open (another key, a damaged value, an unknown format). */
export class SecretUnreadable extends Error {}

export class SecretBox {
  readonly key: Buffer;

  constructor(key: Uint8Array) {
    if (key.length !== SECRET_KEY_BYTES) throw new Error(`a secret key is ${SECRET_KEY_BYTES} bytes (got ${key.length})`);
    this.key = Buffer.from(key);
  }

  seal(plain: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return V1 + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64");
  }

  /**
   * The plaintext of a sealed value. A value that is not sealed is returned as it is: what an
   * older Kontor wrote in plaintext (during a rolling upgrade) keeps working until the next
   * start seals it.
   */
  open(stored: string, context: string): string {
    if (!isSealed(stored)) return stored;
    if (!stored.startsWith(V1)) throw new SecretUnreadable("the secret is sealed in an unknown format");
    const bytes = Buffer.from(stored.slice(V1.length), "base64");
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretUnreadable("the sealed secret is damaged");
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
    } catch {
      throw new SecretUnreadable("the secret does not open with this server's key");
    }
  }
}

export const isSealed = (stored: string): boolean => stored.startsWith(SEALED);

/** Where the key is: KONTOR_SECRET_KEY_FILE, else beside the database (server/config.ts). */
type KeyLocation = { dbPath: string; secretKeyFile: string | null };

/** Where the key lives: KONTOR_SECRET_KEY_FILE, else `kontor.key` beside the database; null for `:memory:`. */
export function secretKeyPath(config: KeyLocation): string | null {
  if (config.secretKeyFile) return config.secretKeyFile;
  return config.dbPath === ":memory:" ? null : join(dirname(config.dbPath), "kontor.key");
}

/**
 * The box of this configuration: the key file is read, or created (0600) when missing. An
 * in-memory database gets a random key of its own, which dies with it.
 */
export function loadSecretBox(config: KeyLocation): SecretBox {
  const path = secretKeyPath(config);
  return new SecretBox(path === null ? randomBytes(SECRET_KEY_BYTES) : readOrCreateKey(path));
}

function readOrCreateKey(path: string): Buffer {
  try {
    return readKey(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // written whole under a temporary name, then linked into place: a second process starting
  // at the same moment either wins the link or reads the winner's key, never a partial file
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const fd = openSync(temporary, "wx", 0o600);
  try {
    writeSync(fd, randomBytes(SECRET_KEY_BYTES));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    unlinkSync(temporary);
  }
  return readKey(path);
}

function readKey(path: string): Buffer {
  // the key is its owner's alone, like the database: a looser file (copied, restored) is tightened
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  const key = readFileSync(path);
  if (key.length !== SECRET_KEY_BYTES) {
    throw new Error(`the secret key file ${path} must hold exactly ${SECRET_KEY_BYTES} bytes (it holds ${key.length}); restore it from the backup made with the database`);
  }
  return key;
}

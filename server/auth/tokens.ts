/** Token strings `<uuid>|<secret>`: only SHA-256 of the secret is stored, compared in constant time. */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

export function newSecret(): string {
  return randomBytes(33).toString("base64url"); // 44 URL-safe characters
}

export function parseTokenString(token: string): { id: string; secret: string } | null {
  const bar = token.indexOf("|");
  if (bar <= 0) return null;
  const id = token.slice(0, bar);
  const secret = token.slice(bar + 1);
  if (!/^[0-9a-f-]{36}$/i.test(id) || secret.length < 20 || secret.length > 200) return null;
  return { id: id.toLowerCase(), secret };
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret), "hex");
  const b = Buffer.from(storedHash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

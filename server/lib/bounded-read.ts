/**
 * Reading a stream of bytes with a ceiling: a request's body, an access point's answer. What
 * passes `limit` is never held whole: the stream is cancelled as soon as it does.
 */

/** The bytes of `body` (none when null), or null once they pass `limit` bytes (the stream cancelled). */
export async function readAtMost(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array | null> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/**
 * Reading a stream of bytes with a ceiling: a request's body, an access point's answer. What
 * passes `limit` is never held whole: the stream is cancelled as soon as it does.
 */

/**
 * The bytes of `body` (none when null), or null once they pass `limit` bytes (the stream cancelled).
 * With the length the sender announced (Content-Length), the bytes are written into one buffer of
 * that size as they arrive: a 10 MiB upload holds 10 MiB, not its chunks and then their copy.
 */
export async function readAtMost(body: ReadableStream<Uint8Array> | null, limit: number, announced?: number): Promise<Uint8Array | null> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  let buffer = new Uint8Array(announced !== undefined && Number.isSafeInteger(announced) && announced >= 0 && announced <= limit ? announced : 64 * 1024);
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    if (size + value.byteLength > buffer.byteLength) {
      // more than announced, or nothing announced: grow by doubling, never past the limit
      const grown = new Uint8Array(Math.min(limit, Math.max(size + value.byteLength, buffer.byteLength * 2)));
      grown.set(buffer.subarray(0, size));
      buffer = grown;
    }
    buffer.set(value, size);
    size += value.byteLength;
  }
  return size === buffer.byteLength ? buffer : buffer.subarray(0, size);
}

/**
 * How a JSON answer leaves the kernel (server/http/kernel.ts): a GET's 200 carries an `ETag` and
 * answers a matching `If-None-Match` with 304; a body of COMPRESS_MIN_BYTES or more goes out
 * gzip-compressed to a client that accepts it. Done once for every route, on the serialized body.
 */

/** Below this, gzip's header and a thread's time cost more than the bytes saved. */
export const COMPRESS_MIN_BYTES = 1024;

/**
 * A strong ETag: a hash of the JSON body's bytes. The gzip-coded bytes are another
 * representation and get their own tag (`"…-gzip"`, as Apache httpd does); `If-None-Match`
 * matches either, since both stand for the same JSON.
 */
export function etagOf(body: string): string {
  // 160 bits of three seeded xxHash3 digests: a body's tag needs no resistance to a crafted
  // collision (a client could only make its own cache stale), and xxHash3 hashes a 38 kB page in
  // 1 µs where SHA-256 took 31 µs (docs/performance.md)
  const digest = Buffer.alloc(24);
  for (let seed = 0; seed < 3; seed++) digest.writeBigUInt64LE(Bun.hash.xxHash3(body, BigInt(seed)), seed * 8);
  return `"${digest.toString("base64url").slice(0, 27)}"`;
}
const GZIP_SUFFIX = "-gzip";
const gzipTag = (etag: string) => `${etag.slice(0, -1)}${GZIP_SUFFIX}"`;

/** RFC 9110 section 13.1.2: weak comparison, `*` matches any current representation. */
export function noneMatch(header: string | null, etag: string): boolean {
  if (header === null) return false;
  const tags = header.split(",").map((tag) => tag.trim().replace(/^W\//, "").replace(`${GZIP_SUFFIX}"`, '"'));
  return tags.includes("*") || tags.includes(etag);
}

/** Whether Accept-Encoding admits gzip (`gzip`, `x-gzip` or `*`, unless its q is 0). */
export function acceptsGzip(header: string | null): boolean {
  if (!header) return false;
  let star = false;
  for (const part of header.toLowerCase().split(",")) {
    const [coding, ...params] = part.split(";").map((p) => p.trim());
    const refused = params.some((p) => /^q=0(?:\.0{0,3})?$/.test(p));
    if (coding === "gzip" || coding === "x-gzip") return !refused;
    if (coding === "*") star = !refused;
  }
  return star;
}

/**
 * The answer for a JSON body: 304 without a body when a GET's 200 is what the client holds,
 * else the body, compressed when it is large and the client accepts gzip. `headers` are the
 * answer's own (rate limits, request id, Location, …), kept on both.
 */
export function jsonAnswer(request: Request, status: number, body: string, headers: Headers): Response {
  headers.set("content-type", "application/json");
  headers.append("vary", "Accept-Encoding");
  const tagged = request.method === "GET" && status === 200;
  const etag = tagged ? etagOf(body) : null;
  if (etag !== null && noneMatch(request.headers.get("if-none-match"), etag)) {
    headers.set("etag", etag);
    headers.delete("content-type");
    return new Response(null, { status: 304, headers });
  }
  if (Buffer.byteLength(body) >= COMPRESS_MIN_BYTES && acceptsGzip(request.headers.get("accept-encoding"))) {
    if (etag !== null) headers.set("etag", gzipTag(etag));
    headers.set("content-encoding", "gzip");
    // level 1: a third of the default level's time for a body about a tenth larger (docs/performance.md)
    return new Response(Bun.gzipSync(body, { level: 1 }), { status, headers });
  }
  if (etag !== null) headers.set("etag", etag);
  return new Response(body, { status, headers });
}

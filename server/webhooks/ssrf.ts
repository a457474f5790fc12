/**
 * The SSRF guard of contract 7.6. A webhook URL is chosen by an API client, so without a guard
 * Kontor could be made to POST to its own loopback services, the private network or a cloud
 * metadata endpoint. The host is resolved here, every address it resolves to is checked, and
 * the request then connects to the address that was checked (see `pinnedRequest`), so a DNS
 * answer that changes between check and connect (DNS rebinding) cannot redirect it.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

/**
 * A destination refused by policy. Its message names the address, for the server log only: the
 * attempt records REFUSED_DESTINATION, so a client cannot map the internal network through the
 * errors of webhooks it points at internal names.
 */
export class DestinationRefused extends Error {}

export const REFUSED_DESTINATION = "The destination is not allowed (private or loopback address).";

type Range = { bytes: number[]; prefix: number; label: string };

const v4 = (cidr: string, label: string): Range => {
  const [address, prefix] = cidr.split("/");
  return { bytes: address!.split(".").map(Number), prefix: Number(prefix), label };
};
const v6 = (cidr: string, label: string): Range => {
  const [address, prefix] = cidr.split("/");
  return { bytes: [...parseIpv6(address!)!], prefix: Number(prefix), label };
};

/** Special-purpose IPv4 ranges (RFC 6890 and friends); the first match names the refusal. */
const IPV4_BLOCKED: Range[] = [
  v4("169.254.169.254/32", "cloud metadata"),
  v4("0.0.0.0/8", "this-network"),
  v4("10.0.0.0/8", "private"),
  v4("100.64.0.0/10", "carrier-grade NAT"), // also Alibaba's metadata at 100.100.100.200
  v4("127.0.0.0/8", "loopback"),
  v4("169.254.0.0/16", "link-local"),
  v4("172.16.0.0/12", "private"),
  v4("192.0.0.0/24", "IETF protocol assignments"), // also Oracle's metadata at 192.0.0.192
  v4("192.0.2.0/24", "documentation"),
  v4("192.168.0.0/16", "private"),
  v4("198.18.0.0/15", "benchmarking"),
  v4("198.51.100.0/24", "documentation"),
  v4("203.0.113.0/24", "documentation"),
  v4("224.0.0.0/4", "multicast"),
  v4("240.0.0.0/4", "reserved"),
];

/** IPv6 ranges refused outright. NAT64 and 6to4 embed an IPv4 address, which is checked instead. */
const IPV6_BLOCKED: Range[] = [
  v6("::/128", "unspecified"),
  v6("::1/128", "loopback"),
  v6("::ffff:0:0/96", "IPv4-mapped"),
  v6("::/96", "IPv4-compatible"),
  v6("64:ff9b:1::/48", "local-use NAT64"),
  v6("100::/64", "discard-only"),
  v6("2001::/32", "Teredo"),
  v6("2001:db8::/32", "documentation"),
  v6("fc00::/7", "unique local"), // also AWS's IPv6 metadata at fd00:ec2::254
  v6("fe80::/10", "link-local"),
  v6("fec0::/10", "site-local"),
  v6("ff00::/8", "multicast"),
];
const NAT64 = v6("64:ff9b::/96", "NAT64");
const SIX_TO_FOUR = v6("2002::/16", "6to4");

function matches(bytes: ArrayLike<number>, range: Range): boolean {
  for (let bit = 0; bit < range.prefix; bit += 8) {
    const take = Math.min(8, range.prefix - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[bit / 8]! & mask) !== (range.bytes[bit / 8]! & mask)) return false;
  }
  return true;
}

/** "2001:db8::1" or "::ffff:10.0.0.1" → 16 bytes; null when it is not an IPv6 address. */
export function parseIpv6(text: string): Uint8Array | null {
  if (isIP(text) !== 6) return null;
  let address = text.split("%")[0]!; // a zone index (fe80::1%eth0) does not change the range
  const groups: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split(".").map(Number) as [number, number, number, number];
    address = `${address.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = address.split("::") as [string, string | undefined];
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  groups.push(...front, ...Array(8 - front.length - back.length).fill(0), ...back);
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  return bytes;
}

/** Why an address may not be a webhook destination ("loopback", "private", …), or null when it may. */
export function refusedRange(address: string): string | null {
  if (isIP(address) === 4) {
    const bytes = address.split(".").map(Number);
    return IPV4_BLOCKED.find((r) => matches(bytes, r))?.label ?? null;
  }
  const bytes = parseIpv6(address);
  if (!bytes) return "not an IP address";
  if (matches(bytes, NAT64)) return refusedRange(bytes.slice(12, 16).join("."));
  if (matches(bytes, SIX_TO_FOUR)) return refusedRange(bytes.slice(2, 6).join("."));
  return IPV6_BLOCKED.find((r) => matches(bytes, r))?.label ?? null;
}

/**
 * Cloud metadata services, by the names and addresses their providers document: Google Cloud
 * (metadata.google.internal, metadata.goog, and `metadata` on its instances' search path), AWS
 * (instance-data, instance-data.ec2.internal; 169.254.169.254 and fd00:ec2::254), Azure and
 * most others (169.254.169.254), Alibaba Cloud (100.100.100.200), Oracle Cloud (192.0.0.192).
 * They hand out credentials, so they are refused whatever KONTOR_WEBHOOK_ALLOW_PRIVATE says:
 * that switch is for receivers on the private network, never for these (docs/webhooks.md).
 */
export const METADATA_HOSTS = ["metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal"] as const;
const METADATA_ADDRESSES = [v4("169.254.169.254/32", ""), v4("100.100.100.200/32", ""), v4("192.0.0.192/32", ""), v6("fd00:ec2::254/128", "")];

/** "metadata.goog" without a trailing dot, brackets or capitals: the host as the lists above spell it. */
const bareHost = (hostname: string) => hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase().replace(/\.$/, "");

/** Whether a host name or address is a cloud metadata service's (METADATA_HOSTS, their addresses). */
export function isMetadataHost(hostname: string): boolean {
  const host = bareHost(hostname);
  if ((METADATA_HOSTS as readonly string[]).includes(host)) return true;
  const kind = isIP(host);
  if (kind === 0) return false;
  const bytes = kind === 4 ? host.split(".").map(Number) : [...parseIpv6(host)!];
  return METADATA_ADDRESSES.some((range) => range.bytes.length === bytes.length && matches(bytes, range));
}

/**
 * Why a URL's host is refused without asking DNS: an IP literal in a refused range, or
 * `localhost` and names under `.localhost` (RFC 6761: always loopback); null when only a lookup
 * can tell. Webhook create and update refuse these at once (service.ts).
 */
export function refusedHost(hostname: string): string | null {
  const host = bareHost(hostname);
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  return isIP(host) === 0 ? null : refusedRange(host);
}

export type Destination = { address: string; family: 4 | 6 };

/**
 * Resolves the URL's host (IP literals included) and picks the address to connect to. Unless
 * private destinations are allowed, a host with any refused address is refused: a name that
 * mixes public and internal addresses is not one to deliver money events to.
 */
export async function resolveDestination(hostname: string, allowPrivate: boolean, signal: AbortSignal): Promise<Destination> {
  const host = hostname.replace(/^\[(.*)\]$/, "$1");
  // a webhook saved before these names were refused at create
  if (isMetadataHost(host)) throw new DestinationRefused(`${host} is a cloud metadata service, refused whatever KONTOR_WEBHOOK_ALLOW_PRIVATE says`);
  let addresses: { address: string; family: number }[];
  try {
    addresses = await abortable(lookup(host, { all: true }), signal);
  } catch (error) {
    if (signal.aborted) throw error;
    throw new Error(`DNS lookup of ${host} failed: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (addresses.length === 0) throw new Error(`DNS lookup of ${host} returned no address`);
  const metadata = addresses.find(({ address }) => isMetadataHost(address));
  if (metadata) throw new DestinationRefused(`${host} resolves to ${metadata.address} (cloud metadata), refused whatever KONTOR_WEBHOOK_ALLOW_PRIVATE says`);
  if (!allowPrivate) {
    for (const { address } of addresses) {
      const refused = refusedRange(address);
      if (refused) {
        throw new DestinationRefused(`${host} resolves to ${address} (${refused}); KONTOR_WEBHOOK_ALLOW_PRIVATE=true would allow it`);
      }
    }
  }
  // IPv4 first: it is what a server is most likely able to reach
  const chosen = addresses.find((a) => a.family === 4) ?? addresses[0]!;
  return { address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}

/**
 * The request that connects to the checked address while still speaking to the host: the URL
 * carries the IP, `Host` names the host, and TLS verifies the certificate against the host
 * name (SNI and the name check both follow `serverName`).
 */
export function pinnedRequest(url: URL, destination: Destination): { url: string; host: string; serverName: string | undefined } {
  const pinned = new URL(url);
  pinned.hostname = destination.family === 6 ? `[${destination.address}]` : destination.address;
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  // SNI carries names only; an IP-literal URL is verified against its IP
  const serverName = url.protocol === "https:" && isIP(hostname) === 0 ? hostname : undefined;
  return { url: pinned.toString(), host: url.host, serverName };
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Which hosts Kontor never connects to, one rule for every outbound URL: webhooks
 * (server/webhooks/ssrf.ts, which also resolves names and pins the address), an organisation's
 * SMTP server and its Peppol access point (`kontor org set --smtp-url`, `--peppol-base-url`),
 * and the server's KONTOR_SMTP_URL. Cloud metadata services are refused everywhere (they hand out
 * the machine's credentials); private and loopback ranges only where the caller says so (a
 * webhook, chosen by an API client), since a mail relay on the private network is ordinary.
 */
import { isIP } from "node:net";

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
export const bareHost = (hostname: string) => hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase().replace(/\.$/, "");

/** Whether a host name or address is a cloud metadata service's (METADATA_HOSTS, their addresses). */
export function isMetadataHost(hostname: string): boolean {
  const host = canonicalHost(bareHost(hostname));
  if ((METADATA_HOSTS as readonly string[]).includes(host)) return true;
  const kind = isIP(host);
  if (kind === 0) return false;
  const bytes = kind === 4 ? host.split(".").map(Number) : [...parseIpv6(host)!];
  // an IPv4 address written inside an IPv6 one (::ffff:169.254.169.254, NAT64) is that IPv4 address
  if (bytes.length === 16 && [IPV4_MAPPED, IPV4_COMPATIBLE, NAT64].some((range) => matches(bytes, range))) return isMetadataHost(bytes.slice(12, 16).join("."));
  return METADATA_ADDRESSES.some((range) => range.bytes.length === bytes.length && matches(bytes, range));
}
const IPV4_MAPPED = v6("::ffff:0:0/96", "");
const IPV4_COMPATIBLE = v6("::/96", "");

/**
 * The host as a connection would reach it. An `smtp:` URL is not one of the schemes whose hosts
 * the URL parser normalises, yet the system resolver reads "2852039166" or "0xa9.0xfe.0xa9.0xfe"
 * as 169.254.169.254: parsed as an http URL's host, each is written the one way.
 */
function canonicalHost(host: string): string {
  if (host === "" || isIP(host) !== 0) return host;
  try {
    return bareHost(new URL(`http://${host.includes(":") ? `[${host}]` : host}/`).hostname);
  } catch {
    return host;
  }
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

/**
 * The one decision on an outbound URL's host that holds whatever the settings say: the refusal
 * message naming `field` (`url`, `--smtp-url`, `peppol_base_url`) when the host is a cloud
 * metadata service's name or address, else null. Webhooks, the organisation's SMTP server and
 * Peppol access point, and KONTOR_SMTP_URL all ask it, so each refuses the same hosts in the
 * same words.
 */
export function metadataHostRefusal(field: string, hostname: string): string | null {
  return isMetadataHost(hostname) ? `The ${field} must not point to a cloud metadata service (${canonicalHost(bareHost(hostname))}): it hands out the server's credentials.` : null;
}

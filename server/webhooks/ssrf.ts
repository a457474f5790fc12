/**
 * The SSRF guard of webhook deliveries. A webhook URL is chosen by an API client, so without a guard
 * Kontor could be made to POST to its own loopback services, the private network or a cloud
 * metadata endpoint. The host is resolved here, every address it resolves to is checked, and
 * the request then connects to the address that was checked (see `pinnedRequest`), so a DNS
 * answer that changes between check and connect (DNS rebinding) cannot redirect it.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isMetadataHost, refusedRange } from "../lib/hosts.ts";

/**
 * A destination refused by policy. Its message names the address, for the server log only: the
 * attempt records REFUSED_DESTINATION, so a client cannot map the internal network through the
 * errors of webhooks it points at internal names.
 */
export class DestinationRefused extends Error {}

export const REFUSED_DESTINATION = "The destination is not allowed (private or loopback address).";

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

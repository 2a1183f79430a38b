import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** `127.0.0.0/8`, `::1` and `localhost`: only this machine can connect. */
export function isLoopbackAddress(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/** 0.0.0.0 / :: : every interface. */
export function isWildcardAddress(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === '0.0.0.0' || bare === '::' || bare === '';
}

/**
 * The names a client can reach a server bound to `host` by, as Host headers carry them: the
 * address itself, or for a wildcard bind every address of this machine. Other names (DNS names,
 * a proxy's) must be configured with `--allowed-host`: a rebinding attacker controls DNS, never
 * the address a client typed.
 */
export function boundHostNames(host: string): string[] {
  if (!isWildcardAddress(host)) return [host];
  const addresses = Object.values(networkInterfaces()).flatMap((entries) =>
    (entries ?? []).map((entry) => entry.address),
  );
  return ['localhost', ...addresses];
}

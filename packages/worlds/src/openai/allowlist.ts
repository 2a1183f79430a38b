/** Hosts an endpoint may live on unless the user widens the list: this machine only. */
export const DEFAULT_ALLOWED_HOSTS: readonly string[] = ['127.0.0.1', 'localhost', '::1'];

export class HostNotAllowedError extends Error {
  override name = 'HostNotAllowedError';
  constructor(
    readonly url: string,
    readonly host: string,
    readonly allowlist: readonly string[],
  ) {
    super(
      `endpoint host "${host}" (${url}) is not in the allowlist [${allowlist.join(', ')}]; ` +
        'add it to the allowed endpoint hosts to use it',
    );
  }
}

function hostOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`endpoint URL "${url}" is not a valid absolute URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`endpoint URL "${url}" must use http or https, not ${parsed.protocol}`);
  }
  // URL keeps IPv6 hosts in brackets ("[::1]"); the allowlist is written without them.
  return parsed.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

/**
 * Throws unless the URL's host is on the allowlist. Entries are host names or IP addresses,
 * matched exactly (case-insensitively); `*.example.org` also admits every subdomain of example.org.
 */
export function assertAllowedHost(
  url: string,
  allowlist: readonly string[] = DEFAULT_ALLOWED_HOSTS,
): void {
  const host = hostOf(url);
  const allowed = allowlist.some((entry) => {
    const pattern = entry.toLowerCase().replace(/^\[(.*)\]$/, '$1');
    return pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) : host === pattern;
  });
  if (!allowed) throw new HostNotAllowedError(url, host, allowlist);
}

/** `{baseUrl}/v1/chat/completions`, whether or not the base URL already ends in /v1. */
export function chatCompletionsUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  return base.endsWith('/v1') ? `${base}/chat/completions` : `${base}/v1/chat/completions`;
}

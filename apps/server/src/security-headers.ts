import type { ServerResponse } from 'node:http';

// Observations are untrusted, so the app runs with no inline script and no foreign origin at all.
// - frame-src blob:/data: lets HTML observations render in a sandboxed srcdoc/blob iframe;
// - 'wasm-unsafe-eval' lets WebAssembly compile (onnxruntime-web), without allowing JS eval;
// - inline styles stay allowed because virtualized lists position rows with style attributes.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-src 'self' blob: data:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join('; ');

export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // Cross-origin isolation, so that multi-threaded wasm (SharedArrayBuffer) can run later.
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
  'cross-origin-resource-policy': 'same-origin',
};

export function setSecurityHeaders(response: ServerResponse): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.setHeader(name, value);
}

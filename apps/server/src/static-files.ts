import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { MODEL_URL_PREFIX } from '@terrarium/schema';
import { findModelFile, servedModelFolders } from './model-files';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

export function contentTypeOf(filePath: string): string {
  return CONTENT_TYPES[path.extname(filePath).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Serves the built web app from `root`. Unknown paths get index.html so that deep links open in the
 * app, except under /assets/, where a missing file is a real 404 (not HTML posing as a script).
 * `/models/<name>/…` serves the listed model folders' files (model-files.ts).
 */
export async function serveWebApp(
  request: IncomingMessage,
  response: ServerResponse,
  root: string,
): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    request.resume();
    response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
    response.end('method not allowed\n');
    return;
  }
  const pathname = decodedPathname(request.url ?? '/');
  if (pathname?.startsWith(MODEL_URL_PREFIX)) {
    // Model files for the browser (onnxruntime-web), read-only; a miss is a 404, never index.html.
    const model = await findModelFile(pathname, servedModelFolders());
    if (model) return sendFile(request, response, model.path, model.size, pathname);
    return sendText(response, 404, 'not found');
  }
  const file = pathname === null ? null : await findFile(root, pathname);
  if (file) return sendFile(request, response, file.path, file.size, pathname ?? '');
  if (pathname?.startsWith('/assets/') || pathname === null)
    return sendText(response, 404, 'not found');
  const index = await findFile(root, '/index.html');
  if (!index) {
    return sendText(
      response,
      503,
      'The Terrarium web app is not built yet: run `pnpm build`, then reload.',
    );
  }
  return sendFile(request, response, index.path, index.size, '/index.html');
}

function decodedPathname(url: string): string | null {
  try {
    const pathname = decodeURIComponent(new URL(url, 'http://localhost').pathname);
    return pathname.includes('\0') ? null : pathname;
  } catch {
    return null;
  }
}

async function findFile(
  root: string,
  pathname: string,
): Promise<{ path: string; size: number } | null> {
  const resolvedRoot = path.resolve(root);
  const wanted = path.resolve(resolvedRoot, `.${pathname}`);
  // `..` segments are already collapsed by URL parsing; this also covers encoded ones.
  if (!wanted.startsWith(resolvedRoot + path.sep)) return null;
  try {
    const info = await stat(wanted);
    return info.isFile() ? { path: wanted, size: info.size } : null;
  } catch {
    return null;
  }
}

async function sendFile(
  request: IncomingMessage,
  response: ServerResponse,
  filePath: string,
  size: number,
  pathname: string,
): Promise<void> {
  response.writeHead(200, {
    'content-type': contentTypeOf(filePath),
    'content-length': String(size),
    // Vite fingerprints everything under /assets/; the rest (index.html) must be revalidated.
    'cache-control': pathname.startsWith('/assets/')
      ? 'public, max-age=31536000, immutable'
      : 'no-cache',
  });
  if (request.method === 'HEAD') {
    response.end();
    return;
  }
  await pipeline(createReadStream(filePath), response);
}

function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  response.end(`${text}\n`);
}

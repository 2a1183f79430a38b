import type { ServerResponse } from 'node:http';
import type { ApiErrorBody } from '@terrarium/schema';

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
  });
  response.end(text);
}

export function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  issues?: { field: string; message: string }[],
): void {
  const body: ApiErrorBody = { error: issues ? { message, issues } : { message } };
  sendJson(response, status, body);
}

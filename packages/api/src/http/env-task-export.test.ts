import { BUILTIN_TASKS, Task } from '@terrarium/curriculum';
import { describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing';
import { createDefaultEnvService } from './env-routes';

/** POSTs `body` as JSON with the program token; the status and the parsed answer. */
async function post(
  server: TestServer,
  path: string,
  body: unknown,
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { ...server.authHeaders, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

/** An export answer's ids, read without trusting its shape. */
function exportedIds(json: unknown): unknown {
  return typeof json === 'object' && json !== null && 'exported' in json ? json.exported : null;
}

describe('POST /v1/tasks/export on a large catalog', () => {
  it('exports a page of at most 200 tasks a request, and says so for more', async () => {
    const env = createDefaultEnvService();
    await env.ready;
    const [builtin] = BUILTIN_TASKS;
    if (builtin === undefined) throw new Error('no builtin task');
    // 250 more tasks in the catalog, as a generated dataset would add them (gates passed before).
    const ids = Array.from({ length: 250 }, (_, i) => `copy-${i}`);
    for (const id of ids) env.tasks.restore(Task.parse({ ...builtin, id }));
    const server = await startTestServer({ env });
    try {
      const all = await post(server, '/v1/tasks/export', { format: 'jsonl' });
      expect([all.status, all.json]).toEqual([
        400,
        {
          error: {
            message:
              '252 tasks are served: export at most 200 a request, named in `tasks` (GET /v1/tasks lists them)',
            issues: [{ field: 'tasks', message: 'at most 200 a request' }],
          },
        },
      ]);
      const page = await post(server, '/v1/tasks/export', {
        format: 'jsonl',
        tasks: ids.slice(0, 200),
      });
      expect([page.status, exportedIds(page.json)]).toEqual([200, ids.slice(0, 200)]);
      const tooMany = await post(server, '/v1/tasks/export', {
        format: 'jsonl',
        tasks: ids.slice(0, 201),
      });
      expect(tooMany.status).toBe(400);
    } finally {
      await server.close();
    }
  }, 60_000);
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Step, Trajectory } from '../../packages/schema/src/index';
import { openStore } from '../../packages/db/src/index';
import { startServer } from '../../apps/server/src/start-server';
import { e2eToken } from './token';

/** HTML observations a browsing agent could bring back, each trying something else. */
export const HOSTILE_HTML: readonly string[] = [
  '<script>window.__pwned = "script"; alert("script")</script><p>after the script</p>',
  '<img src=x onerror="window.__pwned = \'img-onerror\'; alert(1)"><img src="http://198.51.100.7/beacon.png">',
  '<a href="javascript:window.__pwned = \'link\'" target="_top">javascript link</a><form action="http://198.51.100.7/post"><button>send</button></form>',
  '<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned = \'svg\'"><script>window.__pwned = "svg-script"</script><image href="http://198.51.100.7/svg.png"/></svg>',
  '<iframe src="javascript:window.__pwned = \'inner-iframe\'"></iframe><iframe srcdoc="<script>window.__pwned = 1</script>"></iframe><iframe src="http://198.51.100.7/frame"></iframe>',
  '<style>@import url(http://198.51.100.7/x.css); body { background: url(http://198.51.100.7/bg.png) }</style><link rel="stylesheet" href="http://198.51.100.7/l.css"><div style="color:red">styled</div>',
  '<!DOCTYPE html><html><head><meta http-equiv="refresh" content="0;url=javascript:window.__pwned=1"><meta http-equiv="Content-Security-Policy" content="default-src *"><base href="http://198.51.100.7/"></head><body onload="window.__pwned = \'body\'"><h1>Full page</h1><input autofocus onfocus="window.__pwned = \'focus\'"><script src="http://198.51.100.7/x.js"></script></body></html>',
];

function htmlStep(index: number, content: string): Step {
  return {
    index,
    actor: 'agent',
    action: { type: 'browser', name: 'goto', arguments: { url: `https://example.test/${index}` } },
    observation: { kind: 'html', content, callId: null },
    reasoning: null,
    reward: null,
    timing: null,
    metadata: {},
  };
}

const HTML_TRAJECTORY: Trajectory = {
  externalId: 'hostile-html',
  sourceFormat: 'openai-messages',
  sourceBenchmark: null,
  domain: 'web',
  task: 'Open the pages',
  systemPrompt: null,
  tools: [],
  toolsInferred: false,
  agentModel: null,
  outcome: { reward: null, success: null },
  steps: HOSTILE_HTML.map((content, index) => htmlStep(index, content)),
  metadata: {},
  source: { file: 'hostile-html.jsonl', line: 1, record: { pages: HOSTILE_HTML.length } },
};

export interface SeededServer {
  url: string;
  trajectoryUrl: string;
  close(): Promise<void>;
}

/** A server of its own on a fresh store holding one trajectory of HTML observations. */
export async function startSeededServer(): Promise<SeededServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'terrarium-e2e-html-'));
  const store = await openStore({ dataDir });
  const discard = async () => {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const batch = await store.beginImport('hostile-html');
    await batch.addTrajectories([HTML_TRAJECTORY]);
    await batch.commit();
    const page = await store.listTrajectories(
      { datasetId: batch.datasetId },
      { offset: 0, limit: 1 },
    );
    const trajectory = page.rows[0];
    if (!trajectory) throw new Error('the seeded trajectory is missing');
    const server = await startServer({ store, dataDir, token: e2eToken() });
    return {
      url: server.url,
      trajectoryUrl: `${server.url}/datasets/${batch.datasetId}/trajectories/${trajectory.id}`,
      close: async () => {
        await server.close();
        await discard();
      },
    };
  } catch (error) {
    await discard();
    throw error;
  }
}

/// <reference types="node" />
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchItemsFromAgentWorldBench } from '@terrarium/bench';
import type { BenchItem, JudgeConfig } from '@terrarium/schema';
import type { PromptFolder } from '@terrarium/worlds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TAU2_RETAIL } from '../testing/sample-files';
import { createBenchSimulators } from './bench-simulators';
import { createJudge } from './judge';
import { officialRows, readRealTrajectories, type OfficialRow } from './official-rows.testkit';
import { readPromptFolder } from './prompt-folder-files';

const ChatBody = z.object({
  model: z.string(),
  messages: z.array(z.object({ role: z.string(), content: z.string() })),
  temperature: z.number().optional(),
  max_tokens: z.number().optional(),
});
type ChatBody = z.infer<typeof ChatBody>;

// The world model thinks (with a decoy block inside its reasoning) and answers in the tag.
const WORLD_MODEL_REPLY =
  '<think>the user exists <predicted_observation>decoy</predicted_observation></think>\n' +
  'Reasoning done.\n<predicted_observation>\n{"simulated": true}\n</predicted_observation>';
const VERDICT =
  'Step by step…\n<final_evaluation>\n```json\n{"strengths": ["shape"], "weaknesses": ["values"], ' +
  '"scores": {"format": 5, "factuality": 2, "consistency": 4, "realism": 3, "quality": 3}}\n```\n</final_evaluation>';

/** A recording OpenAI-compatible server on 127.0.0.1: `wm` answers as a world model, `judge` judges. */
async function startRecorder(): Promise<{ url: string; bodies: ChatBody[]; server: Server }> {
  const bodies: ChatBody[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      const body = ChatBody.parse(JSON.parse(text));
      bodies.push(body);
      const content = body.model === 'wm' ? WORLD_MODEL_REPLY : VERDICT;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { url: `http://127.0.0.1:${address.port}/v1`, bodies, server };
}

// What the official script sends, written out here from its description (independent of the code
// under test): eval.py's run_inference and build_judge_messages for one row.
function expectedWorldModelMessages(row: OfficialRow) {
  const turn = Math.max(row.turn_idx - 1, 0);
  const messages = row.system_str ? [{ role: 'system', content: row.system_str }] : [];
  for (let j = 0; j < Math.min(turn, row.prompt.length, row.response.length); j++) {
    messages.push({ role: 'user', content: row.prompt[j] ?? '' });
    messages.push({ role: 'assistant', content: row.response[j] ?? '' });
  }
  messages.push({ role: 'user', content: row.current_prompt || (row.prompt[turn] ?? '') });
  return messages;
}

const MARKER = '**Environment Observation:**';
const clean = (text: string) =>
  text.startsWith(MARKER) ? text.slice(MARKER.length).trim() : text.replaceAll(MARKER, '').trim();

function expectedJudgeMessages(row: OfficialRow, modelOutput: string, folder: PromptFolder) {
  const turn = Math.max(row.turn_idx - 1, 0);
  let context = '';
  for (let i = 0; i < turn; i++) {
    if (i < row.prompt.length && i < row.response.length) {
      context += `${row.prompt[i]}\n${row.response[i]}\n\n`;
    }
  }
  if (context) context = `# Context (Historical Interactions):\n\n${context}`;
  // Python's str.format: fields replaced once, doubled braces of the template made single.
  const fields: Record<string, string> = {
    context,
    world_model_input: `# Current Turn:\n\n${row.current_prompt}`,
    predicted_observation: `**World Model Output (Simulated):**\n\`\`\`\n${clean(modelOutput)}\n\`\`\``,
    ground_truth: `**Ground Truth (Real Output):**\n\`\`\`\n${clean(row.response[turn] ?? '')}\n\`\`\``,
  };
  const user = (folder.judgeUserTemplate ?? '')
    .split(/(\{\{|\}\}|\{[a-z_]+\})/)
    .map((part) =>
      part === '{{' ? '{' : part === '}}' ? '}' : (fields[part.slice(1, -1)] ?? part),
    )
    .join('')
    .trim();
  return [
    { role: 'system', content: folder.judgeSystemPrompts['mcp'] ?? '' },
    { role: 'user', content: user },
  ];
}

describe('--prompts: the official AgentWorldBench protocol, byte for byte (real tau2 retail)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'awb-prompts-'));
  let recorder: Awaited<ReturnType<typeof startRecorder>>;
  let folder: PromptFolder;
  let rows: OfficialRow[];
  let items: BenchItem[];
  beforeAll(async () => {
    recorder = await startRecorder();
    // The test's own prompt texts (the official ones may not be copied), in the official layout.
    mkdirSync(join(dir, 'mcp'));
    writeFileSync(join(dir, 'mcp', 'system_prompt.txt'), 'Simulate the MCP tools.\n');
    writeFileSync(join(dir, 'mcp', 'judge_system_prompt.txt'), 'Judge MCP simulations.\n');
    writeFileSync(
      join(dir, 'judge_user_prompt.txt'),
      '{context}\n\n{world_model_input}\n\n{predicted_observation}\n\n{ground_truth}\n\n' +
        'Rate it; answer {{"scores": {{...}}}} in <final_evaluation>.\n',
    );
    folder = await readPromptFolder(dir);
    rows = officialRows((await readRealTrajectories([TAU2_RETAIL])).slice(0, 2), {
      task: 'mcp',
      firstId: 145256090131919,
      systemStr: 'You are a Tool World Model for a retail store.',
    });
    const imported = benchItemsFromAgentWorldBench(rows.map((row) => JSON.stringify(row)));
    if (imported.errors.length > 0) throw new Error(imported.errors[0]?.message);
    items = imported.items;
  }, 60_000);
  afterAll(async () => {
    await new Promise((resolve) => recorder.server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the world model exactly the official messages, sampling and reads its reply as it does', async () => {
    const sim = `openai:${recorder.url}#wm`;
    const simulators = createBenchSimulators(async () => items, {
      allowlist: ['127.0.0.1'],
      fetch,
      anyOnnxPath: false,
      prompts: folder,
    });
    const before = recorder.bodies.length;
    const predictions: string[] = [];
    for (const item of items) {
      const model = await simulators.simulatorFor(sim, item);
      const context = {
        domain: item.domain,
        task: item.context.task,
        systemPrompt: item.context.systemPrompt,
        tools: item.context.tools,
      };
      const prediction = await model.predict(context, item.history, item.action);
      predictions.push(prediction.observation.content);
    }
    const sent = recorder.bodies.slice(before);
    expect(sent).toHaveLength(rows.length);
    expect(rows.length).toBe(9);
    sent.forEach((body, i) => {
      const row = rows[i];
      if (row === undefined) throw new Error('row');
      expect(body.messages).toEqual(expectedWorldModelMessages(row));
      expect([body.temperature, body.max_tokens]).toEqual([0.6, 32768]);
    });
    // Reasoning removed (the decoy with it), the last <predicted_observation> block, trimmed.
    expect(new Set(predictions)).toEqual(new Set(['{"simulated": true}']));
  });

  it('sends the judge exactly the official messages and scores (raw-1)/4', async () => {
    const config: JudgeConfig = {
      spec: `openai:${recorder.url}#judge`,
      temperature: 0,
      repeats: 1,
      mode: 'score',
    };
    const judge = createJudge(config, { allowlist: ['127.0.0.1'], fetch, prompts: folder });
    const before = recorder.bodies.length;
    const scores = [];
    for (const item of items) {
      scores.push(
        (
          await judge.judge(item, 'wm', {
            kind: 'json',
            content: '{"simulated": true}',
            callId: null,
          })
        ).scores,
      );
    }
    const sent = recorder.bodies.slice(before);
    expect(sent).toHaveLength(rows.length);
    sent.forEach((body, i) => {
      const row = rows[i];
      if (row === undefined) throw new Error('row');
      expect(body.messages).toEqual(expectedJudgeMessages(row, '{"simulated": true}', folder));
      expect([body.temperature, body.max_tokens]).toEqual([0.6, 32768]);
    });
    const first = Object.fromEntries((scores[0] ?? []).map((s) => [s.metric, s.value]));
    // 5, 2, 4, 3, 3: total 3.4; each (raw - 1) / 4.
    expect(first).toEqual({
      format: 1,
      factuality: 0.25,
      consistency: 0.75,
      realism: 0.5,
      quality: 0.5,
      overall: 0.6,
    });
  });
});

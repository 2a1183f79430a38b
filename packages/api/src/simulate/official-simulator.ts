import type { Action, TrajectoryDetail } from '@terrarium/schema';
import {
  actionPrompt,
  actionText,
  observationResponse,
  promptFolderKey,
  type PromptFolder,
  type WorldModel,
} from '@terrarium/worlds';
import { openAIModel } from './resolve-simulator';
import { endpointAllowlistFromEnv, parseSimSpec, SimulatorError } from './sim-spec';

function command(text: string): Action {
  return { type: 'command', command: text, interpreter: null };
}

/**
 * The system prompt of the official protocol for a stored trajectory: an imported AgentWorldBench
 * row's own `system_str`, else the domain's `system_prompt.txt` from the folder.
 */
export function officialSystemPrompt(
  trajectory: Pick<
    TrajectoryDetail,
    'sourceFormat' | 'sourceBenchmark' | 'domain' | 'systemPrompt'
  >,
  prompts: PromptFolder,
): string | null {
  if (trajectory.sourceFormat === 'agentworldbench') return trajectory.systemPrompt;
  const key = promptFolderKey(trajectory.sourceBenchmark ?? trajectory.domain, trajectory.domain);
  return prompts.systemPrompts[key] ?? null;
}

/**
 * `simulate --sim openai:URL#MODEL --prompts DIR`: the endpoint spoken to as the official script
 * does, each turn written in the row layout (`### Turn N` / `**Action:**`, the observation marker)
 * under the official system prompt, with its sampling and output parsing.
 */
export function officialProtocolSimulator(
  spec: string,
  trajectory: Parameters<typeof officialSystemPrompt>[0],
  prompts: PromptFolder,
  options: { allowlist?: readonly string[]; fetch?: typeof fetch } = {},
): WorldModel {
  const parsed = parseSimSpec(spec);
  if (parsed.kind !== 'openai') {
    throw new SimulatorError(
      'prompts',
      `--prompts applies to openai:URL#MODEL simulators, not ${spec}`,
    );
  }
  const model = openAIModel(parsed.baseUrl, parsed.model, {
    allowlist: options.allowlist ?? endpointAllowlistFromEnv(),
    fetch: options.fetch,
    protocol: 'agentworldbench',
  });
  return speakingOfficially(model, officialSystemPrompt(trajectory, prompts));
}

/**
 * An `agentworldbench`-protocol model fed each turn in the row layout (`### Turn N` /
 * `**Action:**`, the observation marker). `systemPrompt` null: the context's own (the `/v1` client's
 * system message), since the markers were stripped on the way in and must go back on the way out.
 */
export function speakingOfficially(model: WorldModel, systemPrompt: string | null): WorldModel {
  return {
    id: model.id,
    predict(context, history, action, predictOptions) {
      return model.predict(
        { ...context, task: null, systemPrompt: systemPrompt ?? context.systemPrompt, tools: [] },
        history.map((turn, i) => ({
          action: command(actionPrompt(i + 1, actionText(turn.action))),
          observation: {
            ...turn.observation,
            content: observationResponse(turn.observation.content),
          },
        })),
        command(actionPrompt(history.length + 1, actionText(action))),
        predictOptions,
      );
    },
  };
}

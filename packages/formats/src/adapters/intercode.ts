import type { Action, Domain } from '@terrarium/schema';
import { RecordError, type FormatAdapter } from '../adapter';
import {
  baseName,
  expectArray,
  expectObject,
  expectString,
  metadataOf,
  optionalNumber,
  optionalString,
} from './json-guards';
import { observationOf } from './observation-kind';
import { buildTrajectory, rewardOutcome, stepDraft } from './trajectory-builder';

export type InterCodeEnvironment = 'bash' | 'sql';

export interface InterCodeEnvironmentInfo {
  environment: InterCodeEnvironment;
  domain: Domain;
}

export function interCodeEnvironment(value: unknown, path: string): InterCodeEnvironmentInfo {
  const name = expectString(value, path);
  if (name === 'ic_bash') return { environment: 'bash', domain: 'terminal' };
  if (name === 'ic_sql') return { environment: 'sql', domain: 'database' };
  throw new RecordError(path, `unknown InterCode environment "${name}"`);
}

/**
 * An InterCode action as sent to the environment. ReAct runs wrap commands as `execute[...]` and end
 * with `submit`, which is InterCode's own action, not a shell or SQL command (interpreter null).
 */
export function interCodeAction(raw: string, environment: InterCodeEnvironment): Action {
  const wrapped = /^execute\[([\s\S]*)\]$/.exec(raw);
  if (wrapped?.[1] !== undefined)
    return { type: 'command', command: wrapped[1], interpreter: environment };
  if (raw.trim() === 'submit') return { type: 'command', command: 'submit', interpreter: null };
  return { type: 'command', command: raw, interpreter: environment };
}

// Result files do not record the model; their folders and names do (`results/bash/gpt-4/…`).
const MODEL_IN_PATH = /(?:^|[\\/_])(gpt-[0-9][\w.-]*?|human)(?=[\\/_]|$)/i;

export function agentModelFromPath(file: string): string | null {
  return MODEL_IN_PATH.exec(file)?.[1] ?? null;
}

/** InterCode result files: `{"0": episode, "1": episode, …}` with `turn_history` per episode. */
export const interCodeAdapter: FormatAdapter = {
  format: 'intercode',
  layout: { kind: 'json-object-values' },
  sniff({ head }) {
    return (
      /^\s*\{\s*"\d+"\s*:\s*\{/.test(head) &&
      /"environment"\s*:\s*"ic_(bash|sql)"/.test(head) &&
      /"turn_history"\s*:/.test(head)
    );
  },
  convert(record, context) {
    const episode = expectObject(record, '');
    const env = interCodeEnvironment(episode.environment, 'environment');
    const history = expectObject(episode.turn_history, 'turn_history');
    const actions = expectArray(history.actions, 'turn_history.actions');
    const observations = expectArray(history.observations, 'turn_history.observations');
    const rewards =
      history.rewards === undefined ? [] : expectArray(history.rewards, 'turn_history.rewards');
    const thoughts =
      history.thoughts === undefined ? [] : expectArray(history.thoughts, 'turn_history.thoughts');
    const valid =
      history.valid_action === undefined
        ? []
        : expectArray(history.valid_action, 'turn_history.valid_action');
    if (observations.length !== actions.length) {
      throw new RecordError(
        'turn_history.observations',
        `has ${observations.length} entries for ${actions.length} actions`,
      );
    }
    const steps = actions.map((rawAction, i) => {
      const command = expectString(rawAction, `turn_history.actions[${i}]`);
      const output = expectString(observations[i], `turn_history.observations[${i}]`);
      const action = interCodeAction(command, env.environment);
      return stepDraft({
        actor: 'agent',
        action,
        observation: observationOf(output, null, { shellOutput: env.environment === 'bash' }),
        reasoning: optionalString(thoughts[i], `turn_history.thoughts[${i}]`),
        reward: optionalNumber(rewards[i], `turn_history.rewards[${i}]`),
        metadata: metadataOf({
          rawAction: action.type === 'command' && action.command !== command ? command : undefined,
          validAction: valid[i],
        }),
      });
    });
    const summary = episode.summary === undefined ? {} : expectObject(episode.summary, 'summary');
    const dataset = optionalString(episode.dataset, 'dataset');
    return [
      buildTrajectory(
        {
          externalId: `${baseName(context.file)}#${context.key ?? context.ordinal}`,
          sourceFormat: 'intercode',
          sourceBenchmark: `intercode/${env.environment}`,
          domain: env.domain,
          task: optionalString(episode.query, 'query'),
          systemPrompt: null,
          tools: null,
          agentModel: agentModelFromPath(context.file),
          outcome: rewardOutcome(optionalNumber(summary.max_reward, 'summary.max_reward')),
          steps,
          metadata: metadataOf({
            episode: context.key ?? undefined,
            taskId: episode.task_id,
            dataset: dataset ?? undefined,
            hardness: episode.hardness,
            turnsTaken: summary.turns_taken,
            turnsMax: summary.turns_max,
          }),
        },
        record,
        context,
      ),
    ];
  },
};

import type { FormatAdapter } from '../adapter';
import {
  baseName,
  expectArray,
  expectObject,
  expectString,
  metadataOf,
  optionalNumber,
  optionalString,
} from './json-guards';
import { interCodeAction, interCodeEnvironment } from './intercode';
import { observationOf } from './observation-kind';
import { buildTrajectory, rewardOutcome, stepDraft } from './trajectory-builder';

/** InterCode's human SQL session file: `{"809": {environment, query_idx, query, gold, reward, trajectory}}`. */
export const interCodeHumanSqlAdapter: FormatAdapter = {
  format: 'intercode-human-sql',
  layout: { kind: 'json-object-values' },
  sniff({ head }) {
    return (
      /^\s*\{\s*"\d+"\s*:\s*\{/.test(head) &&
      /"environment"\s*:\s*"ic_(bash|sql)"/.test(head) &&
      /"query_idx"\s*:/.test(head) &&
      /"trajectory"\s*:\s*\[/.test(head)
    );
  },
  convert(record, context) {
    const episode = expectObject(record, '');
    const env = interCodeEnvironment(episode.environment, 'environment');
    const steps = expectArray(episode.trajectory, 'trajectory').map((raw, i) => {
      const turn = expectObject(raw, `trajectory[${i}]`);
      const output = expectString(turn.observation, `trajectory[${i}].observation`);
      return stepDraft({
        actor: 'agent',
        action: interCodeAction(
          expectString(turn.action, `trajectory[${i}].action`),
          env.environment,
        ),
        observation: observationOf(output, null, { shellOutput: env.environment === 'bash' }),
      });
    });
    const queryIndex = episode.query_idx ?? context.key;
    return [
      buildTrajectory(
        {
          externalId: `${baseName(context.file)}#${context.key ?? context.ordinal}`,
          sourceFormat: 'intercode-human-sql',
          sourceBenchmark: `intercode/${env.environment}`,
          domain: env.domain,
          task: optionalString(episode.query, 'query'),
          systemPrompt: null,
          tools: null,
          agentModel: 'human',
          outcome: rewardOutcome(optionalNumber(episode.reward, 'reward')),
          steps,
          metadata: metadataOf({ queryIdx: queryIndex, gold: episode.gold }),
        },
        record,
        context,
      ),
    ];
  },
};

import type { FormatAdapter } from '../adapter';
import { stepsFromChat } from './chat-steps';
import {
  baseName,
  expectArray,
  expectId,
  expectObject,
  isRecord,
  metadataOf,
  optionalNumber,
  optionalString,
} from './json-guards';
import { chatEntriesFromOpenAiMessages } from './openai-chat';
import { buildTrajectory, rewardOutcome } from './trajectory-builder';

// Historical files are named `<model>-<environment>.json`, e.g. `gpt-4o-airline.json`; the records
// themselves name neither the model nor the environment.
const FILE_NAME = /^(.+)-(airline|retail)\.json$/i;

/** tau-bench v1 historical trajectories: a JSON array of `{task_id, reward, info, traj, trial}`. */
export const tauBenchV1Adapter: FormatAdapter = {
  format: 'tau-bench-v1',
  layout: { kind: 'json-array' },
  sniff({ head }) {
    return /^\s*\[\s*\{\s*"task_id"\s*:/.test(head) && /"(traj|reward|trial)"\s*:/.test(head);
  },
  convert(record, context) {
    const root = expectObject(record, '');
    const taskId = expectId(root.task_id, 'task_id');
    const trial = root.trial === undefined ? null : expectId(root.trial, 'trial');
    const info = root.info === undefined ? {} : expectObject(root.info, 'info');
    const task = isRecord(info.task)
      ? optionalString(info.task.instruction, 'info.task.instruction')
      : null;
    const chat = stepsFromChat(
      chatEntriesFromOpenAiMessages(expectArray(root.traj, 'traj'), 'traj', context.notes),
    );
    const fileMatch = FILE_NAME.exec(baseName(context.file));
    return [
      buildTrajectory(
        {
          externalId: trial === null ? `task-${taskId}` : `task-${taskId}-trial-${trial}`,
          sourceFormat: 'tau-bench-v1',
          sourceBenchmark: fileMatch?.[2] ? `tau-bench/${fileMatch[2].toLowerCase()}` : 'tau-bench',
          domain: 'tool',
          task,
          systemPrompt: chat.systemPrompt,
          tools: null,
          agentModel: fileMatch?.[1] ?? null,
          outcome: rewardOutcome(optionalNumber(root.reward, 'reward')),
          steps: chat.steps,
          metadata: metadataOf({
            taskId: root.task_id,
            trial: root.trial,
            userId: isRecord(info.task) ? info.task.user_id : undefined,
          }),
        },
        record,
        context,
      ),
    ];
  },
};

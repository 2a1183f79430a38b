import { describe, expect, it } from 'vitest';
import {
  classify,
  familyOf,
  measureSufficiency,
  NOT_A_COMMAND,
  shellCommandOf,
} from './sufficiency';
import type { Trajectory } from '@terrarium/schema';
import type { WorldStepResult } from './world';

const executed: Pick<WorldStepResult, 'provenance'> = { provenance: 'executed' };

describe('classify', () => {
  it('counts an option the world refused and the real shell ran as a fallback naming both', () => {
    const command = 'find /testbed -type f -exec md5sum {} + | sort | uniq -d -w 32';
    expect(
      classify(
        executed,
        'f32a3a97638afeb2ee2a15cfe335ab72  /testbed/Hello.java\n',
        "uniq: invalid option -- 'w'\n",
        command,
      ),
    ).toEqual({ outcome: 'fallback', reason: 'unsupported-option:uniq -w' });
    expect(
      classify(
        executed,
        '',
        "tar: unrecognized option '--transform'\n",
        "tar -cf /backup1.tar --transform 's/^testbed\\///' -C /testbed .",
      ),
    ).toEqual({ outcome: 'fallback', reason: 'unsupported-option:tar --transform' });
  });

  it('keeps exact and mismatch for what the world ran, a refusal the real shell printed too included', () => {
    expect(classify(executed, 'a\n', 'a\n', 'cat a')).toEqual({ outcome: 'exact', reason: null });
    expect(classify(executed, 'a\n', 'b\n', 'cat a')).toEqual({
      outcome: 'mismatch',
      reason: null,
    });
    // Byte for byte the real refusal: exact.
    expect(
      classify(executed, "wc: invalid option -- 'u'\n", "wc: invalid option -- 'u'\n", 'wc -u a'),
    ).toEqual({ outcome: 'exact', reason: null });
    // The real refusal with GNU's help line after it: the world is right but for that line.
    expect(
      classify(
        executed,
        "mkdir: invalid option -- 'f'\nTry 'mkdir --help' for more information.\n",
        "mkdir: invalid option -- 'f'\n",
        'mkdir -p -f $(cat /workspace/files.txt)',
      ),
    ).toEqual({ outcome: 'mismatch', reason: null });
  });

  it('counts a refusal a later pipeline stage consumed as a fallback, read from the stage messages', () => {
    // Walk 52: awk printed the first word of uniq's refusal; the output holds no refusal to see.
    const command =
      'find /testbed -type f -name "*.java" -exec md5sum {} + | sort | uniq -D -w 32 | awk \'{print $1}\' | uniq';
    const expected = 'f32a3a97638afeb2ee2a15cfe335ab72\n';
    expect(classify(executed, expected, 'uniq:\n', command)).toEqual({
      outcome: 'mismatch',
      reason: null,
    });
    expect(
      classify(executed, expected, 'uniq:\n', command, "uniq: invalid option -- 'D'\n"),
    ).toEqual({ outcome: 'fallback', reason: 'unsupported-option:uniq -D' });
    // Stage messages with no refusal, or one the real shell printed too, leave it a mismatch.
    expect(classify(executed, expected, '\n', command, 'sort: read error\n')).toEqual({
      outcome: 'mismatch',
      reason: null,
    });
    expect(
      classify(
        executed,
        "uniq: invalid option -- 'D'\n",
        'uniq:\n',
        command,
        "uniq: invalid option -- 'D'\n",
      ),
    ).toEqual({ outcome: 'mismatch', reason: null });
  });

  it("counts what the world did not run as a fallback, with the world's reason", () => {
    expect(
      classify(
        { provenance: 'recorded', detail: { reason: 'unsupported-command:df' } },
        'x',
        'x',
        'df -h',
      ),
    ).toEqual({ outcome: 'fallback', reason: 'unsupported-command:df' });
    expect(classify({ provenance: 'world-model' }, 'x', 'y', 'git log')).toEqual({
      outcome: 'fallback',
      reason: null,
    });
  });
});

describe('shellCommandOf', () => {
  it('leaves out `submit`, bare or with the flag EnIGMA takes, and unwraps InterCode ReAct actions', () => {
    expect(
      [
        'submit',
        'submit\n',
        "submit 'flag{People always make the best exploits.}'\n",
        'submit FLAG{LET_US_BEGIN_CSAW_2016}\n',
        'execute[ls -la]',
        'execute[cat a]\nObservation',
        'submitted.sh',
        'ls submit',
      ].map(shellCommandOf),
    ).toEqual([null, null, null, null, 'ls -la', 'cat a', 'submitted.sh', 'ls submit']);
  });
});

/** A recorded shell step of an InterCode-like run. */
const shellStep = (text: string, output: string, index: number): Trajectory['steps'][number] => ({
  index,
  actor: 'agent',
  action: { type: 'command', command: text, interpreter: null },
  observation: { kind: 'terminal', content: output, callId: null },
  reasoning: null,
  reward: null,
  timing: null,
  metadata: {},
});

describe('measureSufficiency on a pipeline whose refusal a later stage consumed', () => {
  it('counts it a fallback and replays the rest as if the line had run once', async () => {
    const trajectory: Trajectory = {
      externalId: 'pipe',
      sourceFormat: 'intercode',
      sourceBenchmark: null,
      domain: 'terminal',
      task: null,
      systemPrompt: null,
      tools: [],
      toolsInferred: true,
      agentModel: null,
      outcome: { reward: null, success: null },
      steps: [
        shellStep('cat /data/sums.txt', 'a1  /x\na1  /y\nb2  /z\n', 0),
        shellStep("sort /data/sums.txt | uniq -D -w 2 | awk '{print $2}'", '/x\n/y\n', 1),
        shellStep('echo done > /data/out.txt; cat /data/out.txt', 'done\n', 2),
      ],
      metadata: {},
      source: { file: 'pipe.json', line: null, record: null },
    };
    const report = await measureSufficiency([trajectory], { dataset: 'pipe', pool: false });
    expect([report.exact, report.fallback, report.mismatch]).toEqual([2, 1, 0]);
    expect(
      report.trajectories[0]?.mismatches.map((check) => [check.step, check.reason, check.actual]),
    ).toEqual([
      // awk printed the second word of uniq's refusal, which the world sent down the pipe.
      [1, 'unsupported-option:uniq -D', 'invalid\n'],
    ]);
  });
});

describe('familyOf', () => {
  it('files prose and blank actions under one family, commands under their first program', () => {
    expect(
      [
        'Great! If you have any more questions or need further assistance, feel free to ask.',
        'Thank you! If you have any more questions, feel free to ask.',
        '',
        '   ',
        'find . -type f | wc -l',
        "proc_load_average=$(cat /proc/loadavg | awk '{print $1}'); echo $proc_load_average",
      ].map(familyOf),
    ).toEqual([NOT_A_COMMAND, NOT_A_COMMAND, NOT_A_COMMAND, NOT_A_COMMAND, 'find', 'cat']);
    expect(NOT_A_COMMAND).toBe('(not a command)');
  });
});

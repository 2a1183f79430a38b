import { describe, expect, it } from 'vitest';
import { classify, familyOf, NOT_A_COMMAND } from './sufficiency';
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

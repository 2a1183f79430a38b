import { parseRuleSet, type CustomRule } from '@terrarium/rubrics';
import { describe, expect, it } from 'vitest';
import { customRuleIssues } from './custom-rule-check';
import { SandboxError } from './sandbox-pool';

function ruleSetWith(source: string) {
  const parsed = parseRuleSet(
    `name: checked\nrules:\n  - id: mine\n    type: custom\n    source: ${JSON.stringify(source)}\n`,
  );
  if (!parsed.ok) throw new Error('the test rule set does not parse');
  return parsed.ruleSet;
}

describe('customRuleIssues', () => {
  it("makes the rule's own failure an issue on its source", async () => {
    const issues = await customRuleIssues(ruleSetWith('function nope() {}'), () =>
      Promise.reject(new SandboxError('the rule defines no function score(item)', 'rule')),
    );
    expect(issues).toEqual([
      {
        field: 'rules.0.source',
        message: 'the rule defines no function score(item)',
        line: 0,
        column: 0,
      },
    ]);
  });

  it("passes the sandbox's own failure on, not as the rule's (a 400 a trainer would not retry)", async () => {
    const lost = new SandboxError('the sandbox worker exited (1)', 'sandbox');
    await expect(
      customRuleIssues(ruleSetWith('function score() { return 1 }'), () => Promise.reject(lost)),
    ).rejects.toBe(lost);
  });

  it('checks a rule that passed once no more', async () => {
    const checked: CustomRule[] = [];
    // A source no other test of this file checks: passes are kept per process.
    const source = 'function score() { return 0.25 } // checked once';
    for (let round = 0; round < 3; round++)
      expect(
        await customRuleIssues(ruleSetWith(source), async (rule) => {
          checked.push(rule);
        }),
      ).toEqual([]);
    expect(checked.map((rule) => rule.source)).toEqual([source]);
  });
});

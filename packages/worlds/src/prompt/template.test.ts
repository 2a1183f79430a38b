import { describe, expect, it } from 'vitest';
import { loadTrajectories, REAL_FILES } from '../testing/real-data';
import { predictionInputAt, simContextOf } from '../trajectory-inputs';
import { compileTemplate, fillTemplate, TemplateSyntaxError } from './placeholders';
import {
  DEFAULT_TEMPLATE,
  DEFAULT_TEMPLATES,
  PromptTemplate,
  renderMessages,
  selectTemplate,
} from './template';

describe('placeholders', () => {
  it('fills values verbatim and keeps sections only when their value is set', () => {
    const template =
      '{{#task}}Task: {{task}}\n{{/task}}{{^task}}No task.\n{{/task}}Tools: {{ tools }}';
    expect(fillTemplate(template, { task: 'echo {{tools}}', tools: 'none' })).toBe(
      'Task: echo {{tools}}\nTools: none',
    );
    expect(compileTemplate(template)({ tools: '' })).toBe('No task.\nTools: ');
  });

  it('rejects unbalanced sections with their place', () => {
    expect(() => fillTemplate('{{#a}}x{{/b}}', {})).toThrow(
      new TemplateSyntaxError('{{/b}} at offset 7 closes {{#a}}'),
    );
    expect(() => fillTemplate('{{#a}}x', {})).toThrow('{{#a}} is never closed');
  });
});

describe('prompt templates', () => {
  it('are validated as data: unknown placeholders are named', () => {
    expect(PromptTemplate.safeParse(DEFAULT_TEMPLATE).success).toBe(true);
    const edited = { ...DEFAULT_TEMPLATE, renderObservation: '{{content}} {{reward}}' };
    const result = PromptTemplate.safeParse(edited);
    expect(result.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [
        ['renderObservation'],
        'unknown placeholder {{reward}} in renderObservation; allowed: content, kind',
      ],
    ]);
  });

  it('are chosen by domain, the highest version first, `*` last', () => {
    const mine = { ...DEFAULT_TEMPLATE, id: 'mine', version: 3, domain: 'terminal' as const };
    expect(selectTemplate(DEFAULT_TEMPLATES, 'terminal').id).toBe('agentworldbench-terminal');
    expect(selectTemplate([...DEFAULT_TEMPLATES, mine], 'terminal').id).toBe('mine');
    expect(selectTemplate(DEFAULT_TEMPLATES, 'tool').id).toBe('agentworldbench');
    expect(() => selectTemplate([mine], 'tool')).toThrow('no prompt template for domain "tool"');
  });

  it('render the AgentWorldBench protocol for a real tau2 retail step', async () => {
    const [trajectory] = await loadTrajectories(REAL_FILES.tau2Retail);
    if (trajectory === undefined) throw new Error('no retail trajectory');
    const input = predictionInputAt(trajectory, 6);
    if (input === null) throw new Error('step 6 is not a transition');
    expect(predictionInputAt(trajectory, 7)).toBeNull();
    const messages = renderMessages(DEFAULT_TEMPLATE, input.context, input.history, input.action);
    expect(messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    const system = messages[0]?.content ?? '';
    expect(system.startsWith('You are a world model: you simulate the environment')).toBe(true);
    expect(system).toContain(
      `\n\nDomain: tool\n\n# The task given to the agent\n${trajectory.task ?? ''}`,
    );
    expect(system).toContain(`# The agent's system prompt\n${trajectory.systemPrompt ?? ''}`);
    expect(system.endsWith(`${JSON.stringify(simContextOf(trajectory).tools, null, 2)}`)).toBe(
      true,
    );
    expect(messages.slice(1).map((message) => message.content.slice(0, 60))).toEqual([
      '{"name":"find_user_id_by_email","arguments":{"email":"isabel',
      'isabella_lopez_6490',
      '{"name":"get_user_details","arguments":{"user_id":"isabella_',
      '{"user_id": "isabella_lopez_6490", "name": {"first_name": "I',
      '{"name":"get_order_details","arguments":{"order_id":"#W49232',
    ]);
    expect(messages[4]?.content).toBe(trajectory.steps[5]?.observation?.content);
  });

  it('leave out the sections a trajectory does not have', () => {
    const messages = renderMessages(
      DEFAULT_TEMPLATES[1] ?? DEFAULT_TEMPLATE,
      { domain: 'terminal', task: null, systemPrompt: null, tools: [] },
      [],
      { type: 'command', command: 'ls -la', interpreter: 'bash' },
    );
    expect(messages).toEqual([
      {
        role: 'system',
        content: expect.stringMatching(/exact terminal output .*\n\nDomain: terminal$/s),
      },
      { role: 'user', content: 'ls -la' },
    ]);
  });
});

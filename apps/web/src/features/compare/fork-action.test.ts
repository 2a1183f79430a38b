import type { Action } from '@terrarium/schema';
import { describe, expect, it } from 'vitest';
import { actionFromDraft, draftOf } from './fork-action';

// Step 5 (1-based) of the first tau2 retail simulation.
const LOOKUP: Action = {
  type: 'tool_call',
  name: 'find_user_id_by_email',
  arguments: { email: 'isabella.lopez3271@example.com' },
  callId: 'call_2xzbrH6DkKxcu4GnAB2Rdipb',
};

describe('fork action drafts', () => {
  it('turns a tool call into editable text and back, keeping its call id', () => {
    const draft = draftOf(LOOKUP);
    expect(draft).toEqual({
      type: 'tool_call',
      name: 'find_user_id_by_email',
      argumentsText: '{\n  "email": "isabella.lopez3271@example.com"\n}',
    });
    if (draft === null || draft.type !== 'tool_call') throw new Error('expected a tool call draft');
    expect(
      actionFromDraft(
        { ...draft, argumentsText: '{"email": "mei.kovacs8020@example.com"}' },
        LOOKUP,
      ),
    ).toEqual({
      ok: true,
      action: { ...LOOKUP, arguments: { email: 'mei.kovacs8020@example.com' } },
    });
  });

  it('names the field that is wrong', () => {
    const draft = { type: 'tool_call', name: 'find_user_id_by_email', argumentsText: '' } as const;
    expect(actionFromDraft({ ...draft, argumentsText: '{"email": ' }, LOOKUP)).toMatchObject({
      ok: false,
      field: 'arguments',
      message: expect.stringMatching(/^not valid JSON: /),
    });
    expect(actionFromDraft({ ...draft, argumentsText: '["a"]' }, LOOKUP)).toEqual({
      ok: false,
      field: 'arguments',
      message: 'expected a JSON object of arguments',
    });
    expect(actionFromDraft({ ...draft, name: '  ', argumentsText: '{}' }, LOOKUP)).toEqual({
      ok: false,
      field: 'name',
      message: 'a tool name is required',
    });
  });

  it('edits a command line and keeps its interpreter', () => {
    const command: Action = { type: 'command', command: 'SHOW TABLES', interpreter: 'sql' };
    expect(draftOf(command)).toEqual({ type: 'command', command: 'SHOW TABLES' });
    expect(actionFromDraft({ type: 'command', command: 'SELECT 1' }, command)).toEqual({
      ok: true,
      action: { type: 'command', command: 'SELECT 1', interpreter: 'sql' },
    });
    expect(actionFromDraft({ type: 'command', command: ' ' }, command)).toMatchObject({
      ok: false,
      field: 'command',
    });
  });

  it('offers no draft for a message', () => {
    expect(draftOf({ type: 'message', text: 'hello' })).toBeNull();
  });
});

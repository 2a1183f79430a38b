import {
  Domain,
  JsonValue,
  ToolSchema,
  type Action,
  type Observation,
  type Trajectory,
} from '@terrarium/schema';
import { rowActionText, rowObservationText } from '@terrarium/formats';
import {
  actionText,
  DEFAULT_TEMPLATES,
  predictedKind,
  renderMessages,
  selectTemplate,
  simContextOf,
  type ChatMessage,
  type SimContext,
  type Transition,
} from '@terrarium/worlds';

/** What a world model takes, read back from a chat that packages/worlds' templates rendered. */
export interface SimInput {
  context: SimContext;
  history: Transition[];
  action: Action;
}

export class ChatInputError extends Error {
  override name = 'ChatInputError';
  constructor(
    /** The request field at fault, e.g. `messages[3].role`. */
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

// The section headings of the default templates' system prompt (packages/worlds, CONTEXT_SECTIONS).
const DOMAIN_MARKER = '\n\nDomain: ';
const TASK_MARKER = '\n\n# The task given to the agent\n';
const SYSTEM_PROMPT_MARKER = "\n\n# The agent's system prompt\n";
const TOOLS_MARKER = '\n\n# Tools available to the agent (OpenAI function schemas)\n';

/** Domain when the system message does not name one: function calling is the common case. */
const FALLBACK_DOMAIN: Domain = 'tool';

function parseTools(text: string): SimContext['tools'] {
  try {
    const parsed = ToolSchema.array().safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/**
 * The setting, read from a system message written by one of the default templates: after the
 * instruction come `Domain: …` and optional task, system prompt and tools sections. A system
 * message in any other shape is kept whole as the agent's system prompt. The tools JSON has no blank
 * line (newlines in strings are escaped), so its heading is found from the end; the task section
 * comes first and ends at the last system-prompt heading.
 */
export function parseSystemMessage(system: string): SimContext {
  const domainAt = system.indexOf(DOMAIN_MARKER);
  if (domainAt === -1) {
    return { domain: FALLBACK_DOMAIN, task: null, systemPrompt: system || null, tools: [] };
  }
  let rest = system.slice(domainAt + DOMAIN_MARKER.length);
  const lineEnd = rest.indexOf('\n');
  const domainText = lineEnd === -1 ? rest : rest.slice(0, lineEnd);
  rest = lineEnd === -1 ? '' : rest.slice(lineEnd);
  const domain = Domain.safeParse(domainText.trim());

  let tools: SimContext['tools'] = [];
  const toolsAt = rest.lastIndexOf(TOOLS_MARKER);
  if (toolsAt !== -1) {
    tools = parseTools(rest.slice(toolsAt + TOOLS_MARKER.length));
    rest = rest.slice(0, toolsAt);
  }
  let systemPrompt: string | null = null;
  const promptAt = rest.lastIndexOf(SYSTEM_PROMPT_MARKER);
  if (promptAt !== -1) {
    systemPrompt = rest.slice(promptAt + SYSTEM_PROMPT_MARKER.length);
    rest = rest.slice(0, promptAt);
  }
  const task = rest.startsWith(TASK_MARKER) ? rest.slice(TASK_MARKER.length) : null;
  return {
    domain: domain.success ? domain.data : FALLBACK_DOMAIN,
    task,
    systemPrompt,
    tools,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An action as the templates render it: a call is `{"name","arguments"}` JSON (a browser action in
 * web and android worlds), anything else a command. Keystrokes and a command's interpreter do not
 * survive rendering; indexes meant for chat clients are built from `asChatCarriesIt` so that this
 * loss is the same on both sides.
 */
export function parseActionText(text: string, domain: Domain): Action {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      // The argument key as the AgentWorldBench importer reads it (`arguments`, `parameters`,
      // `args`), so a call typed by a client and one imported from a file are the same action.
      const argsKey = ['arguments', 'parameters', 'args'].find(
        (key) => isRecord(parsed) && key in parsed,
      );
      if (
        isRecord(parsed) &&
        typeof parsed['name'] === 'string' &&
        argsKey !== undefined &&
        Object.keys(parsed).length === 2
      ) {
        const name = parsed['name'];
        const args = JsonValue.parse(parsed[argsKey]);
        return domain === 'web' || domain === 'android'
          ? { type: 'browser', name, arguments: args }
          : { type: 'tool_call', name, arguments: args, callId: null };
      }
    } catch {
      // Not JSON after all: a command that starts with a brace.
    }
  }
  return { type: 'command', command: text, interpreter: null };
}

export function parseObservationText(text: string, domain: Domain): Observation {
  return { kind: predictedKind(text, domain), content: text, callId: null };
}

function contentOf(message: unknown, at: number): { role: string; content: string } {
  if (!isRecord(message)) throw new ChatInputError(`messages[${at}]`, 'expected an object');
  const { role, content } = message;
  if (typeof role !== 'string')
    throw new ChatInputError(`messages[${at}].role`, 'expected a string');
  if (typeof content === 'string') return { role, content };
  // OpenAI clients may send content as parts; only text parts carry anything a world model reads.
  if (Array.isArray(content)) {
    const parts = content.map((part) =>
      isRecord(part) && typeof part['text'] === 'string' ? part['text'] : '',
    );
    return { role, content: parts.join('') };
  }
  // An assistant message may have no content (it called tools); a user message is the action, and
  // without content the lookup would run on an empty action and answer "no recorded transition".
  if ((content === null || content === undefined) && role !== 'user') return { role, content: '' };
  if (content === null || content === undefined)
    throw new ChatInputError(
      `messages[${at}].content`,
      'a user message carries an action: expected a string or text parts',
    );
  throw new ChatInputError(`messages[${at}].content`, 'expected a string or text parts');
}

/**
 * Reads an AgentWorldBench chat back into a world model's input: an optional system message, then
 * user(action) / assistant(observation) pairs, then the current action as the last user message.
 * Both layouts are read: Terrarium's templates (`renderMessages`) and the official script's, whose
 * system message is the row's `system_str` and whose turns carry the row markers (`### Turn N` /
 * `**Action:**`, `**Environment Observation:**`), taken off here as the importer takes them off.
 */
export function parseChatToSimInput(messages: unknown): SimInput {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new ChatInputError('messages', 'expected a non-empty array of chat messages');
  }
  const turns = messages.map((message, at) => contentOf(message, at));
  let at = 0;
  let context = parseSystemMessage('');
  if (turns[0]?.role === 'system') {
    context = parseSystemMessage(turns[0].content);
    at = 1;
  }
  const rest = turns.slice(at);
  if (rest.length % 2 === 0) {
    throw new ChatInputError(
      'messages',
      'expected user(action)/assistant(observation) pairs ending with a user message (the current action)',
    );
  }
  const history: Transition[] = [];
  for (let pair = 0; pair + 1 < rest.length; pair += 2) {
    const user = rest[pair];
    const assistant = rest[pair + 1];
    if (user?.role !== 'user') {
      throw new ChatInputError(`messages[${at + pair}].role`, 'expected "user" (an action)');
    }
    if (assistant?.role !== 'assistant') {
      throw new ChatInputError(
        `messages[${at + pair + 1}].role`,
        'expected "assistant" (the observation)',
      );
    }
    history.push({
      action: parseActionText(rowActionText(user.content), context.domain),
      observation: parseObservationText(rowObservationText(assistant.content), context.domain),
    });
  }
  const last = rest.at(-1);
  if (last?.role !== 'user') {
    throw new ChatInputError(
      `messages[${messages.length - 1}].role`,
      'expected "user": the last message is the current action',
    );
  }
  return {
    context,
    history,
    action: parseActionText(rowActionText(last.content), context.domain),
  };
}

/**
 * The trajectory as a chat client can describe it: each transition rendered with the default
 * template and parsed back. Replay and retrieval served behind the chat protocol index this form,
 * so that what a client sends (an action's interpreter is not in the text, an observation's kind is
 * guessed from its content) matches what was recorded. Observation contents are unchanged.
 */
export function asChatCarriesIt(trajectory: Trajectory): Trajectory {
  if (trajectory.sourceFormat === 'agentworldbench') return asOfficialChatCarriesIt(trajectory);
  const original = simContextOf(trajectory);
  const template = selectTemplate(DEFAULT_TEMPLATES, original.domain);
  let context: SimContext | null = null;
  const steps = trajectory.steps.map((step) => {
    if (step.observation === null || step.action.type === 'message') return step;
    const messages: ChatMessage[] = renderMessages(
      template,
      original,
      [{ action: step.action, observation: step.observation }],
      step.action,
    );
    const parsed = parseChatToSimInput(messages);
    context ??= parsed.context;
    const transition = parsed.history[0];
    if (transition === undefined) return step;
    return {
      ...step,
      action: transition.action,
      observation: { ...transition.observation, callId: step.observation.callId },
    };
  });
  const setting =
    context ??
    parseChatToSimInput(
      renderMessages(template, original, [], {
        type: 'command',
        command: '',
        interpreter: null,
      }),
    ).context;
  return { ...trajectory, ...setting, steps };
}

/**
 * An imported AgentWorldBench row as the official script sends it: the row's `system_str` as the
 * system message (none when empty), actions and observations as their text. Read back with
 * `parseChatToSimInput`, as a client's chat is, so both sides lose and keep the same things.
 */
function asOfficialChatCarriesIt(trajectory: Trajectory): Trajectory {
  const system: ChatMessage[] =
    trajectory.systemPrompt === null || trajectory.systemPrompt === ''
      ? []
      : [{ role: 'system', content: trajectory.systemPrompt }];
  const steps = trajectory.steps.map((step) => {
    if (step.observation === null || step.action.type === 'message') return step;
    const parsed = parseChatToSimInput([
      ...system,
      { role: 'user', content: actionText(step.action) },
      { role: 'assistant', content: step.observation.content },
      { role: 'user', content: actionText(step.action) },
    ]);
    const transition = parsed.history[0];
    if (transition === undefined) return step;
    return {
      ...step,
      action: transition.action,
      observation: { ...transition.observation, callId: step.observation.callId },
    };
  });
  const { context } = parseChatToSimInput([...system, { role: 'user', content: '' }]);
  return { ...trajectory, ...context, steps };
}

import { DOMAINS, type Action, type Observation } from '@terrarium/schema';
import { z } from 'zod';
import { actionHead, actionText } from '../action-text';
import { canonicalJson } from '../canonical-json';
import type { SimContext, Transition } from '../world-model';
import {
  compileTemplate,
  parseTemplate,
  placeholdersOf,
  type CompiledTemplate,
} from './placeholders';

/** Placeholders each part of a template may use. */
export const TEMPLATE_PLACEHOLDERS = {
  system: ['domain', 'task', 'systemPrompt', 'tools', 'toolNames'],
  renderAction: ['action', 'type', 'name', 'arguments'],
  renderObservation: ['content', 'kind'],
} as const;

type TemplatePart = keyof typeof TEMPLATE_PLACEHOLDERS;

function checkPart(part: TemplatePart) {
  return (text: string, context: z.RefinementCtx) => {
    try {
      parseTemplate(text);
    } catch (error) {
      context.addIssue({
        code: 'custom',
        message: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    const allowed: readonly string[] = TEMPLATE_PLACEHOLDERS[part];
    for (const name of placeholdersOf(text)) {
      if (!allowed.includes(name)) {
        context.addIssue({
          code: 'custom',
          message: `unknown placeholder {{${name}}} in ${part}; allowed: ${allowed.join(', ')}`,
        });
      }
    }
  };
}

/**
 * A prompt template: plain data a user can edit (no code), versioned so a prediction can name the
 * exact prompt it was made with.
 */
export const PromptTemplate = z.object({
  id: z.string().min(1),
  version: z.number().int().positive(),
  domain: z.union([z.enum(DOMAINS), z.literal('*')]),
  system: z.string().superRefine(checkPart('system')),
  renderAction: z.string().superRefine(checkPart('renderAction')),
  renderObservation: z.string().superRefine(checkPart('renderObservation')),
});
export type PromptTemplate = z.infer<typeof PromptTemplate>;

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

const WORLD_MODEL_INSTRUCTION =
  'You are a world model: you simulate the environment that an AI agent acts in. Each user message ' +
  "is one action of the agent; each assistant message is the environment's response to it. Reply " +
  "to the last action with the environment's response exactly as the real environment would " +
  'return it: same format, consistent with everything that happened before, and nothing else (no ' +
  'commentary).';

const CONTEXT_SECTIONS =
  '{{#domain}}\n\nDomain: {{domain}}{{/domain}}' +
  '{{#task}}\n\n# The task given to the agent\n{{task}}{{/task}}' +
  "{{#systemPrompt}}\n\n# The agent's system prompt\n{{systemPrompt}}{{/systemPrompt}}" +
  '{{#tools}}\n\n# Tools available to the agent (OpenAI function schemas)\n{{tools}}{{/tools}}';

/** The AgentWorldBench protocol: instruction + setting, then actions and real observations. */
export const DEFAULT_TEMPLATE: PromptTemplate = {
  id: 'agentworldbench',
  version: 1,
  domain: '*',
  system: WORLD_MODEL_INSTRUCTION + CONTEXT_SECTIONS,
  renderAction: '{{action}}',
  renderObservation: '{{content}}',
};

export const DEFAULT_TEMPLATES: readonly PromptTemplate[] = [
  DEFAULT_TEMPLATE,
  {
    id: 'agentworldbench-terminal',
    version: 1,
    domain: 'terminal',
    system:
      WORLD_MODEL_INSTRUCTION +
      ' Each action is a shell command or keystrokes; reply with the exact terminal output ' +
      '(stdout and stderr as the terminal shows them), empty when the command prints nothing.' +
      CONTEXT_SECTIONS,
    renderAction: '{{action}}',
    renderObservation: '{{content}}',
  },
  {
    id: 'agentworldbench-database',
    version: 1,
    domain: 'database',
    system:
      WORLD_MODEL_INSTRUCTION +
      " Each action is a query; reply with the database client's exact output: the result rows " +
      'or the error message.' +
      CONTEXT_SECTIONS,
    renderAction: '{{action}}',
    renderObservation: '{{content}}',
  },
];

/** The template for a domain: the highest version written for it, else for `*`. */
export function selectTemplate(
  templates: readonly PromptTemplate[],
  domain: SimContext['domain'],
): PromptTemplate {
  let best: PromptTemplate | null = null;
  for (const template of templates) {
    if (template.domain !== domain && template.domain !== '*') continue;
    if (
      best === null ||
      (best.domain === '*' && template.domain !== '*') ||
      (best.domain === template.domain && template.version > best.version)
    ) {
      best = template;
    }
  }
  if (best === null) throw new Error(`no prompt template for domain "${domain}" and none for "*"`);
  return best;
}

export function systemValues(context: SimContext): Record<string, string> {
  return {
    domain: context.domain,
    task: context.task ?? '',
    systemPrompt: context.systemPrompt ?? '',
    tools: context.tools.length === 0 ? '' : JSON.stringify(context.tools, null, 2),
    toolNames: context.tools.map((tool) => tool.function.name).join(', '),
  };
}

export function actionValues(action: Action): Record<string, string> {
  return {
    action: actionText(action),
    type: action.type,
    name: actionHead(action),
    arguments:
      action.type === 'tool_call' || action.type === 'browser'
        ? canonicalJson(action.arguments)
        : actionText(action),
  };
}

export function observationValues(observation: Observation): Record<string, string> {
  return { content: observation.content, kind: observation.kind };
}

interface CompiledPromptTemplate {
  system: CompiledTemplate;
  renderAction: CompiledTemplate;
  renderObservation: CompiledTemplate;
}

// Templates are data that may change between calls, so compiled forms are keyed by the object and
// by its text.
const compiledTemplates = new WeakMap<
  PromptTemplate,
  { source: string; compiled: CompiledPromptTemplate }
>();

function compiled(template: PromptTemplate): CompiledPromptTemplate {
  const source = `${template.system}\u0000${template.renderAction}\u0000${template.renderObservation}`;
  const cached = compiledTemplates.get(template);
  if (cached !== undefined && cached.source === source) return cached.compiled;
  const fresh = {
    system: compileTemplate(template.system),
    renderAction: compileTemplate(template.renderAction),
    renderObservation: compileTemplate(template.renderObservation),
  };
  compiledTemplates.set(template, { source, compiled: fresh });
  return fresh;
}

/**
 * The chat a model sees: the system prompt, each earlier transition as user(action) /
 * assistant(real observation), then the current action as the last user message.
 */
export function renderMessages(
  template: PromptTemplate,
  context: SimContext,
  history: readonly Transition[],
  action: Action,
): ChatMessage[] {
  const { system, renderAction, renderObservation } = compiled(template);
  const messages: ChatMessage[] = [{ role: 'system', content: system(systemValues(context)) }];
  for (const transition of history) {
    messages.push({ role: 'user', content: renderAction(actionValues(transition.action)) });
    messages.push({
      role: 'assistant',
      content: renderObservation(observationValues(transition.observation)),
    });
  }
  messages.push({ role: 'user', content: renderAction(actionValues(action)) });
  return messages;
}

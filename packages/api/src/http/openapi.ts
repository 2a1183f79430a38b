import { CreateEnvRequest, StepEnvRequest, Task } from '@terrarium/curriculum';
import { TERRARIUM_VERSION } from '../version';
import { ChatCompletionRequest } from './openai-routes';
import { rewardOpenApi } from './reward-openapi';
import { OpenRlhfRequest, RewardRequest } from './reward-routes';
import { componentSchemas, type JsonObject } from './openapi-schemas';
import { SimulateParams } from './simulate-route';
import { chatOpenApi, simulateOpenApi } from './simulator-openapi';

export const ENV_OPENAPI_PATH = '/v1/openapi.json';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonObject) => ({ content: { 'application/json': { schema } } });
const errorResponse = (description: string) => ({ description, ...json(ref('Error')) });
const sessionId = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'The session id `POST /v1/envs` returned.',
};

const STANDARD_ERRORS = {
  '400': errorResponse('The body is not valid; `error.issues` names the fields.'),
  '401': errorResponse('Missing or wrong bearer token.'),
  '404': errorResponse('No such session (it may have expired), task or world.'),
};

const ENV_PATHS: JsonObject = {
  '/v1/envs': {
    get: {
      summary: 'How many sessions are open, and the limits (admission, expiry, memory)',
      operationId: 'envStats',
      responses: {
        '200': { description: 'Counts and limits', ...json({ type: 'object' }) },
        '401': STANDARD_ERRORS['401'],
      },
    },
    post: {
      summary: 'Open a session on a task (with its verifier) or a bare world',
      operationId: 'createEnv',
      requestBody: { required: true, ...json(ref('CreateEnvRequest')) },
      responses: {
        '201': { description: 'The session', ...json(ref('EnvOpened')) },
        ...STANDARD_ERRORS,
        '503': {
          description:
            'The server holds as many sessions as it admits. Wait `Retry-After` seconds.',
          headers: { 'Retry-After': { schema: { type: 'integer' } } },
          ...json(ref('Error')),
        },
      },
    },
  },
  '/v1/envs/{id}': {
    delete: {
      summary: 'Close a session',
      operationId: 'deleteEnv',
      parameters: [sessionId],
      responses: { '204': { description: 'Closed' }, ...STANDARD_ERRORS },
    },
  },
  '/v1/envs/{id}/step': {
    post: {
      summary: 'Act: raw text (a shell line, or `submit [answer]`) or an OpenAI tool call',
      operationId: 'stepEnv',
      parameters: [sessionId],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: ref('StepEnvRequest') },
          'text/plain': { schema: { type: 'string' } },
        },
      },
      responses: {
        '200': { description: 'What the action did', ...json(ref('StepResult')) },
        ...STANDARD_ERRORS,
        '409': errorResponse('The episode is over (terminated or truncated).'),
      },
    },
  },
  '/v1/envs/{id}/state': {
    get: {
      summary:
        "The session: steps (the policy's moves toward maxSteps, invalid ones included), flags, last output and a summary of the world state (its own steps count the commands the world ran)",
      operationId: 'getEnvState',
      parameters: [sessionId],
      responses: {
        '200': { description: 'State', ...json({ type: 'object' }) },
        ...STANDARD_ERRORS,
      },
    },
  },
  '/v1/envs/{id}/fork': {
    post: {
      summary:
        'A new session with identical state; both continue identically under the same actions',
      operationId: 'forkEnv',
      parameters: [sessionId],
      responses: {
        '201': { description: 'The new session', ...json(ref('EnvOpened')) },
        ...STANDARD_ERRORS,
        '503': errorResponse('Full; see POST /v1/envs.'),
      },
    },
  },
  '/v1/envs/{id}/evaluate': {
    post: {
      summary: "Score the current state with the task's verifier (the session goes on)",
      operationId: 'evaluateEnv',
      parameters: [sessionId],
      responses: {
        '200': { description: 'Reward and per-check breakdown', ...json(ref('Evaluation')) },
        ...STANDARD_ERRORS,
        '409': errorResponse('A bare world has no verifier.'),
      },
    },
  },
  '/v1/tasks': {
    get: {
      summary: 'Tasks that passed their gates',
      operationId: 'listTasks',
      responses: { '200': { description: 'Tasks', ...json({ type: 'object' }) } },
    },
    post: {
      summary: 'Add a task; it is stored only when it passes every gate',
      operationId: 'addTask',
      requestBody: { required: true, ...json(ref('Task')) },
      responses: {
        '201': { description: 'Accepted, with the gate report', ...json({ type: 'object' }) },
        '409': {
          description:
            'The id is taken by a different task (built-in or added); the same task again is accepted',
          ...json({ type: 'object' }),
        },
        '422': {
          description: 'Refused by a gate; `report.reasons` says why',
          ...json({ type: 'object' }),
        },
        ...STANDARD_ERRORS,
      },
    },
  },
  '/v1/tasks/export': {
    post: {
      summary:
        'Export the tasks served here (all, or the ids asked for: at most 200 a request) as JSONL (one text) or Harbor task folders (files); `terrarium tasks export` writes them to disk',
      operationId: 'exportTasks',
      requestBody: {
        required: true,
        ...json({
          type: 'object',
          required: ['format'],
          properties: {
            format: { type: 'string', enum: ['jsonl', 'harbor'] },
            tasks: { type: 'array', items: { type: 'string' }, maxItems: 200 },
          },
        }),
      },
      responses: {
        '200': {
          description:
            'The export: `text` (jsonl) or `files` (harbor: paths under one folder per task), the ids exported, and each task left out with why (a world that cannot be built, no Harbor form)',
          ...json({
            type: 'object',
            required: ['format', 'exported', 'rejected'],
            properties: {
              format: { type: 'string', enum: ['jsonl', 'harbor'] },
              text: { type: 'string' },
              files: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['path', 'content', 'executable'],
                  properties: {
                    path: { type: 'string' },
                    content: { type: 'string' },
                    executable: { type: 'boolean' },
                  },
                },
              },
              exported: { type: 'array', items: { type: 'string' } },
              rejected: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['task', 'reason'],
                  properties: { task: { type: 'string' }, reason: { type: 'string' } },
                },
              },
            },
          }),
        },
        ...STANDARD_ERRORS,
        '404': { description: 'An id asked for is not served here', ...json({ type: 'object' }) },
      },
    },
  },
  '/v1/tasks/generate': {
    post: {
      summary:
        'Generate tasks from the terminal/SWE trajectories of a stored dataset (reconstructed worlds, gated); returns accepted ids and each rejection with its reason',
      operationId: 'generateTasks',
      requestBody: {
        required: true,
        ...json({
          type: 'object',
          required: ['dataset'],
          properties: { dataset: { type: 'string' }, limit: { type: 'integer', minimum: 1 } },
        }),
      },
      responses: {
        '200': {
          description:
            'The ids of the tasks added, and each trajectory left out: its store id, its source id (`name`) and why',
          ...json({
            type: 'object',
            required: ['accepted', 'rejected'],
            properties: {
              accepted: { type: 'array', items: { type: 'string' } },
              rejected: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['trajectory', 'name', 'reason'],
                  properties: {
                    trajectory: { type: 'string' },
                    name: { type: 'string' },
                    reason: { type: 'string' },
                  },
                },
              },
            },
          }),
        },
        ...STANDARD_ERRORS,
      },
    },
  },
  '/v1/tasks/{id}': {
    get: {
      summary: 'One task',
      operationId: 'getTask',
      parameters: [{ ...sessionId, description: 'Task id' }],
      responses: { '200': { description: 'The task', ...json(ref('Task')) }, ...STANDARD_ERRORS },
    },
    delete: {
      summary: 'Delete an added task (built-in tasks stay)',
      operationId: 'deleteTask',
      parameters: [{ ...sessionId, description: 'Task id' }],
      responses: {
        '204': {
          description: 'Deleted, also from the store: no new session or curriculum uses it',
        },
        '409': { description: 'A built-in task', ...json(ref('Error')) },
        ...STANDARD_ERRORS,
      },
    },
  },
  '/v1/worlds': {
    get: {
      summary: 'Worlds a session can open',
      operationId: 'listWorlds',
      responses: { '200': { description: 'Worlds', ...json({ type: 'object' }) } },
    },
  },
};

const CHECK_RESULT = {
  type: 'object',
  required: ['name', 'weight', 'passed', 'detail'],
  properties: {
    name: { type: 'string' },
    weight: { type: 'number' },
    passed: { type: 'boolean' },
    detail: { type: 'string' },
  },
};

function envSchemas(): JsonObject {
  return {
    Error: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['message'],
          properties: {
            message: { type: 'string' },
            issues: {
              type: 'array',
              items: {
                type: 'object',
                properties: { field: { type: 'string' }, message: { type: 'string' } },
              },
            },
          },
        },
      },
    },
    ...componentSchemas({ CreateEnvRequest, StepEnvRequest, Task }),
    EnvOpened: {
      type: 'object',
      required: ['id', 'observation', 'tools', 'info'],
      properties: {
        id: { type: 'string' },
        observation: { type: 'string' },
        tools: {
          type: 'array',
          items: { type: 'object', description: 'An OpenAI function tool schema' },
        },
        info: { type: 'object' },
      },
    },
    StepResult: {
      type: 'object',
      required: ['observation', 'reward', 'terminated', 'truncated', 'info'],
      properties: {
        observation: { type: 'string' },
        reward: {
          type: 'number',
          description: "0 until `submit`; then the verifier's reward in [0, 1]",
        },
        terminated: { type: 'boolean' },
        truncated: {
          type: 'boolean',
          description: 'Step budget used up, or the memory bound was hit',
        },
        info: { type: 'object' },
      },
    },
    Evaluation: {
      type: 'object',
      required: ['reward', 'passed', 'breakdown'],
      properties: {
        reward: { type: 'number' },
        passed: { type: 'boolean' },
        breakdown: { type: 'array', items: CHECK_RESULT },
      },
    },
  };
}

/** The OpenAPI 3.1 document of the plain HTTP API, served at `GET /v1/openapi.json`. */
export function openApiDocument(): JsonObject {
  const parts = [
    rewardOpenApi(RewardRequest, OpenRlhfRequest),
    chatOpenApi(ChatCompletionRequest),
    simulateOpenApi(SimulateParams),
  ];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Terrarium plain HTTP API',
      version: TERRARIUM_VERSION,
      description:
        'Plain HTTP for RL trainers and eval scripts: environment sessions over tasks and executable worlds, rewards from rule sets, and simulators behind the OpenAI protocol. Every route needs `Authorization: Bearer <token>`.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths: Object.assign({}, ENV_PATHS, ...parts.map((part) => part.paths)),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: Object.assign(envSchemas(), ...parts.map((part) => part.schemas ?? {})),
    },
  };
}

import { DOMAINS, type Domain } from '@terrarium/schema';
import { RuleSet, type RuleSetInput } from './rule-set';

/** What the environment is called in criteria texts, per domain. */
const ENVIRONMENT: Record<Domain, string> = {
  terminal: 'the shell',
  tool: 'the tool API',
  search: 'the search engine',
  swe: 'the repository interface',
  web: 'the browser',
  android: 'the phone',
  os: 'the operating system',
  database: 'the database',
  'text-game': 'the game',
};

/**
 * The rule set a domain starts from. Its rule part is the fidelity bench's content-class score alone,
 * so the reward equals today's bench content score exactly; the rubric criteria are there for judges
 * and labelers but weigh 0 in the hybrid until a researcher raises `combine.criteria`.
 */
export function defaultRuleSetInput(domain: Domain): RuleSetInput {
  const env = ENVIRONMENT[domain];
  return {
    name: `default-${domain}`,
    description: `Content-class fidelity for ${env}, with rubric criteria for judges and labelers.`,
    domain,
    rules: [
      {
        id: 'content',
        type: 'content',
        description:
          'Content-class score of the fidelity bench (deterministic, structure, numbers, metadata, unseen).',
        weight: 1,
      },
    ],
    criteria: [
      {
        id: 'format',
        text: `Does the output have the form ${env} really gives (layout, keys, types, framing)?`,
        category: 'essential',
        scale: { min: 1, max: 5 },
      },
      {
        id: 'facts',
        text: 'Is every value that the history or the action fixes reproduced exactly?',
        category: 'essential',
        scale: { min: 1, max: 5 },
      },
      {
        id: 'consistency',
        text: 'Does the output agree with the state left by earlier steps?',
        category: 'important',
        scale: { min: 1, max: 5 },
      },
      {
        id: 'realism',
        text: 'Is content never seen before plausible and well-formed?',
        category: 'optional',
        scale: { min: 1, max: 5 },
      },
      {
        id: 'invented-outcome',
        text: `Does the output report a success or a failure that ${env} would not?`,
        category: 'pitfall',
        scale: { min: 0, max: 1 },
      },
    ],
    combine: { rules: 1, criteria: 0 },
  };
}

export function defaultRuleSet(domain: Domain): RuleSet {
  return RuleSet.parse(defaultRuleSetInput(domain));
}

/** Every domain's default, by name (`default-tool`…). */
export const DEFAULT_RULE_SET_NAMES: readonly string[] = DOMAINS.map(
  (domain) => `default-${domain}`,
);

export function defaultRuleSetByName(name: string): RuleSet | null {
  const domain = DOMAINS.find((candidate) => `default-${candidate}` === name);
  return domain === undefined ? null : defaultRuleSet(domain);
}

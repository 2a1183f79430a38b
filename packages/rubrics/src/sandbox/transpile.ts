import { transform } from 'esbuild';
import type { CustomRule } from '../rule-set';
import { CustomRuleError } from './run-in-quickjs';

/**
 * A custom rule's source as the CommonJS script the sandbox runs. TypeScript is stripped by
 * esbuild's transform (a compiler, not an evaluator: nothing of the rule runs here); JavaScript
 * goes through the same path so `export function score` works in both.
 */
export async function transpileCustomRule(
  rule: Pick<CustomRule, 'language' | 'source'>,
): Promise<string> {
  try {
    const result = await transform(rule.source, {
      loader: rule.language === 'typescript' ? 'ts' : 'js',
      format: 'cjs',
      target: 'es2020',
      sourcefile: rule.language === 'typescript' ? 'rule.ts' : 'rule.js',
    });
    return result.code;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new CustomRuleError(`does not compile: ${message.split('\n').slice(0, 3).join(' ')}`);
  }
}

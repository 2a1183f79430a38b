import type { Domain } from '@terrarium/schema';

/**
 * Benchmark names as AgentWorldBench `task` values name them, matched as whole words after
 * lower-casing and turning `-`/`_`/`.`/`/` into spaces; first match wins. The same table as the
 * formats package's `domainOfBenchmark`, copied so that this package needs no importer at runtime.
 */
const BENCHMARK_DOMAINS: ReadonlyArray<readonly [RegExp, Domain]> = [
  [/\b(swe ?bench|swe ?gym|swe ?smith|swe ?agent|multi ?swe|swe)\b/, 'swe'],
  [/\b(terminal ?bench|terminal|tbench|intercode bash|ic bash|nl2bash|bash|shell)\b/, 'terminal'],
  [/\b(android ?world|android ?lab|android|a3|mobile)\b/, 'android'],
  [/\b(osworld|os ?world|windows ?agent ?arena|macos|os)\b/, 'os'],
  [/\b(web ?arena|visual ?web ?arena|mind2web|webvoyager|web ?shop|web)\b/, 'web'],
  [/\b(browse ?comp|gaia|hotpot ?qa|web ?walker|deep ?research|search)\b/, 'search'],
  [/\b(spider|bird|wikisql|intercode sql|ic sql|sql|database|db)\b/, 'database'],
  [/\b(alfworld|textcraft|jericho|scienceworld|text ?world|babyai|text ?game)\b/, 'text-game'],
  [/\b(tau ?bench|tau2|bfcl|mcp|tool ?bench|api ?bank|toolbench|stable ?toolbench|tool)\b/, 'tool'],
];

/** The domain of an AgentWorldBench task name; tool (function calling) when unknown. */
export function domainOfTask(task: string): Domain {
  const normalized = task.toLowerCase().replace(/[-_./]+/g, ' ');
  for (const [pattern, domain] of BENCHMARK_DOMAINS) if (pattern.test(normalized)) return domain;
  return 'tool';
}

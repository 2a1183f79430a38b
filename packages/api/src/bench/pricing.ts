import type { Pricing } from '@terrarium/worlds';
import { z } from 'zod';

const PricingTable = z.record(
  z.string(),
  z.object({
    inputPerMillion: z.number().nonnegative(),
    outputPerMillion: z.number().nonnegative(),
  }),
);

/**
 * Dollar prices per million tokens by simulator spec, from `TERRARIUM_PRICING` (JSON:
 * `{"openai:URL#MODEL": {"inputPerMillion": 0.5, "outputPerMillion": 1.5}}`). Local simulators
 * cost nothing; an endpoint without a price is counted in tokens only.
 */
export function pricingFromEnv(env: NodeJS.ProcessEnv = process.env): Map<string, Pricing> {
  const text = env['TERRARIUM_PRICING'];
  if (text === undefined || text.trim() === '') return new Map();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `TERRARIUM_PRICING: not JSON (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
  const parsed = PricingTable.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `TERRARIUM_PRICING: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'} (expected {"SPEC": {"inputPerMillion": N, "outputPerMillion": N}})`,
    );
  }
  return new Map(Object.entries(parsed.data));
}

/**
 * The endpoint a spec names, spelled one way: an `openai:` spec's URL as the WHATWG parser writes
 * it (host in lower case, no default port) without a trailing slash. Other specs are themselves.
 */
function endpointKey(spec: string): string {
  const openai = /^openai:(https?:\/\/[^#\s]+)#(.+)$/.exec(spec);
  const [, url, model] = openai ?? [];
  if (url === undefined || model === undefined || !URL.canParse(url)) return spec;
  return `openai:${new URL(url).href.replace(/\/+$/, '')}#${model}`;
}

/**
 * The price of `spec` (a simulator or a judge): the entry naming the same endpoint and model,
 * however either spells the URL (`…/v1` and `…/v1/`), so a run is not left unpriced by a slash.
 */
export function priceOf(pricing: ReadonlyMap<string, Pricing>, spec: string): Pricing | undefined {
  const exact = pricing.get(spec);
  if (exact !== undefined) return exact;
  const key = endpointKey(spec);
  for (const [priced, price] of pricing) if (endpointKey(priced) === key) return price;
  return undefined;
}

import type { ProviderName } from "../../config/env.js";
import type { Pricing, TurnUsage } from "./types.js";

/**
 * List prices in USD per million tokens, for a cost estimate in the usage report (never billed from here). Model ids
 * are matched by prefix, longest first. Sources: Anthropic's pricing page (cache writes with the 5-minute TTL cost
 * 1.25× the input price, cache reads 0.1×) and OpenAI's pricing page (cached input 0.5× for gpt-4o, 0.25× for
 * gpt-4.1, 0.1× for gpt-5).
 */
const PRICES: Record<
  "anthropic" | "openai",
  [prefix: string, input: number, output: number, cacheRead: number, cacheWrite: number][]
> = {
  anthropic: [
    ["claude-opus-4-5", 5, 25, 0.1, 1.25],
    ["claude-opus-4", 15, 75, 0.1, 1.25],
    ["claude-sonnet-4", 3, 15, 0.1, 1.25],
    ["claude-3-7-sonnet", 3, 15, 0.1, 1.25],
    ["claude-haiku-4-5", 1, 5, 0.1, 1.25],
    ["claude-3-5-haiku", 0.8, 4, 0.1, 1.25],
  ],
  openai: [
    ["gpt-4o-mini", 0.15, 0.6, 0.5, 1],
    ["gpt-4o", 2.5, 10, 0.5, 1],
    ["gpt-4.1-mini", 0.4, 1.6, 0.25, 1],
    ["gpt-4.1", 2, 8, 0.25, 1],
    ["gpt-5-mini", 0.25, 2, 0.1, 1],
    ["gpt-5", 1.25, 10, 0.1, 1],
  ],
};

/** The list price of a provider model, or undefined when unknown (local servers, unlisted ids). */
export function pricingFor(provider: ProviderName, modelId: string): Pricing | undefined {
  const table =
    provider === "anthropic"
      ? PRICES.anthropic
      : provider === "openai" || provider === "openai-chat"
        ? PRICES.openai
        : undefined;
  const row = table?.filter(([prefix]) => modelId.startsWith(prefix)).sort((a, b) => b[0].length - a[0].length)[0];
  return row ? { input: row[1], output: row[2], cacheRead: row[3], cacheWrite: row[4] } : undefined;
}

/**
 * The estimated cost in USD of `usage` (`input_tokens` includes the cached tokens): uncached input at the input
 * price, cache reads and writes at their multiples, output at the output price.
 */
export function costOf(usage: Required<TurnUsage>, price: Pricing): number {
  const uncached = Math.max(0, usage.input_tokens - usage.cache_read_tokens - usage.cache_write_tokens);
  const inputUnits = uncached + usage.cache_read_tokens * price.cacheRead + usage.cache_write_tokens * price.cacheWrite;
  return (inputUnits * price.input + usage.output_tokens * price.output) / 1_000_000;
}

// An agent's subscription (variant B): the cloudctl accounts it asked for at hello. `namePatterns` are
// regular expressions tried against the account's name; `credentialScanNamePatterns` against where the
// definition finds its cluster credentials (its orchConfigFile path or secret reference, or its
// orchConfigContents reference). Both search, as the original product's Java patterns did with find():
// anchor with ^ and $ to match a whole name. A pattern that is no regular expression matches nothing
// and is reported once per session, so one typo does not cost the agent its other patterns.
import type { DynamicAccountSettings } from '../sessions/index.ts';

export interface Subscription {
  /** Whether the agent subscribes at all (patterns given, dynamic accounts enabled). */
  readonly active: boolean;
  matches(account: { name: string; definition: Record<string, unknown> }): boolean;
  /** Patterns that did not compile, with the reason. */
  readonly invalid: ReadonlyArray<{ pattern: string; reason: string }>;
}

/** Where a definition finds its cluster credentials: what credentialScanNamePatterns look at. */
export function credentialLocations(definition: Record<string, unknown>): string[] {
  return [definition.orchConfigFile, definition.orchConfigContents].filter(
    (value): value is string => typeof value === 'string' && value !== '',
  );
}

function compile(patterns: readonly string[], invalid: Array<{ pattern: string; reason: string }>): RegExp[] {
  const compiled: RegExp[] = [];
  for (const pattern of patterns) {
    try {
      compiled.push(new RegExp(pattern));
    } catch (error) {
      invalid.push({ pattern, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return compiled;
}

export function subscriptionOf(settings: DynamicAccountSettings): Subscription {
  const invalid: Array<{ pattern: string; reason: string }> = [];
  const names = compile(settings.namePatterns, invalid);
  const locations = compile(settings.credentialScanNamePatterns, invalid);
  return {
    active: settings.enabled && (names.length > 0 || locations.length > 0),
    invalid,
    matches: ({ name, definition }) =>
      settings.enabled &&
      (names.some((pattern) => pattern.test(name)) ||
        credentialLocations(definition).some((location) =>
          locations.some((pattern) => pattern.test(location)),
        )),
  };
}

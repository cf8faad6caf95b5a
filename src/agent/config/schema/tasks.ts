// `tasks.*`: the task budget that paces cluster work (see docs/decisions.md for how each variant reads it).
import { z } from 'zod';
import { nonNegativeInt, positiveInt } from '../../../lib/schema-primitives.ts';
import { setting } from '../../../lib/setting-meta.ts';
import type { PerVariant, Variant } from './variant.ts';

const TOTAL_BUDGET: PerVariant<number> = { A: 0, B: 1000, C: 0 };
const BUDGET_PER_ACCOUNT: PerVariant<number> = { A: 0, B: 50, C: 0 };

export function tasksSchema(variant: Variant) {
  return z
    .object({
      totalBudget: setting(nonNegativeInt().default(TOTAL_BUDGET[variant]), {
        description: 'cap on tasks across all accounts; 0 means unlimited',
      }),
      budgetPerAccount: setting(nonNegativeInt().default(BUDGET_PER_ACCOUNT[variant]), {
        description: 'cap on tasks per account; 0 means unlimited',
      }),
      queueCheckFrequencyMs: setting(positiveInt().default(2000), {
        description:
          'how often the agent checks its queue of waiting tasks: each check starts every waiting task the budget allows then; a freed slot is taken at the next check',
      }),
    })
    .prefault({});
}

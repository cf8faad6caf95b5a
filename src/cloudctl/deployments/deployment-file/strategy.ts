// A named strategy is a canary or a blue/green one (`strategies.<name>.canary` or `.blueGreen`).
import type { z } from 'zod';
import { blueGreenStrategySchema } from './blue-green-strategy.ts';
import { canaryStrategySchema } from './canary-strategy.ts';
import { oneOfKeys } from './one-of-keys.ts';

export const strategySchema = oneOfKeys(
  { canary: canaryStrategySchema, blueGreen: blueGreenStrategySchema },
  'a strategy',
);

export type Strategy = z.output<typeof strategySchema>;

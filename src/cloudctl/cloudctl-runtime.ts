// How cloudctl's Node process is started wherever we launch it: the chart's command, the bin's
// shebang, the process tests, the demo and bench:many-accounts, which measures cloudctl as it ships
// (tests check they agree; docs/decisions.md, "cloudctl's young generation is capped at 16 MiB per
// semi-space, as the agent's"):
// - --max-semi-space-size=16: while many agents' batches stream in, V8 grows the young generation to
//   64 MiB per semi-space and keeps it. Capped, cloudctl held 410–433 MiB at the sync of 1 000
//   accounts instead of 537 MiB, with no CPU cost above the runs' own variation.
// - glibc's fixed mmap and trim thresholds, which the image sets for both programs (its ENV): the
//   agent's, so cloudctl run from the bin or a benchmark runs as it does in the image.
import { MALLOC_ENV } from '../lib/malloc-env.ts';

export const CLOUDCTL_NODE_FLAGS = ['--max-semi-space-size=16'] as const;

export const CLOUDCTL_ENV = MALLOC_ENV;

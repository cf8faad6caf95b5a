import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './config-fixture.ts';

const root = join(import.meta.dirname, '../../../config-examples');
const examples = ['a', 'b', 'c'].flatMap((v) =>
  readdirSync(join(root, v))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join(root, v, f)),
);

describe('config-examples', () => {
  it('cover agent, infrastructure and service mode for each variant', () => {
    expect(examples.map((f) => f.slice(root.length + 1)).sort()).toEqual(
      ['a', 'b', 'c'].flatMap((v) =>
        ['agent-mode', 'infrastructure-mode', 'service-mode'].map((m) => `${v}/${m}.yaml`),
      ),
    );
  });

  it.each(examples)('%s validates without errors or warnings', async (file) => {
    const result = await cli(['config', 'validate', file]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/: valid \(variant [ABC], \d+ accounts?\)$/);
  });
});

// The architecture check of `npm run check` finds what it is for: an import cycle, an import of the
// agent from outside it, a long function; and lets a declarative list be long.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { architectureProblems } from '../../scripts/check-architecture.ts';

const root = mkdtempSync(join(tmpdir(), 'orch-agent-architecture-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function tree(name: string, files: Record<string, string>): string {
  const src = join(root, name, 'src');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(src, path)), { recursive: true });
    writeFileSync(join(src, path), text);
  }
  return src;
}

const lines = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');

describe('the architecture check', () => {
  it('names each file of an import cycle, type-only imports included', () => {
    const src = tree('cycle', {
      'a/one.ts': "import type { Two } from '../b/two.ts';\nexport type One = Two;\n",
      'b/two.ts':
        "import { three } from './three.ts';\nexport type Two = string;\nexport const two = three;\n",
      'b/three.ts': "import type { One } from '../a/one.ts';\nexport const three: One = 'x';\n",
      'c/apart.ts': "import { two } from '../b/two.ts';\nexport const apart = two;\n",
    });
    const problems = architectureProblems(src);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^import cycle: .*cycle\/src\/a\/one\.ts <-> .*b\/three\.ts <-> .*b\/two\.ts$/,
    );
  });

  it('refuses an import of the agent from outside it', () => {
    const src = tree('agent-import', {
      'agent/config.ts': 'export const config = 1;\n',
      'cloudctl/uses.ts': "import { config } from '../agent/config.ts';\nexport const uses = config;\n",
    });
    expect(architectureProblems(src)).toEqual([
      expect.stringMatching(
        /agent-import\/src\/cloudctl\/uses\.ts imports .*agent-import\/src\/agent\/config\.ts$/,
      ),
    ]);
  });

  it('refuses a function over 80 lines, but not a declarative list', () => {
    const src = tree('long', {
      'long.ts': `export function busy(): number {\n${lines(80)}\n  return v0;\n}\n`,
      'list.ts': `export function routes() {\n${lines(80)}\n  return [v0, v1];\n}\n`,
      'short.ts': `export function short(): number {\n${lines(77)}\n  return v0;\n}\n`,
    });
    expect(architectureProblems(src)).toEqual([
      expect.stringMatching(/^long function: .*long\/src\/long\.ts:1 busy \(83 lines, at most 80\)$/),
    ]);
  });
});

// The architecture check of `npm run check` finds what each of its rules is for, on fixture trees:
// an import cycle, an import that does not point down the floors, a folder without a floor, a circle
// among a folder's entries, an import past a folder's index.ts, a long function, a long composition
// root, a missing composition root, a pending problem gone; and passes a tree that keeps them all.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { architectureProblems } from '../../scripts/check-architecture.ts';

const fixtures = mkdtempSync(join(tmpdir(), 'orch-agent-architecture-'));
afterAll(() => rmSync(fixtures, { recursive: true, force: true }));

const lines = (n: number, line: (i: number) => string = (i) => `  const v${i} = ${i};`) =>
  Array.from({ length: n }, (_, i) => line(i)).join('\n');

/** A tree that keeps every rule: floors pointing down, imports through index.ts, a long route table. */
const CLEAN: Record<string, string> = {
  'src/lib/clock.ts': 'export const now = () => 0;\n',
  'src/kube/index.ts': "export { request } from './http.ts';\n",
  'src/kube/http.ts': "import { now } from '../lib/clock.ts';\nexport const request = now;\n",
  'src/agent/main.ts':
    "import { request } from '../kube/index.ts';\nexport function runAgent() {\n  return request();\n}\n",
  // A subfolder importing a file of its parent folder: the parent's entries still stack.
  'src/agent/cli/run.ts': "import { runAgent } from '../main.ts';\nexport const run = runAgent;\n",
  'src/cloudctl/control-plane.ts': 'export async function startControlPlane() {\n  return 1;\n}\n',
  'src/cloudctl/routes.ts': [
    "import { request } from '../kube/index.ts';",
    'const route = (url: string) => ({ url, handler: async () => request() });',
    'export function routes() {',
    "  const base = '/api';",
    '  return [',
    lines(90, (i) => `    route(\`\${base}/r${i}\`),`),
    '  ];',
    '}',
    '',
  ].join('\n'),
};

let trees = 0;
/** The project root of a tree: the clean one with `files` added (a file given `null` left out). */
function tree(files: Record<string, string | null>): string {
  const root = join(fixtures, String(trees++));
  for (const [path, text] of Object.entries({ ...CLEAN, ...files })) {
    if (text === null) continue;
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('the architecture check', () => {
  it('passes a tree that keeps every rule', () => {
    expect(architectureProblems(tree({}))).toEqual([]);
  });

  describe('cycles', () => {
    it('names each file of an import cycle once, type-only imports included', () => {
      const root = tree({
        'src/agent/a/one.ts': "import type { Two } from '../b/two.ts';\nexport type One = Two;\n",
        'src/agent/b/two.ts':
          "import { three } from './three.ts';\nexport type Two = string;\nexport const two = three;\n",
        'src/agent/b/three.ts': "import type { One } from '../a/one.ts';\nexport const three: One = 'x';\n",
        'src/agent/c/apart.ts': "import { two } from '../b/two.ts';\nexport const apart = two;\n",
      });
      // Not also as a circle of src/agent's folders a and b: the cycle is the report.
      expect(architectureProblems(root)).toEqual([
        'import cycle: src/agent/a/one.ts <-> src/agent/b/three.ts <-> src/agent/b/two.ts',
      ]);
    });

    it('reads import() and typeof import() as imports', () => {
      const root = tree({
        'src/lib/load.ts': "export const load = () => import('./kind.ts');\n",
        'src/lib/kind.ts': "export type Load = typeof import('./load.ts');\n",
      });
      expect(architectureProblems(root)).toEqual(['import cycle: src/lib/kind.ts <-> src/lib/load.ts']);
    });
  });

  describe('floors', () => {
    it('refuses an import from a higher floor or the same floor, import() included', () => {
      const root = tree({
        'src/lib/up.ts': "export const lazy = () => import('../kube/index.ts');\n",
        'src/cloudctl/uses.ts':
          "import { runAgent } from '../agent/main.ts';\nexport const uses = runAgent;\n",
      });
      expect(architectureProblems(root)).toEqual([
        'floor: src/cloudctl/uses.ts imports src/agent/main.ts: cloudctl (floor 4) imports only from floors below it, agent is floor 4',
        'floor: src/lib/up.ts imports src/kube/index.ts: lib (floor 1) imports only from floors below it, kube is floor 2',
      ]);
    });

    it('refuses a folder of src/ without a floor, and a file beside the folders', () => {
      const root = tree({
        'src/extra/thing.ts': 'export const thing = 1;\n',
        'src/loose.ts': 'export {};\n',
      });
      expect(architectureProblems(root).sort()).toEqual([
        'no floor: src/extra (give it one in FLOORS and docs/architecture.md)',
        'no floor: src/loose.ts (give it one in FLOORS and docs/architecture.md)',
      ]);
    });

    it("refuses a circle among a folder's entries, though no file cycle makes it", () => {
      // main.ts imports cli/io.ts, cli/run.ts imports main.ts: neither cli nor main.ts is below the other.
      const root = tree({
        'src/agent/cli/io.ts': 'export interface Io {\n  out: (text: string) => void;\n}\n',
        'src/agent/main.ts':
          "import type { Io } from './cli/io.ts';\nexport function runAgent(io: Io) {\n  io.out('x');\n}\n",
      });
      expect(architectureProblems(root)).toEqual([
        'folder circle in src/agent: cli, main.ts (cli/run.ts imports main.ts; main.ts imports cli/io.ts)',
      ]);
    });
  });

  describe('index.ts', () => {
    it("refuses an import past a folder's index.ts, from beside the folder or above it", () => {
      const root = tree({
        'src/agent/beside.ts': "import { request } from '../kube/http.ts';\nexport const beside = request;\n",
        'src/agent/watch/index.ts': "export { inner } from './inner.ts';\n",
        'src/agent/watch/inner.ts': "import { now } from '../../lib/clock.ts';\nexport const inner = now;\n",
        'src/agent/above.ts': "import { inner } from './watch/inner.ts';\nexport const above = inner;\n",
      });
      expect(architectureProblems(root)).toEqual([
        'index bypassed: src/agent/above.ts imports src/agent/watch/inner.ts, not src/agent/watch/index.ts',
        'index bypassed: src/agent/beside.ts imports src/kube/http.ts, not src/kube/index.ts',
      ]);
    });

    it('lets the compile-cache warm-up load modules by path', () => {
      const root = tree({ 'src/agent/compile-cache-warmup.ts': "await import('../kube/http.ts');\n" });
      expect(architectureProblems(root)).toEqual([]);
    });
  });

  describe('long functions', () => {
    it('refuses a function over 80 lines', () => {
      const root = tree({
        'src/lib/long.ts': `export function busy(): number {\n${lines(80)}\n  return v0;\n}\n`,
        'src/lib/short.ts': `export function short(): number {\n${lines(77)}\n  return v0;\n}\n`,
      });
      expect(architectureProblems(root)).toEqual([
        'long function: src/lib/long.ts:1 busy (83 lines, at most 80)',
      ]);
    });

    it('refuses a composition root over 60 lines, where another function may be longer', () => {
      const body = `{\n${lines(59)}\n  return v0;\n}\n`;
      const root = tree({
        'src/agent/main.ts': `export function runAgent(): number ${body}`,
        'src/agent/other.ts': `export function runOther(): number ${body}`,
      });
      expect(architectureProblems(root)).toEqual([
        'long function: src/agent/main.ts:1 runAgent (62 lines, at most 60)',
      ]);
    });

    it('reports a composition root that is not where it is named', () => {
      const root = tree({ 'src/cloudctl/control-plane.ts': 'export function start() {\n  return 1;\n}\n' });
      expect(architectureProblems(root)).toEqual([
        'composition root not found: startControlPlane in src/cloudctl/control-plane.ts (see COMPOSITION_ROOTS)',
      ]);
    });

    it('lets a declarative list be long: a returned literal, or constants then one', () => {
      const root = tree({
        'src/lib/registry.ts': `export const handlers = () => ({\n${lines(90, (i) => `  h${i}: () => ${i},`)}\n});\n`,
        'src/lib/metrics.ts': `export function metrics() {\n  return [\n${lines(90, (i) => `    'm${i}',`)}\n  ];\n}\n`,
      });
      expect(architectureProblems(root)).toEqual([]);
    });

    it('does not count a chain of awaits as declarative, in constants or in the literal', () => {
      const root = tree({
        'src/lib/awaits.ts': [
          'const step = async (n: number) => n;',
          'export async function wire() {',
          lines(90, (i) => `  const s${i} = await step(${i});`),
          '  return { s0, s1 };',
          '}',
          'export async function list() {',
          '  return [',
          lines(90, (i) => `    await step(${i}),`),
          '  ];',
          '}',
          '',
        ].join('\n'),
      });
      expect(architectureProblems(root)).toEqual([
        'long function: src/lib/awaits.ts:2 wire (93 lines, at most 80)',
        'long function: src/lib/awaits.ts:95 list (94 lines, at most 80)',
      ]);
    });

    it('refuses a list whose helpers alone are over the bound, or that runs statements first', () => {
      const root = tree({
        'src/lib/lists.ts': [
          'export function heavy() {',
          lines(85),
          '  return [v0, v1];',
          '}',
          'export function busy() {',
          '  let n = 0;',
          lines(85, (i) => `  n += ${i};`),
          '  return [n];',
          '}',
          '',
        ].join('\n'),
      });
      expect(architectureProblems(root)).toEqual([
        'long function: src/lib/lists.ts:1 heavy (88 lines, at most 80)',
        'long function: src/lib/lists.ts:89 busy (89 lines, at most 80)',
      ]);
    });
  });

  it('tolerates a pending problem by the start of its report, and reports one that no longer occurs', () => {
    const root = tree({
      'src/lib/load.ts': "import { kind } from './kind.ts';\nexport const load = kind;\n",
      'src/lib/kind.ts': "import { load } from './load.ts';\nexport const kind = () => load;\n",
    });
    const cycle = 'import cycle: src/lib/kind.ts <-> ';
    expect(architectureProblems(root, [cycle])).toEqual([]);
    expect(architectureProblems(tree({}), [cycle])).toEqual([
      `pending problem no longer found, remove it from PENDING: ${cycle}`,
    ]);
  });
});

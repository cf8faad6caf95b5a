// `npm run check`'s architecture step: the rules of docs/architecture.md that the imports and the
// code's shape can show, checked on every run so the house stays as drawn. An import is any static
// `import` or `export ... from`, `import x = require()`, `import()` with a literal specifier, or
// `typeof import()` type; type-only imports count, as they tie the files' meaning.
// - cycles: no import cycle among the files of src/;
// - floors: each top folder of src/ has a floor (FLOORS) and imports only from lower floors;
// - folder circles: inside every folder below src/, its entries (each file, each subfolder taken
//   whole) import each other without a circle, so they too stack as floors;
// - index: a folder with an index.ts is imported from outside it only through that index.ts;
// - long functions: none over 80 lines, the composition roots (which must exist) over 60, except a
//   declarative list (see `declarative`).
// It reads the sources with TypeScript's own parser; it runs nothing. `architectureProblems` takes the
// project's root, so the tests run it on fixture trees.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..');
export const MAX_FUNCTION_LINES = 80;
export const MAX_ROOT_LINES = 60;
/** The composition roots: file and function. */
export const COMPOSITION_ROOTS = [
  { file: 'src/agent/main.ts', name: 'runAgent' },
  { file: 'src/cloudctl/control-plane.ts', name: 'startControlPlane' },
] as const;
/** The floors of docs/architecture.md, from the ground up; a folder of src/ missing here is reported. */
export const FLOORS: Readonly<Record<string, number>> = {
  lib: 1,
  proto: 1,
  contract: 2,
  kube: 2,
  secrets: 3,
  agent: 4,
  cloudctl: 4,
};
/**
 * Files that load modules by path for what loading does, not for what they export, so the index rule
 * does not apply to their imports (the others do): the image build's compile-cache warm-up loads the
 * module hooks and every module of the agent and of src/kube.
 */
export const LOADERS: readonly string[] = ['src/agent/compile-cache-warmup.ts'];
/**
 * Problems known and left to the files' owners (issue 35), each as the start of its report. They do
 * not fail the run; one that no longer occurs does, so the list only shrinks.
 */
export const PENDING: readonly string[] = [];

interface Parsed {
  /** The path from the project's root, with `/`: `src/agent/main.ts`. */
  file: string;
  source: ts.SourceFile;
  /** Its relative specifiers, resolved to paths from the project's root. */
  imports: string[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return sourceFiles(path);
      return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
    });
}

/** The specifier of an import of any kind, when `node` is one. */
function specifierOf(node: ts.Node): string | undefined {
  const text = (e: ts.Node | undefined) =>
    e !== undefined && ts.isStringLiteralLike(e) ? e.text : undefined;
  if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return text(node.moduleSpecifier);
  if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
    return text(node.moduleReference.expression);
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
    return text(node.arguments[0]);
  if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) return text(node.argument.literal);
  return undefined;
}

function parse(root: string, path: string): Parsed {
  const file = relative(root, path).split(sep).join('/');
  const source = ts.createSourceFile(file, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const imports = new Set<string>();
  const visit = (node: ts.Node): void => {
    const specifier = specifierOf(node);
    if (specifier?.startsWith('.')) imports.add(posix.normalize(posix.join(posix.dirname(file), specifier)));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { file, source, imports: [...imports] };
}

/** The strongly connected components of more than one node (Tarjan), each sorted. */
function circles(edges: ReadonlyMap<string, Iterable<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) ?? 0);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (;;) {
      const w = stack.pop();
      if (w === undefined) break;
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The imports between files of the tree, without a file's import of itself. */
function fileEdges(files: readonly Parsed[]): Map<string, string[]> {
  const known = new Set(files.map((f) => f.file));
  return new Map(files.map((f) => [f.file, f.imports.filter((i) => i !== f.file && known.has(i))]));
}

/** Every import cycle, each as the files around it. */
export function importCycles(files: readonly Parsed[]): string[][] {
  return circles(fileEdges(files));
}

/** Imports that do not point to a lower floor, and folders of src/ without a floor. */
export function floorProblems(files: readonly Parsed[]): string[] {
  const top = (file: string) => file.split('/').slice(1, -1)[0];
  const unplaced = new Set<string>();
  const found: string[] = [];
  for (const [from, imports] of fileEdges(files)) {
    const folder = top(from);
    const own = folder === undefined ? undefined : FLOORS[folder];
    if (own === undefined) {
      unplaced.add(folder === undefined ? from : `src/${folder}`);
      continue;
    }
    for (const to of imports) {
      const target = top(to);
      const floor = target === undefined ? undefined : FLOORS[target];
      if (target === folder || floor === undefined || floor < own) continue;
      found.push(
        `floor: ${from} imports ${to}: ${folder} (floor ${own}) imports only from floors below it, ${target} is floor ${floor}`,
      );
    }
  }
  const placeless = [...unplaced].map(
    (f) => `no floor: ${f} (give it one in FLOORS and docs/architecture.md)`,
  );
  return [...placeless, ...found];
}

/** Circles among the entries of each folder below src/; imports inside a file cycle are that cycle's. */
export function folderCircles(files: readonly Parsed[]): string[] {
  const edges = fileEdges(files);
  const cycleOf = new Map(importCycles(files).flatMap((c, i) => c.map((f) => [f, i] as const)));
  // Per folder: its entries' imports of each other, each with the first import that makes it.
  const folders = new Map<string, Map<string, Map<string, string>>>();
  for (const [from, imports] of edges) {
    for (const to of imports) {
      if (cycleOf.has(from) && cycleOf.get(from) === cycleOf.get(to)) continue;
      const a = from.split('/');
      const b = to.split('/');
      let i = 0;
      while (i < a.length - 1 && i < b.length - 1 && a[i] === b[i]) i++;
      if (i < 2) continue; // src/ itself: its folders stack by FLOORS
      const folder = a.slice(0, i).join('/');
      const [entry, target] = [a[i] ?? '', b[i] ?? ''];
      const entries = folders.get(folder) ?? new Map<string, Map<string, string>>();
      folders.set(folder, entries);
      const targets = entries.get(entry) ?? new Map<string, string>();
      entries.set(entry, targets);
      if (!entries.has(target)) entries.set(target, new Map());
      const inside = (p: string) => p.slice(folder.length + 1);
      if (!targets.has(target)) targets.set(target, `${inside(from)} imports ${inside(to)}`);
    }
  }
  return [...folders].flatMap(([folder, entries]) =>
    circles(new Map([...entries].map(([e, targets]) => [e, targets.keys()]))).map((circle) => {
      const imports = circle.flatMap((e) => circle.flatMap((t) => entries.get(e)?.get(t) ?? []));
      return `folder circle in ${folder}: ${circle.join(', ')} (${imports.join('; ')})`;
    }),
  );
}

/** Imports that reach past a folder's index.ts into the folder. */
export function indexBypasses(files: readonly Parsed[]): string[] {
  const known = new Set(files.map((f) => f.file));
  const found: string[] = [];
  for (const [from, imports] of fileEdges(files)) {
    if (LOADERS.includes(from)) continue;
    for (const to of imports) {
      // Of the folders that hold the target but not the importer, the outermost with an index.ts.
      const parts = to.split('/');
      for (let depth = 1; depth < parts.length; depth++) {
        const folder = parts.slice(0, depth).join('/');
        const index = `${folder}/index.ts`;
        if (from.startsWith(`${folder}/`) || !known.has(index)) continue;
        if (to !== index) found.push(`index bypassed: ${from} imports ${to}, not ${index}`);
        break;
      }
    }
  }
  return found;
}

/** `e` without parentheses and type assertions, when it is an array or object literal. */
function literalOf(
  e: ts.Node | undefined,
): ts.ArrayLiteralExpression | ts.ObjectLiteralExpression | undefined {
  if (e === undefined) return undefined;
  if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e))
    return literalOf(e.expression);
  return ts.isArrayLiteralExpression(e) || ts.isObjectLiteralExpression(e) ? e : undefined;
}

/** Whether `node` awaits or yields at its own level (functions inside it run apart). */
function waits(node: ts.Node): boolean {
  if (ts.isAwaitExpression(node) || ts.isYieldExpression(node)) return true;
  if (ts.isForOfStatement(node) && node.awaitModifier !== undefined) return true;
  if (ts.isFunctionLike(node)) return false;
  return ts.forEachChild(node, waits) ?? false;
}

const lineOf = (source: ts.SourceFile, position: number) =>
  source.getLineAndCharacterOfPosition(position).line;

/**
 * Whether a function is a declarative list, which may be long: its body has one of the shapes
 * - an array or object literal, or a block that only returns one (a route table, a registry keyed by
 *   type, a list of metrics);
 * - `const` declarations (the list's helpers), then that return;
 * and nothing in it awaits or yields at its own level: a chain of awaits is steps, however laid out.
 * Only the literal may be long; the rest of the function must fit `bound`. The functions inside the
 * literal and the helpers are measured on their own.
 */
function declarative(fn: ts.FunctionLikeDeclaration, source: ts.SourceFile, bound: number): boolean {
  const body = fn.body;
  if (body === undefined) return false;
  const statements = ts.isBlock(body) ? body.statements : [];
  const last = statements.at(-1);
  const literal = ts.isBlock(body)
    ? last !== undefined && ts.isReturnStatement(last)
      ? literalOf(last.expression)
      : undefined
    : literalOf(body);
  if (literal === undefined) return false;
  const constants = statements
    .slice(0, -1)
    .every((s) => ts.isVariableStatement(s) && (s.declarationList.flags & ts.NodeFlags.Const) !== 0);
  if (!constants || waits(body)) return false;
  const lines = lineOf(source, fn.getEnd()) - lineOf(source, fn.getStart(source)) + 1;
  const literalLines = lineOf(source, literal.getEnd()) - lineOf(source, literal.getStart(source)) + 1;
  return lines - literalLines + 1 <= bound;
}

function functionName(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name !== undefined)
    return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent !== undefined && ts.isVariableDeclaration(parent)) return parent.name.getText();
  if (parent !== undefined && ts.isPropertyAssignment(parent)) return parent.name.getText();
  return '(anonymous)';
}

/** Functions over their bound, as `file:line name (N lines, at most M)`; missing roots. */
export function longFunctions(files: readonly Parsed[]): string[] {
  const found: string[] = [];
  const rootsSeen = new Set<string>();
  for (const { file, source } of files) {
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
        const fn = node as ts.FunctionLikeDeclaration;
        const start = lineOf(source, fn.getStart(source));
        const lines = lineOf(source, fn.getEnd()) - start + 1;
        const name = functionName(fn);
        const root = COMPOSITION_ROOTS.find((r) => r.file === file && r.name === name);
        if (root !== undefined) rootsSeen.add(`${file} ${name}`);
        const bound = root !== undefined ? MAX_ROOT_LINES : MAX_FUNCTION_LINES;
        if (lines > bound && !declarative(fn, source, bound))
          found.push(`long function: ${file}:${start + 1} ${name} (${lines} lines, at most ${bound})`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  const missing = COMPOSITION_ROOTS.filter((r) => !rootsSeen.has(`${r.file} ${r.name}`));
  return [
    ...missing.map((r) => `composition root not found: ${r.name} in ${r.file} (see COMPOSITION_ROOTS)`),
    ...found,
  ];
}

/**
 * Every broken rule under `root`/src but those a `pending` entry starts; a pending entry that starts
 * none is one.
 */
export function architectureProblems(root = ROOT, pending: readonly string[] = []): string[] {
  const files = sourceFiles(join(root, 'src')).map((path) => parse(root, path));
  const problems = [
    ...importCycles(files).map((c) => `import cycle: ${c.join(' <-> ')}`),
    ...floorProblems(files),
    ...folderCircles(files),
    ...indexBypasses(files),
    ...longFunctions(files),
  ];
  return [
    ...problems.filter((p) => !pending.some((known) => p.startsWith(known))),
    ...pending
      .filter((known) => !problems.some((p) => p.startsWith(known)))
      .map((p) => `pending problem no longer found, remove it from PENDING: ${p}`),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const problems = architectureProblems(ROOT, PENDING);
  if (problems.length > 0) {
    process.stderr.write(
      `The architecture rules (docs/architecture.md) are broken:\n  ${problems.join('\n  ')}\n`,
    );
    process.exit(1);
  }
}

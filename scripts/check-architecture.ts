// `npm run check`'s architecture step: the rules of docs/architecture.md that the imports and the
// code's shape can show, checked on every run so the house stays as drawn.
// - no import cycle among the files of src/ (type-only imports count: they tie the files' meaning);
// - nothing under src/cloudctl imports src/agent, and nothing outside src/cloudctl imports it;
// - no function longer than 80 lines, except a declarative list (a body of constants that returns an
//   array or object literal: routes, schemas, metrics); the two composition roots at most 60.
// It reads the sources with TypeScript's own parser; it runs nothing.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
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

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

interface Parsed {
  file: string;
  source: ts.SourceFile;
  /** Relative specifiers of static imports and re-exports, resolved to files of the tree. */
  imports: string[];
}

function parse(file: string): Parsed {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const imports: string[] = [];
  for (const statement of source.statements) {
    const specifier =
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier !== undefined &&
      ts.isStringLiteral(statement.moduleSpecifier)
        ? statement.moduleSpecifier.text
        : undefined;
    if (specifier?.startsWith('.')) imports.push(resolve(dirname(file), specifier));
  }
  return { file, source, imports };
}

/** Every import cycle, each as the files around it (Tarjan's strongly connected components). */
export function importCycles(files: readonly Parsed[]): string[][] {
  const edges = new Map(files.map((f) => [f.file, f.imports.filter((i) => i !== f.file)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
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
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

/** A body that only returns (or is) an array or object literal: a declarative list. */
function declarative(node: ts.FunctionLikeDeclaration): boolean {
  const literal = (e: ts.Expression | undefined): boolean => {
    const inner = e === undefined ? undefined : ts.skipPartiallyEmittedExpressions(e);
    if (inner === undefined) return false;
    if (ts.isParenthesizedExpression(inner) || ts.isAsExpression(inner) || ts.isSatisfiesExpression(inner))
      return literal(inner.expression);
    return ts.isArrayLiteralExpression(inner) || ts.isObjectLiteralExpression(inner);
  };
  const body = node.body;
  if (body === undefined) return false;
  if (!ts.isBlock(body)) return literal(body);
  // Constants first (the list's shared helpers), then the list: nothing runs but the declarations.
  const last = body.statements.at(-1);
  const constants = body.statements
    .slice(0, -1)
    .every((s) => ts.isVariableStatement(s) && (s.declarationList.flags & ts.NodeFlags.Const) !== 0);
  return constants && last !== undefined && ts.isReturnStatement(last) && literal(last.expression);
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

/** Functions over their bound, as `file:line name (N lines, at most M)`. */
export function longFunctions(files: readonly Parsed[]): string[] {
  const found: string[] = [];
  for (const { file, source } of files) {
    const rel = relative(ROOT, file);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
        const fn = node as ts.FunctionLikeDeclaration;
        const start = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
        const lines = source.getLineAndCharacterOfPosition(fn.getEnd()).line - start + 1;
        const name = functionName(fn);
        const root = COMPOSITION_ROOTS.some((r) => r.file === rel && r.name === name);
        const bound = root ? MAX_ROOT_LINES : MAX_FUNCTION_LINES;
        if (lines > bound && !declarative(fn))
          found.push(`${rel}:${start + 1} ${name} (${lines} lines, at most ${bound})`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** Imports of src/agent from files outside it (cloudctl and the shared modules must not lean on it). */
export function agentImportsFromOutside(files: readonly Parsed[], srcDir: string): string[] {
  const agent = `${join(srcDir, 'agent')}/`;
  return files.flatMap(({ file, imports }) =>
    file.startsWith(agent)
      ? []
      : imports
          .filter((i) => i.startsWith(agent))
          .map((i) => `${relative(ROOT, file)} imports ${relative(ROOT, i)}`),
  );
}

export function architectureProblems(srcDir = join(ROOT, 'src')): string[] {
  const files = sourceFiles(srcDir).map(parse);
  return [
    ...importCycles(files).map((c) => `import cycle: ${c.map((f) => relative(ROOT, f)).join(' <-> ')}`),
    ...agentImportsFromOutside(files, srcDir),
    ...longFunctions(files).map((f) => `long function: ${f}`),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const problems = architectureProblems();
  if (problems.length > 0) {
    process.stderr.write(
      `The architecture rules (docs/architecture.md) are broken:\n  ${problems.join('\n  ')}\n`,
    );
    process.exit(1);
  }
}

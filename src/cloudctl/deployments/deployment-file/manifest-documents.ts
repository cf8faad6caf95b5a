// Splits manifest YAML into its documents (`---` lines) and checks each is a Kubernetes object:
// a map with apiVersion, kind and metadata.name. Problems carry the line and column within the
// text, so a file's are shown at file:line:col and an inline one's at its line in the block.
import { describeFound } from '../../../lib/config-issue.ts';
import { isRecord } from '../../../lib/is-record.ts';
import { parseYamlSource, type SourcePosition, YamlSyntaxError } from '../../../lib/yaml-source.ts';

export type ManifestObject = Record<string, unknown>;

export interface DocumentProblem {
  at: SourcePosition;
  message: string;
}

function documents(text: string): Array<{ text: string; firstLine: number }> {
  const lines = text.split('\n');
  const out: Array<{ text: string; firstLine: number }> = [];
  let start = 0;
  lines.forEach((line, index) => {
    if (!/^---\s*(#.*)?$/.test(line)) return;
    out.push({ text: lines.slice(start, index).join('\n'), firstLine: start + 1 });
    start = index + 1;
  });
  out.push({ text: lines.slice(start).join('\n'), firstLine: start + 1 });
  return out;
}

function objectProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return `expected a Kubernetes object (a map), found ${describeFound(value)}`;
  for (const key of ['apiVersion', 'kind'])
    if (typeof value[key] !== 'string' || value[key] === '')
      return `a Kubernetes object needs '${key}', found ${describeFound(value[key])}`;
  const name = isRecord(value.metadata) ? value.metadata.name : undefined;
  if (typeof name !== 'string' || name === '')
    return `${String(value.kind)} needs metadata.name, found ${describeFound(name)}`;
  return undefined;
}

export function manifestDocuments(text: string): { objects: ManifestObject[]; problems: DocumentProblem[] } {
  const objects: ManifestObject[] = [];
  const problems: DocumentProblem[] = [];
  for (const document of documents(text)) {
    const shift = (at: SourcePosition) => ({ line: at.line + document.firstLine - 1, column: at.column });
    try {
      const source = parseYamlSource(document.text);
      if (source.value === null) continue;
      const problem = objectProblem(source.value);
      if (problem === undefined && isRecord(source.value)) objects.push(source.value);
      else problems.push({ at: shift(source.valueAt([])), message: problem ?? 'not a Kubernetes object' });
    } catch (error) {
      if (!(error instanceof YamlSyntaxError)) throw error;
      problems.push({ at: shift(error.position), message: `invalid YAML: ${error.reason}` });
    }
  }
  return { objects, problems };
}

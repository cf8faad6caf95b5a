// Reading a YAML file that users write (the agent's config, cloudctl's, a deployment file): its text,
// one document parsed with positions, and, where either fails, the located issue that says why, in
// the words all three loaders use.
import { readFile } from 'node:fs/promises';
import { type ConfigIssue, makeIssue } from './config-issue.ts';
import { errorCode } from './is-record.ts';
import { parseYamlSource, type YamlSource, YamlSyntaxError } from './yaml-source.ts';

export type Read<T> = { ok: true; value: T } | { ok: false; issue: ConfigIssue };

/** The file's text, or the issue naming why it cannot be read. */
export async function readTextFile(file: string): Promise<Read<string>> {
  try {
    return { ok: true, value: await readFile(file, 'utf8') };
  } catch (error) {
    return {
      ok: false,
      issue: makeIssue(
        'error',
        file,
        { line: 1, column: 1 },
        [],
        `cannot read the file: ${errorCode(error)}`,
      ),
    };
  }
}

/** `text` (from `file`, for the issue) as one YAML document with positions, or where it is not YAML. */
export function parseYamlText(text: string, file: string): Read<YamlSource> {
  try {
    return { ok: true, value: parseYamlSource(text) };
  } catch (error) {
    if (!(error instanceof YamlSyntaxError)) throw error;
    return {
      ok: false,
      issue: makeIssue('error', file, error.position, [], `invalid YAML: ${error.reason}`),
    };
  }
}

/** The file read and parsed as one YAML document, or the first issue. */
export async function readYamlFile(file: string): Promise<Read<YamlSource>> {
  const text = await readTextFile(file);
  return text.ok ? parseYamlText(text.value, file) : text;
}

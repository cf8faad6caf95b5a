// The file `cloudctl plan -f FILE` reads: the body of POST /ops (a list of `{operationName: payload}`),
// in JSON or YAML, from a file or from standard input (`-`). One operation written without the list
// around it is taken as a list of one, as a person writing a single deployManifest would expect.
// Only the shape is checked here; the server checks each operation's payload and names the field.
import { readFile } from 'node:fs/promises';
import { load } from 'js-yaml';
import type { CliIo } from '../../../lib/cli-io.ts';
import { isRecord } from '../../../lib/is-record.ts';

export type OperationsFile =
  | { ok: true; operations: Record<string, unknown>[] }
  | { ok: false; problem: string };

async function readText(path: string, io: CliIo): Promise<string> {
  if (path !== '-') return readFile(path, 'utf8');
  if (io.readStdin === undefined) throw new Error('standard input cannot be read here');
  return io.readStdin();
}

export async function readOperationsFile(path: string, io: CliIo): Promise<OperationsFile> {
  const where = path === '-' ? 'standard input' : path;
  let text: string;
  try {
    text = await readText(path, io);
  } catch (error) {
    return {
      ok: false,
      problem: `cannot read ${where}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  let raw: unknown;
  try {
    raw = load(text, { filename: where });
  } catch (error) {
    return {
      ok: false,
      problem: `${where} is neither JSON nor YAML: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length === 0) return { ok: false, problem: `${where} holds no operations` };
  const operations: Record<string, unknown>[] = [];
  for (const [index, entry] of list.entries()) {
    if (!isRecord(entry) || Object.keys(entry).length !== 1)
      return {
        ok: false,
        problem: `${where}: operation ${index + 1} must be an object with one key, the operation's name ({"deployManifest": {...}}), as POST /ops takes`,
      };
    operations.push(entry);
  }
  return { ok: true, operations };
}

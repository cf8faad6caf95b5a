// A problem found in a config file, located at file:line:column and a key path, and its one-line
// rendering, for the config loaders of both programs. Errors stop the program; warnings and info notes
// (what the loader decided for the file, such as its variant) are printed; debug notes are logged at
// debug level.
import type { z } from 'zod';
import { formatKeyPath, type KeyPath, type SourcePosition } from './yaml-source.ts';

export type IssueSeverity = 'error' | 'warning' | 'info' | 'debug';

export interface ConfigIssue {
  severity: IssueSeverity;
  file: string;
  line: number;
  column: number;
  /** Key path as users write it, e.g. `orchestrator.accounts[2].orchConfigFile`; '' for the file itself. */
  path: string;
  message: string;
}

export function makeIssue(
  severity: IssueSeverity,
  file: string,
  at: SourcePosition,
  path: KeyPath,
  message: string,
): ConfigIssue {
  return { severity, file, line: at.line, column: at.column, path: formatKeyPath(path), message };
}

export function formatIssue(issue: ConfigIssue): string {
  const where = issue.path === '' ? '' : `${issue.path}: `;
  return `${issue.file}:${issue.line}:${issue.column}: ${issue.severity}: ${where}${issue.message}`;
}

/** Describes a found value briefly, for "expected …, found …" messages. */
export function describeFound(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string')
    return `the string '${value.length > 60 ? `${value.slice(0, 57)}...` : value}'`;
  return `${typeof value} ${String(value)}`;
}

/** One sentence from a zod issue: what was expected and what was found. */
export function describeZodIssue(issue: z.core.$ZodIssue): string {
  const found = describeFound(issue.input);
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return `required, expected ${issue.expected}`;
      return `expected ${issue.expected === 'int' ? 'an integer' : issue.expected}, found ${found}`;
    case 'too_small':
      if (issue.origin === 'string' || issue.origin === 'array') return `must not be empty, found ${found}`;
      return `expected at least ${issue.minimum}, found ${found}`;
    case 'too_big':
      return `expected at most ${issue.maximum}, found ${found}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => `'${String(v)}'`).join(', ')}, found ${found}`;
    case 'unrecognized_keys':
      return issue.message;
    case 'custom':
      // Rules over a whole map say what they need in their message; only a scalar is worth quoting.
      return issue.input === null || typeof issue.input === 'object' || issue.input === undefined
        ? issue.message
        : `${issue.message}, found ${found}`;
    default:
      return issue.message.includes('found') || issue.input === undefined
        ? issue.message
        : `${issue.message}, found ${found}`;
  }
}

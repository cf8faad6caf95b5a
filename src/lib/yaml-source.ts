// Parses one YAML document and remembers where every key and value starts, so that errors found
// later (by a schema, a rule, a secret engine) can name file:line:column for a key path.
import {
  constructFromEvents,
  EVENT_ID,
  type Event,
  getScalarValue,
  parseEvents,
  type Schema,
  YAMLException,
} from 'js-yaml';
import { CodedError } from './coded-error.ts';

export interface SourcePosition {
  line: number;
  column: number;
}

/** A key path such as `orchestrator.accounts[2].name`, as a list of keys and indexes. */
export type KeyPath = ReadonlyArray<string | number>;

export function formatKeyPath(path: KeyPath): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out;
}

export interface YamlSource {
  value: unknown;
  /** Position of the key that names the path (or of the item, for sequence entries). */
  keyAt(path: KeyPath): SourcePosition | undefined;
  /** Position of the value at the path, or the closest enclosing node that exists. */
  valueAt(path: KeyPath): SourcePosition;
}

export class YamlSyntaxError extends CodedError<'YAML_SYNTAX'> {
  readonly position: SourcePosition;
  readonly reason: string;
  constructor(reason: string, position: SourcePosition) {
    super('YAML_SYNTAX', reason);
    this.reason = reason;
    this.position = position;
  }
}

interface Frame {
  kind: 'mapping' | 'sequence';
  path: string;
  pathParts: Array<string | number>;
  nextIndex: number;
  expectingKey: boolean;
  currentKey: string | undefined;
  position: SourcePosition;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

function offsetToPosition(starts: number[], offset: number): SourcePosition {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - (starts[lo] ?? 0) + 1 };
}

function eventStart(event: Event): number {
  switch (event.type) {
    case EVENT_ID.SCALAR:
      return [event.anchorStart, event.tagStart, event.valueStart].find((o) => o >= 0) ?? event.valueStart;
    case EVENT_ID.MAPPING:
    case EVENT_ID.SEQUENCE:
      return event.start;
    case EVENT_ID.ALIAS:
      return event.anchorStart;
    default:
      return -1;
  }
}

/** The document's events and its value; YAMLException becomes YamlSyntaxError with a position. */
function parseDocument(text: string, schema: Schema | undefined): { events: Event[]; value: unknown } {
  let events: Event[];
  let documents: unknown[];
  try {
    events = parseEvents(text, {});
    documents = constructFromEvents(
      events,
      schema === undefined ? { source: text } : { source: text, schema },
    );
  } catch (error) {
    if (error instanceof YAMLException) {
      const position = error.mark
        ? { line: error.mark.line + 1, column: error.mark.column + 1 }
        : { line: 1, column: 1 };
      throw new YamlSyntaxError(error.reason, position);
    }
    throw error;
  }
  if (documents.length > 1) {
    throw new YamlSyntaxError('expected one YAML document, found several (separated by ---)', {
      line: 1,
      column: 1,
    });
  }
  return { events, value: documents[0] ?? null };
}

/** Where each key and each value of the document starts, by key path, walking its events once. */
function positionIndex(
  text: string,
  events: readonly Event[],
): { keys: Map<string, SourcePosition>; values: Map<string, SourcePosition> } {
  const starts = lineStarts(text);
  const keys = new Map<string, SourcePosition>();
  const values = new Map<string, SourcePosition>();
  const stack: Frame[] = [];

  for (const event of events) {
    if (event.type === EVENT_ID.DOCUMENT) continue;
    if (event.type === EVENT_ID.POP) {
      stack.pop();
      continue;
    }
    const parent = stack.at(-1);
    let pathParts: Array<string | number> = [];
    let isKey = false;
    if (parent?.kind === 'mapping') {
      if (parent.expectingKey) {
        isKey = true;
        parent.currentKey = event.type === EVENT_ID.SCALAR ? getScalarValue(text, event) : undefined;
        if (parent.currentKey !== undefined) {
          const keyParts = [...parent.pathParts, parent.currentKey];
          keys.set(formatKeyPath(keyParts), offsetToPosition(starts, eventStart(event)));
        }
      } else if (parent.currentKey !== undefined) {
        pathParts = [...parent.pathParts, parent.currentKey];
      }
      parent.expectingKey = !parent.expectingKey;
    } else if (parent?.kind === 'sequence') {
      pathParts = [...parent.pathParts, parent.nextIndex++];
    }
    const path = formatKeyPath(pathParts);
    // An empty value (`insecure:`) has no text of its own: it is placed at its key, or at the item's
    // list, so that an error about it still names its line.
    const offset = eventStart(event);
    const position =
      offset >= 0
        ? offsetToPosition(starts, offset)
        : (keys.get(path) ?? parent?.position ?? { line: 1, column: 1 });
    if (parent?.kind === 'sequence') keys.set(path, position);
    if (!isKey) values.set(path, position);
    if (event.type === EVENT_ID.MAPPING || event.type === EVENT_ID.SEQUENCE) {
      // Complex keys (a mapping used as a key) get a frame too, so POP events stay balanced.
      stack.push({
        kind: event.type === EVENT_ID.MAPPING ? 'mapping' : 'sequence',
        path,
        pathParts,
        nextIndex: 0,
        expectingKey: true,
        currentKey: undefined,
        position,
      });
    }
  }
  return { keys, values };
}

/**
 * Parses `text` as a single YAML document. An empty document yields `null`.
 * Throws YamlSyntaxError with a position for malformed YAML or more than one document.
 */
export function parseYamlSource(text: string, schema?: Schema): YamlSource {
  const { events, value } = parseDocument(text, schema);
  const { keys, values } = positionIndex(text, events);
  return {
    value,
    keyAt: (p) => keys.get(formatKeyPath(p)),
    valueAt: (p) => {
      for (let n = p.length; n >= 0; n--) {
        const hit = values.get(formatKeyPath(p.slice(0, n)));
        if (hit) return hit;
      }
      return { line: 1, column: 1 };
    },
  };
}

// Where a position inside a literal block scalar (`inline: |`) sits in the file: the block keeps its
// lines as written, so line n of the value is line n of the block, shifted by its indentation. Other
// scalar styles fold or unescape their text, and are not mapped.
import type { SourcePosition } from '../../../lib/yaml-source.ts';

/**
 * `blockStart` is where the YAML source places the scalar's value: for a block scalar, the start of
 * the line after its `|` indicator. Returns undefined when the value is not a literal block.
 */
export function literalBlockPosition(
  text: string,
  blockStart: SourcePosition,
  inner: SourcePosition,
): SourcePosition | undefined {
  const lines = text.split('\n');
  const indicatorLine = lines[blockStart.line - 2] ?? '';
  if (blockStart.column !== 1 || !/(^|[\s:-])\|[-+]?\s*(#.*)?$/.test(indicatorLine)) return undefined;
  const first = lines.slice(blockStart.line - 1).find((line) => line.trim() !== '');
  if (first === undefined) return undefined;
  const indent = first.length - first.trimStart().length;
  return { line: blockStart.line + inner.line - 1, column: indent + inner.column };
}

// Tables as kubectl prints them: upper-case headers, columns padded to their widest cell and three
// spaces apart, no trailing blanks; `wide` adds the columns marked so. A row printed later under
// --watch keeps the widths of the first table (kubectl does the same), growing only when a cell is
// wider.
export interface Column<R> {
  header: string;
  /** Shown only with -o wide. */
  wide?: boolean;
  value: (record: R, nowMs: number) => string;
}

const GAP = '   ';

export class TablePrinter<R> {
  readonly #columns: readonly Column<R>[];
  #widths: number[];

  constructor(columns: readonly Column<R>[], wide: boolean) {
    this.#columns = columns.filter((c) => wide || c.wide !== true);
    this.#widths = this.#columns.map((c) => c.header.length);
  }

  /** The header and the rows, widths from all of them. */
  table(records: readonly R[], nowMs: number): string[] {
    const cells = records.map((r) => this.#cells(r, nowMs));
    for (const row of cells) this.#widen(row);
    return [this.#columns.map((c) => c.header), ...cells].map((row) => this.#line(row));
  }

  /** One more row (under --watch). */
  row(record: R, nowMs: number): string {
    const cells = this.#cells(record, nowMs);
    this.#widen(cells);
    return this.#line(cells);
  }

  #cells(record: R, nowMs: number): string[] {
    return this.#columns.map((c) => {
      const value = c.value(record, nowMs);
      return value === '' ? '<none>' : value;
    });
  }

  #widen(cells: readonly string[]): void {
    this.#widths = this.#widths.map((w, i) => Math.max(w, cells[i]?.length ?? 0));
  }

  #line(cells: readonly string[]): string {
    return cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(this.#widths[i] ?? 0)))
      .join(GAP)
      .trimEnd();
  }
}

// Databases of one session: embedded PGlite, which one process opens and whose driver runs one
// statement or transaction at a time (pglite-dialect.ts). Writers may lean on that: nothing else can
// run between the statements they issue, so what a transaction guards against elsewhere cannot
// happen (watch-sequence.ts). A database not marked here is treated as shared, the safe side.
const marked = new WeakSet<object>();

/** Marks a database as one session; openDatabase does it for PGlite. */
export function markSingleSession(db: object): void {
  marked.add(db);
}

export function isSingleSession(db: object): boolean {
  return marked.has(db);
}

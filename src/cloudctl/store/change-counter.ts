// A number that goes up whenever this process writes a set of rows that some in-memory view copies
// (the account directory copies every account's name and permissions). The view compares it with the
// number it loaded at, so it reloads after a local write without asking the database on every read.
// Writes by another process are not counted here; views bound their age for those.
export class ChangeCounter {
  #value = 0;

  get value(): number {
    return this.#value;
  }

  changed(): void {
    this.#value += 1;
  }
}

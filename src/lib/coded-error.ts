// The base of the errors both programs raise on purpose, as fastify's FST_ERR_* are made: a family
// is a class named for it, its `code` one of the family's values from a list kept in one place, and
// callers act on the code (instanceof and code), never on the message's words. `name` is the
// class's, so a log line says which family.
export class CodedError<C extends string | number = string> extends Error {
  readonly code: C;

  constructor(code: C, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

// Builds a pprof profile (the protobuf `go tool pprof` reads) from V8 call frames: functions and
// locations are deduplicated, and each sample is a stack of locations, leaf first.
import { gzipSync } from 'node:zlib';
import {
  Line,
  Location,
  Function as PprofFunction,
  Profile,
  Sample,
  StringTable,
  ValueType,
} from 'pprof-format';

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

export class PprofBuilder {
  readonly #strings = new StringTable();
  readonly #functions = new Map<string, PprofFunction>();
  readonly #locations = new Map<string, Location>();
  readonly #samples: Sample[] = [];
  readonly #sampleTypes: ValueType[];

  constructor(sampleTypes: Array<[type: string, unit: string]>) {
    this.#sampleTypes = sampleTypes.map(([type, unit]) => this.valueType(type, unit));
  }

  valueType(type: string, unit: string): ValueType {
    return new ValueType({ type: this.#strings.dedup(type), unit: this.#strings.dedup(unit) });
  }

  /** The location id of a frame; V8 lines and columns are 0-based, pprof's 1-based. */
  location(frame: CallFrame): number {
    const key = `${frame.functionName}\u0000${frame.url}\u0000${frame.lineNumber}\u0000${frame.columnNumber}`;
    const existing = this.#locations.get(key);
    if (existing !== undefined) return Number(existing.id);
    const name = frame.functionName || '(anonymous)';
    const functionKey = `${name}\u0000${frame.url}`;
    let fn = this.#functions.get(functionKey);
    if (fn === undefined) {
      fn = new PprofFunction({
        id: this.#functions.size + 1,
        name: this.#strings.dedup(name),
        systemName: this.#strings.dedup(name),
        filename: this.#strings.dedup(frame.url),
      });
      this.#functions.set(functionKey, fn);
    }
    const location = new Location({
      id: this.#locations.size + 1,
      line: [new Line({ functionId: fn.id, line: frame.lineNumber + 1, column: frame.columnNumber + 1 })],
    });
    this.#locations.set(key, location);
    return Number(location.id);
  }

  sample(stackLeafFirst: number[], values: number[]): void {
    this.#samples.push(new Sample({ locationId: stackLeafFirst, value: values }));
  }

  /** The gzipped protobuf, as Go's runtime/pprof writes it. */
  encode(extra: {
    periodType: [string, string];
    period: number;
    timeNanos: number;
    durationNanos: number;
  }): Buffer {
    const profile = new Profile({
      sampleType: this.#sampleTypes,
      sample: this.#samples,
      location: [...this.#locations.values()],
      function: [...this.#functions.values()],
      stringTable: this.#strings,
      periodType: this.valueType(...extra.periodType),
      period: extra.period,
      timeNanos: extra.timeNanos,
      durationNanos: extra.durationNanos,
    });
    return gzipSync(profile.encode());
  }
}

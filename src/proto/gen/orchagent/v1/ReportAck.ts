// Original file: proto/orchagent/v1/operations.proto


export interface ReportAck {
  /**
   * true: this id already had a result, which was kept.
   */
  'duplicate'?: (boolean);
}

export interface ReportAck__Output {
  /**
   * true: this id already had a result, which was kept.
   */
  'duplicate': (boolean);
}

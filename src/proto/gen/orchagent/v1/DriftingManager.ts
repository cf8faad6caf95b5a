// Original file: proto/orchagent/v1/caching.proto


export interface DriftingManager {
  'manager'?: (string);
  /**
   * Update or Apply.
   */
  'operation'?: (string);
  /**
   * "scale" for kubectl scale; empty for the object itself.
   */
  'subresource'?: (string);
  /**
   * When it last wrote, RFC 3339 as Kubernetes keeps it (to the second); empty when not recorded.
   */
  'time'?: (string);
  /**
   * The paths it owns, e.g. spec.replicas, spec.template.spec.containers[name=web].image; at most 20.
   */
  'paths'?: (string)[];
  /**
   * How many more paths it owns than are listed.
   */
  'morePaths'?: (number);
}

export interface DriftingManager__Output {
  'manager': (string);
  /**
   * Update or Apply.
   */
  'operation': (string);
  /**
   * "scale" for kubectl scale; empty for the object itself.
   */
  'subresource': (string);
  /**
   * When it last wrote, RFC 3339 as Kubernetes keeps it (to the second); empty when not recorded.
   */
  'time': (string);
  /**
   * The paths it owns, e.g. spec.replicas, spec.template.spec.containers[name=web].image; at most 20.
   */
  'paths': (string)[];
  /**
   * How many more paths it owns than are listed.
   */
  'morePaths': (number);
}

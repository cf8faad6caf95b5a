// Original file: proto/orchagent/v1/caching.proto

import type { ResumeVersion as _orchagent_v1_ResumeVersion, ResumeVersion__Output as _orchagent_v1_ResumeVersion__Output } from '../../orchagent/v1/ResumeVersion.ts';

export interface GetResumeVersionsResponse {
  'versions'?: (_orchagent_v1_ResumeVersion)[];
}

export interface GetResumeVersionsResponse__Output {
  'versions': (_orchagent_v1_ResumeVersion__Output)[];
}

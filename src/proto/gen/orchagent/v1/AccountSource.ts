// Original file: proto/orchagent/v1/common.proto

export const AccountSource = {
  ACCOUNT_SOURCE_UNSPECIFIED: 'ACCOUNT_SOURCE_UNSPECIFIED',
  STATIC_AGENT_CONFIG: 'STATIC_AGENT_CONFIG',
  CLOUDCTL: 'CLOUDCTL',
} as const;

export type AccountSource =
  | 'ACCOUNT_SOURCE_UNSPECIFIED'
  | 0
  | 'STATIC_AGENT_CONFIG'
  | 1
  | 'CLOUDCTL'
  | 2

export type AccountSource__Output = typeof AccountSource[keyof typeof AccountSource]

{{/* Names, labels and the agent config rendered from values. */}}

{{- define "orch-agent.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "orch-agent.fullname" -}}
{{- if contains .Chart.Name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{- define "orch-agent.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "orch-agent.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "orch-agent.selectorLabels" -}}
app.kubernetes.io/name: {{ include "orch-agent.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Cluster-scoped names carry the namespace: two releases of one name in two namespaces must not collide. */}}
{{- define "orch-agent.clusterRoleName" -}}
{{- printf "%s-%s" (include "orch-agent.fullname" .) .Release.Namespace | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "orch-agent.serviceAccountName" -}}
{{- default (include "orch-agent.fullname" .) .Values.serviceAccount.name }}
{{- end }}

{{/* The spec's default zone: `<deployment name>_<namespace>`. */}}
{{- define "orch-agent.zoneId" -}}
{{- default (printf "%s_%s" (include "orch-agent.fullname" .) .Release.Namespace) .Values.zoneId }}
{{- end }}

{{/* The accounts of the chosen mode, as agent config entries. */}}
{{- define "orch-agent.accounts" -}}
{{- $accounts := list }}
{{- if eq .Values.mode "agent" }}
{{- $account := dict "name" .Values.accountName "serviceAccount" true }}
{{- if .Values.rbac.namespaces }}{{ $_ := set $account "namespaces" .Values.rbac.namespaces }}{{ end }}
{{- $accounts = append $accounts $account }}
{{- else if eq .Values.mode "infrastructure" }}
{{- range .Values.accounts }}
{{- $entry := omit (deepCopy .) "kubeconfigSecret" }}
{{- $_ := set $entry "orchConfigFile" (printf "/etc/orch-agent/kubeconfigs/%s/%s" .name (default "kubeconfig" .kubeconfigSecret.key)) }}
{{- $accounts = append $accounts $entry }}
{{- end }}
{{- else if eq .Values.mode "service" }}
{{- range .Values.serviceMode.accounts }}
{{- $entry := deepCopy . }}
{{- $_ := set $entry "orchConfigFile" (printf "/etc/orch-agent/kubeconfig/%s" (default "kubeconfig" $.Values.serviceMode.kubeconfigSecret.key)) }}
{{- $accounts = append $accounts $entry }}
{{- end }}
{{- else }}
{{- fail (printf "mode must be agent, infrastructure or service, found %q" .Values.mode) }}
{{- end }}
{{- toYaml (dict "accounts" $accounts) }}
{{- end }}

{{/* The agent config: values.config, then what the chart decides (accounts, listeners, secrets refs). */}}
{{- define "orch-agent.config" -}}
{{- $cloudctl := dict "grpc" .Values.cloudctl.grpc "insecure" .Values.cloudctl.insecure }}
{{- if .Values.cloudctl.tokenSecret.name }}
{{- $_ := set $cloudctl "auth" (dict "token" "encrypted:env!n:ORCH_AGENT_TOKEN") }}
{{- end }}
{{- if .Values.cloudctl.tlsSecret }}
{{- $_ := set $cloudctl "tls" (dict "cacertFile" "/etc/orch-agent/tls/ca.crt") }}
{{- end }}
{{- $chart := dict
  "cloudctl" $cloudctl
  "orchestrator" (include "orch-agent.accounts" . | fromYaml)
  "server" (dict "host" "0.0.0.0" "port" .Values.healthPort) }}
{{- toYaml (mergeOverwrite (deepCopy .Values.config) $chart) }}
{{- end }}

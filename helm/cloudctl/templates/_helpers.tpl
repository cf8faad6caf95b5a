{{/* Names, labels and cloudctl's config rendered from values. */}}

{{- define "cloudctl.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "cloudctl.fullname" -}}
{{- if contains .Chart.Name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{- define "cloudctl.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "cloudctl.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "cloudctl.selectorLabels" -}}
app.kubernetes.io/name: {{ include "cloudctl.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Replicas share state only through PostgreSQL: refuse a setup that would split it. */}}
{{- define "cloudctl.checkDatabase" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not .Values.database.urlSecret.name) }}
{{- fail (printf "replicaCount %d needs database.urlSecret.name: replicas share one PostgreSQL, and the embedded database is single-node" (int .Values.replicaCount)) }}
{{- end }}
{{- if and .Values.persistence.enabled .Values.database.urlSecret.name }}
{{- fail "persistence.enabled is for the embedded database; with database.urlSecret the state is in PostgreSQL" }}
{{- end }}
{{- range $key := list "grpc" "http" "database" }}
{{- if hasKey $.Values.config $key }}
{{- fail (printf "config.%s is set by the chart (use the chart's %s values)" $key $key) }}
{{- end }}
{{- end }}
{{- end }}

{{/* cloudctl's config: values.config, then the listeners and the database the chart decides. */}}
{{- define "cloudctl.config" -}}
{{- include "cloudctl.checkDatabase" . }}
{{- $config := deepCopy .Values.config }}
{{- $_ := set $config "grpc" (dict "host" "0.0.0.0" "port" (int .Values.grpc.port)) }}
{{- /* Webhook jobs call back through the Service (any replica takes a callback), not a pod's name. */}}
{{- $externalUrl := .Values.http.externalUrl | default (printf "http://%s.%s.svc:%d" (include "cloudctl.fullname" .) .Release.Namespace (int .Values.service.httpPort)) }}
{{- $_ := set $config "http" (dict "host" "0.0.0.0" "port" (int .Values.http.port) "externalUrl" $externalUrl) }}
{{- if .Values.database.urlSecret.name }}
{{- $_ := set $config "database" (dict "urlFile" (printf "/etc/cloudctl/database/%s" .Values.database.urlSecret.key)) }}
{{- else }}
{{- $_ := set $config "database" (dict "dataDir" "/var/lib/cloudctl") }}
{{- end }}
{{- toYaml $config }}
{{- end }}

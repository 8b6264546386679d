{{/* The chart name, or nameOverride. */}}
{{- define "regent.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's full name: <release>-regent, or fullnameOverride. */}}
{{- define "regent.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "regent.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "regent.selectorLabels" -}}
app.kubernetes.io/name: {{ include "regent.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: control-plane
{{- end }}

{{- define "regent.labels" -}}
helm.sh/chart: {{ include "regent.chart" . }}
{{ include "regent.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "regent.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "regent.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "regent.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "regent.claimName" -}}
{{- default (printf "%s-data" (include "regent.fullname" .)) .Values.persistence.existingClaim }}
{{- end }}

{{/*
The Lease the replicas compete for. Its name is fixed in src/app/control-plane.ts (leaseFor), so it is
not a value: two releases in one namespace would share it (install one release per namespace).
*/}}
{{- define "regent.leaseName" -}}
regent-controller
{{- end }}

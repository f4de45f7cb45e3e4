{{/*
Names. The release is one region's install, so objects are named <release>-<component>.
*/}}
{{- define "tollgate.name" -}}
{{- .Chart.Name -}}
{{- end }}

{{- define "tollgate.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end }}

{{/*
The region this release serves. Every object carries it, so a missing region file fails the render
here, naming what to do, instead of installing a region-less Tollgate.
*/}}
{{- define "tollgate.region" -}}
{{- required "region is not set: install once per region with its values file, e.g. -f values-us-east.yaml" .Values.region -}}
{{- end }}

{{/* Labels; call with (dict "root" $ "component" "check-service"). */}}
{{- define "tollgate.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
{{ include "tollgate.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: tollgate
tollgate.dev/region: {{ include "tollgate.region" .root | quote }}
{{- end }}

{{- define "tollgate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tollgate.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* An image reference; call with (dict "root" $ "image" .Values.checkService.image). The registry is required
(the schema says so first; this names it too, for a render that skips the schema); a digest pins the image and
wins over the tag. */}}
{{- define "tollgate.image" -}}
{{- $registry := required "image.registry is required: the registry you pushed Tollgate's images to, e.g. registry.example.com" .root.Values.image.registry -}}
{{- $repository := printf "%s/%s" (trimSuffix "/" $registry) .image.repository -}}
{{- if .image.digest -}}
{{- printf "%s@%s" $repository .image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repository (.image.tag | default .root.Values.image.tag | default .root.Chart.AppVersion) -}}
{{- end -}}
{{- end }}

{{- define "tollgate.redisSecretName" -}}
{{- .Values.redis.existingSecret | default (printf "%s-redis" (include "tollgate.fullname" .)) -}}
{{- end }}

{{- define "tollgate.databaseSecretName" -}}
{{- .Values.database.existingSecret | default (printf "%s-database" (include "tollgate.fullname" .)) -}}
{{- end }}

{{/*
The Redis Cluster as Spring Boot takes it (spring.data.redis.*, the same for every service): nodes and
credentials from the Redis Secret, TLS from redis.tls.enabled. Username and password are optional keys:
a cluster without ACLs has neither, and an absent key leaves the property unset rather than set to an
empty string.
*/}}
{{- define "tollgate.redisEnv" -}}
{{- $secret := include "tollgate.redisSecretName" . -}}
{{- $keys := .Values.redis.secretKeys -}}
- name: SPRING_DATA_REDIS_CLUSTER_NODES
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $keys.nodes }}
- name: SPRING_DATA_REDIS_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $keys.username }}
      optional: true
- name: SPRING_DATA_REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $keys.password }}
      optional: true
- name: SPRING_DATA_REDIS_SSL_ENABLED
  value: {{ .Values.redis.tls.enabled | quote }}
{{- if include "tollgate.redisPrivateCa" . }}
# The private CA as an SSL bundle handed to Lettuce (never the JVM-wide truststore), from the mounted Secret;
# Spring Boot reloads the bundle when the kubelet refreshes the file, and new connections trust the new CA
- name: SPRING_DATA_REDIS_SSL_BUNDLE
  value: {{ include "tollgate.redisSslBundle" . }}
- name: SPRING_SSL_BUNDLE_PEM_{{ include "tollgate.redisSslBundle" . | upper }}_TRUSTSTORE_CERTIFICATE
  value: file:/etc/tollgate/redis-ca/ca.crt
- name: SPRING_SSL_BUNDLE_PEM_{{ include "tollgate.redisSslBundle" . | upper }}_RELOADONUPDATE
  value: "true"
{{- end }}
{{- end }}

{{/* The name of the SSL bundle of the Redis CA (spring.ssl.bundle.pem.<name>). */}}
{{- define "tollgate.redisSslBundle" -}}redis{{- end }}

{{/* "true" when pods must trust a private CA for TLS to Redis (empty otherwise). */}}
{{- define "tollgate.redisPrivateCa" -}}
{{- if and .Values.redis.tls.enabled .Values.redis.tls.privateCa -}}true{{- end -}}
{{- end }}

{{/* JAVA_TOOL_OPTIONS: the component's JVM flags. Call with (dict "root" $ "options" .Values.checkService.javaToolOptions). */}}
{{- define "tollgate.javaToolOptions" -}}
{{- .options | trim -}}
{{- end }}

{{/*
check-service's JVM flags: its javaToolOptions, with Spring AOT where the pod has the configuration the build was
processed for (tracing off, rules from rules-service). Call with the root context.
*/}}
{{- define "tollgate.checkServiceJavaToolOptions" -}}
{{- $c := .Values.checkService -}}
{{- $options := $c.javaToolOptions | trim -}}
{{- if and $c.springAot (not .Values.tracing.enabled) $c.rules.watch -}}
{{- $options = printf "%s -Dspring.aot.enabled=true" $options | trim -}}
{{- end -}}
{{- $options -}}
{{- end }}

{{/* Volumes every Java pod has: a writable /tmp (the root filesystem is read-only), and the Redis CA. */}}
{{- define "tollgate.volumes" -}}
- name: tmp
  emptyDir: {}
{{- if include "tollgate.redisPrivateCa" . }}
- name: redis-ca
  secret:
    secretName: {{ include "tollgate.redisSecretName" . }}
    items:
      - key: {{ .Values.redis.secretKeys.ca }}
        path: ca.crt
{{- end }}
{{- end }}

{{/* The Redis CA is mounted whole, never by subPath: the kubelet refreshes only whole Secret volumes. */}}
{{- define "tollgate.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
{{- if include "tollgate.redisPrivateCa" . }}
- name: redis-ca
  mountPath: /etc/tollgate/redis-ca
  readOnly: true
{{- end }}
{{- end }}

{{/* The rules store's JDBC URL and credentials, from the database Secret (Spring's own property names). */}}
{{- define "tollgate.databaseEnv" -}}
{{- $secret := include "tollgate.databaseSecretName" . -}}
{{- $keys := .Values.database.secretKeys -}}
- name: SPRING_DATASOURCE_URL
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $keys.url }}
- name: SPRING_DATASOURCE_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $keys.username }}
- name: SPRING_DATASOURCE_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $keys.password }}
{{- end }}

{{/*
The pod template's annotations: annotation-based Prometheus scraping (on the management port), then the
component's podAnnotations. Call with (dict "root" $ "c" .Values.checkService). Checksums follow in each
template, as they differ per component.
*/}}
{{- define "tollgate.podAnnotations" -}}
{{- if .root.Values.metrics.scrapeAnnotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .c.managementPort | quote }}
prometheus.io/path: /actuator/prometheus
{{- end }}
{{- with .c.podAnnotations }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The pod template's labels: the chart's, then the component's podLabels. Call with (dict "root" $ "component" "check-service" "c" .Values.checkService). */}}
{{- define "tollgate.podLabels" -}}
{{ include "tollgate.labels" . }}
{{- with .c.podLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
The checksum of a Secret the chart makes, so that an upgrade that changes it rolls the pods that read it
through environment variables (which a running container never sees change). Empty for a Secret the
operator manages (existingSecret): the chart cannot see its content.
Call with (dict "root" $ "name" "redis"); name is the template secret-<name>.yaml and the values key.
*/}}
{{- define "tollgate.secretChecksum" -}}
{{- if not (index .root.Values .name).existingSecret -}}
checksum/{{ .name }}-secret: {{ include (print .root.Template.BasePath "/secret-" .name ".yaml") .root | sha256sum }}
{{- end -}}
{{- end }}

{{/*
The chart-made Redis Secret's checksum, all of it but the CA: a new password or node list needs new pods,
a renewed CA does not (the pods' SSL bundle reloads the mounted file, and new connections trust it).
*/}}
{{- define "tollgate.redisSecretChecksum" -}}
{{- if not .Values.redis.existingSecret -}}
{{- $redis := deepCopy .Values.redis -}}
{{- $_ := set $redis.tls "ca" "" -}}
checksum/redis-secret: {{ toJson $redis | sha256sum }}
{{- end -}}
{{- end }}

{{/*
The management server: actuator (health, info, prometheus) on its own port, which no Service exposes.
Probes, the PodMonitor and the scrape annotations use it; the API port serves no actuator endpoint.
Call with (dict "root" $ "c" .Values.checkService).
*/}}
{{- define "tollgate.managementEnv" -}}
- name: MANAGEMENT_SERVER_PORT
  value: {{ .c.managementPort | quote }}
{{- end }}

{{- define "tollgate.managementContainerPort" -}}
- name: management
  containerPort: {{ .c.managementPort }}
  protocol: TCP
{{- end }}

{{/*
The pod spec's scheduling: priority class, zone spread (when on), node selector, tolerations, affinity.
Call with (dict "root" $ "component" "check-service" "c" .Values.checkService).
*/}}
{{- define "tollgate.scheduling" -}}
{{- with .c.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- if .c.topologySpread.enabled }}
# Spread over zones, so losing one zone takes a share of the pods, not all of them.
topologySpreadConstraints:
  - maxSkew: {{ .c.topologySpread.maxSkew }}
    topologyKey: {{ .c.topologySpread.topologyKey }}
    whenUnsatisfiable: {{ .c.topologySpread.whenUnsatisfiable }}
    labelSelector:
      matchLabels:
        {{- include "tollgate.selectorLabels" . | nindent 8 }}
{{- end }}
{{- with .c.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .c.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .c.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
Probes on Spring Boot's health groups. check-service's readiness waits until the pod enforces (rules held,
Redis reached once, or its store grace over); after that a Redis outage must NOT take pods out of their
Service, because answering from fallback buckets is how the API keeps serving (requirement 4), and it
does not. The startup probe gives the JVM up to two minutes before liveness counts. All on the management
port: a node's kubelet reaches it, the Service does not.
*/}}
{{- define "tollgate.probes" -}}
startupProbe:
  httpGet:
    path: /actuator/health/liveness
    port: management
  periodSeconds: 2
  failureThreshold: 60
readinessProbe:
  httpGet:
    path: /actuator/health/readiness
    port: management
  periodSeconds: 5
  timeoutSeconds: 2
  failureThreshold: 3
livenessProbe:
  httpGet:
    path: /actuator/health/liveness
    port: management
  periodSeconds: 10
  timeoutSeconds: 2
  failureThreshold: 3
{{- end }}

{{/* rules-service's base URL for the pods' watch feed: given, or this release's rules-service. */}}
{{- define "tollgate.rulesServiceUrl" -}}
{{- if .Values.checkService.rules.serviceUrl -}}
{{- .Values.checkService.rules.serviceUrl -}}
{{- else if .Values.rulesService.enabled -}}
{{- printf "http://%s-rules-service:8081" (include "tollgate.fullname" .) -}}
{{- else -}}
{{- fail "checkService.rules.watch is on but rulesService is disabled: set checkService.rules.serviceUrl" -}}
{{- end -}}
{{- end }}

{{/*
budgetRebalancer.regions without the regions a values file set to null (YAML; read it with fromYaml).
*/}}
{{- define "tollgate.rebalancerRegionMap" -}}
{{- $regions := dict -}}
{{- range $name, $region := .Values.budgetRebalancer.regions -}}
{{- if $region -}}
{{- $_ := set $regions $name $region -}}
{{- end -}}
{{- end -}}
{{- toYaml $regions -}}
{{- end }}

{{/*
The rebalancer's tollgate.regions as environment variables, by index and name (TOLLGATE_REGIONS_0_NAME=us-east),
since a variable's name cannot spell the dash in a region's name: each region's slice of the default split,
and the other regions' Redis Clusters from their Secrets (this region reads its own through spring.data.redis.*).
Regions in name order, so the indexes never move with the order of a values file. This region's slice must
be the pods' regionDefaultShare, or the shares of a key without a budget would not sum to 1.
*/}}
{{- define "tollgate.rebalancerRegionsEnv" -}}
{{- $own := include "tollgate.region" . -}}
{{- $regions := include "tollgate.rebalancerRegionMap" . | fromYaml -}}
{{- if not (hasKey $regions $own) -}}
{{- fail (printf "budgetRebalancer.regions lists %s but not this release's region %s" (keys $regions | sortAlpha | join ", ") $own) -}}
{{- end -}}
{{- $ownShare := (index $regions $own).defaultShare -}}
{{- if ne (toString $ownShare) (toString .Values.regionDefaultShare) -}}
{{- fail (printf "budgetRebalancer.regions.%s.defaultShare is %v but regionDefaultShare is %v: the pods and the rebalancer must use the same default split" $own $ownShare .Values.regionDefaultShare) -}}
{{- end -}}
{{- range $i, $name := keys $regions | sortAlpha }}
{{- $region := index $regions $name }}
- name: TOLLGATE_REGIONS_{{ $i }}_NAME
  value: {{ $name | quote }}
- name: TOLLGATE_REGIONS_{{ $i }}_DEFAULTSHARE
  value: {{ required (printf "budgetRebalancer.regions.%s.defaultShare: the region's slice of the default split" $name) $region.defaultShare | toString | quote }}
{{- if ne $name $own }}
{{- $secret := required (printf "budgetRebalancer.regions.%s.existingSecret: name the Secret with nodes, username and password of %s's Redis Cluster" $name $name) $region.existingSecret }}
{{- range $key := list "nodes" "username" "password" }}
- name: TOLLGATE_REGIONS_{{ $i }}_REDIS_{{ eq $key "nodes" | ternary "CLUSTER_NODES" (upper $key) }}
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $key }}
      {{- if ne $key "nodes" }}
      optional: true
      {{- end }}
{{- end }}
- name: TOLLGATE_REGIONS_{{ $i }}_REDIS_SSL_ENABLED
  value: {{ $.Values.redis.tls.enabled | quote }}
{{- if include "tollgate.redisPrivateCa" $ }}
- name: TOLLGATE_REGIONS_{{ $i }}_REDIS_SSL_BUNDLE
  value: {{ include "tollgate.redisSslBundle" $ }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/* tollgate.pods.min for check-service: checkService.podFloor, else the HPA's minimum, else replicas. */}}
{{- define "tollgate.checkServicePodFloor" -}}
{{- $c := .Values.checkService -}}
{{- $floor := "" -}}
{{- if $c.podFloor -}}
{{- $floor = $c.podFloor -}}
{{- else if $c.autoscaling.enabled -}}
{{- $floor = $c.autoscaling.minReplicas -}}
{{- else -}}
{{- $floor = $c.replicas -}}
{{- end -}}
{{- if lt (int $floor) 1 -}}
{{- fail (printf "checkService.podFloor: the pod floor must be at least 1, was %v" $floor) -}}
{{- end -}}
{{- int $floor -}}
{{- end }}

{{/* An alert's runbook: its section of docs/runbooks.md. Call with (dict "root" $ "alert" "TollgateFailOpen"). */}}
{{- define "tollgate.runbookUrl" -}}
{{- printf "%s#%s" (trimSuffix "/" .root.Values.prometheusRule.runbookUrl) (lower .alert) -}}
{{- end }}

{{/* The console log's format for every service: structured (JSON) unless logging.format is text. */}}
{{- define "tollgate.loggingEnv" -}}
{{- if ne .Values.logging.format "text" }}
- name: LOGGING_STRUCTURED_FORMAT_CONSOLE
  value: {{ .Values.logging.format | quote }}
{{- end }}
{{- end }}

{{/* check-service's tracing: on with a sampling share and an OTLP endpoint, or explicitly off. */}}
{{- define "tollgate.tracingEnv" -}}
{{- $t := .Values.tracing -}}
- name: MANAGEMENT_TRACING_EXPORT_ENABLED
  value: {{ $t.enabled | quote }}
{{- if $t.enabled }}
- name: MANAGEMENT_TRACING_SAMPLING_PROBABILITY
  value: {{ $t.samplingProbability | quote }}
- name: MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_OTLP_ENDPOINT
  value: {{ required "tracing.enabled: set tracing.otlpEndpoint, the collector's OTLP/HTTP traces endpoint" $t.otlpEndpoint | quote }}
{{- end }}
{{- end }}

{{/*
A service's settings block as environment variables by Spring's relaxed binding: each group and key of
(dict "settings" $c.settings) becomes TOLLGATE_<GROUP>_<KEY> (a map one level deeper, TOLLGATE_<GROUP>_<KEY>_<INNER>),
e.g. settings.check.maxEntries is TOLLGATE_CHECK_MAXENTRIES, tollgate.check.max-entries. An empty value is left out: the service's default holds.
*/}}
{{- define "tollgate.settingsEnv" -}}
{{- range $group, $keys := .settings }}
{{- range $key, $value := $keys }}
{{- if kindIs "map" $value }}
{{- range $inner, $innerValue := $value }}
{{- if not (eq (toString $innerValue) "") }}
- name: TOLLGATE_{{ upper $group }}_{{ upper $key }}_{{ upper $inner }}
  value: {{ toString $innerValue | quote }}
{{- end }}
{{- end }}
{{- else if not (eq (toString $value) "") }}
- name: TOLLGATE_{{ upper $group }}_{{ upper $key }}
  value: {{ toString $value | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

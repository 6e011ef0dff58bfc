// The parts of the compose file and the Kubernetes objects the tests rely on,
// as zod schemas: parsing one both checks its structure and types the rest of
// the test. Loose objects, so fields the tests do not look at are allowed.
import { z } from 'zod';

const stringMap = z.record(z.string(), z.string());

// --- compose ----------------------------------------------------------------

export const composeService = z.looseObject({
  image: z.string(),
  build: z.looseObject({ context: z.string(), dockerfile: z.string() }).optional(),
  command: z.array(z.string()).optional(),
  environment: stringMap.optional(),
  volumes: z.array(z.string()).optional(),
  ports: z.array(z.string()).optional(),
  depends_on: z.union([z.array(z.string()), z.record(z.string(), z.looseObject({ condition: z.string() }))]).optional(),
  healthcheck: z.looseObject({ test: z.array(z.string()) }).optional(),
  stop_grace_period: z.string().optional(),
});
export type ComposeService = z.infer<typeof composeService>;

export const composeFile = z.looseObject({
  name: z.string(),
  services: z.record(z.string(), composeService),
  volumes: z.record(z.string(), z.unknown()).optional(),
});

export const prometheusConfig = z.looseObject({
  global: z.looseObject({ scrape_interval: z.string() }),
  rule_files: z.array(z.string()),
  scrape_configs: z.array(
    z.looseObject({
      job_name: z.string(),
      static_configs: z.array(z.looseObject({ targets: z.array(z.string()) })),
    }),
  ),
});

export const otelCollectorConfig = z.looseObject({
  receivers: z.looseObject({ otlp: z.looseObject({ protocols: z.looseObject({ http: z.looseObject({ endpoint: z.string() }) }) }) }),
  exporters: z.looseObject({ debug: z.looseObject({ verbosity: z.string() }) }),
  service: z.looseObject({
    pipelines: z.looseObject({ logs: z.looseObject({ receivers: z.array(z.string()), exporters: z.array(z.string()) }) }),
  }),
});

export const grafanaDatasources = z.looseObject({
  apiVersion: z.literal(1),
  datasources: z.array(z.looseObject({ name: z.string(), uid: z.string(), type: z.string(), url: z.string(), isDefault: z.boolean() })),
});

export const grafanaDashboardProviders = z.looseObject({
  apiVersion: z.literal(1),
  providers: z.array(z.looseObject({ name: z.string(), type: z.literal('file'), options: z.looseObject({ path: z.string() }) })),
});

// --- Kubernetes ---------------------------------------------------------------

const metadata = z.looseObject({
  name: z.string(),
  namespace: z.string().optional(),
  labels: stringMap.optional(),
  annotations: stringMap.optional(),
});

export const k8sObject = z.looseObject({ apiVersion: z.string(), kind: z.string(), metadata });
export type K8sObject = z.infer<typeof k8sObject>;

const probe = z.looseObject({
  httpGet: z.looseObject({ path: z.string(), port: z.union([z.string(), z.number()]), scheme: z.string().optional() }),
});

const envVar = z.looseObject({
  name: z.string(),
  value: z.string().optional(),
  valueFrom: z
    .looseObject({
      secretKeyRef: z.looseObject({ name: z.string(), key: z.string(), optional: z.boolean().optional() }).optional(),
    })
    .optional(),
});

const container = z.looseObject({
  name: z.string(),
  image: z.string(),
  args: z.array(z.string()),
  env: z.array(envVar),
  ports: z.array(z.looseObject({ name: z.string(), containerPort: z.number() })),
  livenessProbe: probe,
  readinessProbe: probe,
  resources: z.looseObject({ requests: stringMap, limits: stringMap }),
  securityContext: z.looseObject({
    allowPrivilegeEscalation: z.literal(false),
    readOnlyRootFilesystem: z.literal(true),
    capabilities: z.looseObject({ drop: z.array(z.string()) }),
  }),
  volumeMounts: z.array(z.looseObject({ name: z.string(), mountPath: z.string(), readOnly: z.boolean().optional() })),
});

export const statefulSet = k8sObject.extend({
  kind: z.literal('StatefulSet'),
  spec: z.looseObject({
    serviceName: z.string(),
    replicas: z.number(),
    selector: z.looseObject({ matchLabels: stringMap }),
    template: z.looseObject({
      metadata: z.looseObject({ labels: stringMap }),
      spec: z.looseObject({
        terminationGracePeriodSeconds: z.number(),
        securityContext: z.looseObject({
          runAsNonRoot: z.literal(true),
          runAsUser: z.number(),
          runAsGroup: z.number(),
          fsGroup: z.number(),
          seccompProfile: z.looseObject({ type: z.string() }),
        }),
        containers: z.array(container).length(1),
        volumes: z.array(
          z.looseObject({
            name: z.string(),
            configMap: z.looseObject({ name: z.string() }).optional(),
            emptyDir: z.looseObject({}).optional(),
          }),
        ),
      }),
    }),
    volumeClaimTemplates: z.array(
      z.looseObject({
        metadata: z.looseObject({ name: z.string() }),
        spec: z.looseObject({
          accessModes: z.array(z.string()),
          resources: z.looseObject({ requests: z.looseObject({ storage: z.string() }) }),
        }),
      }),
    ),
  }),
});

export const service = k8sObject.extend({
  kind: z.literal('Service'),
  spec: z.looseObject({
    clusterIP: z.string().optional(),
    publishNotReadyAddresses: z.boolean().optional(),
    selector: stringMap,
    ports: z.array(z.looseObject({ name: z.string(), port: z.number(), targetPort: z.union([z.string(), z.number()]) })),
  }),
});

export const configMap = k8sObject.extend({ kind: z.literal('ConfigMap'), data: stringMap });

export const secret = k8sObject.extend({ kind: z.literal('Secret'), type: z.string(), stringData: stringMap });

export const serviceMonitor = k8sObject.extend({
  apiVersion: z.literal('monitoring.coreos.com/v1'),
  kind: z.literal('ServiceMonitor'),
  spec: z.looseObject({
    selector: z.looseObject({ matchLabels: stringMap }),
    namespaceSelector: z.looseObject({ matchNames: z.array(z.string()) }).optional(),
    endpoints: z.array(z.looseObject({ port: z.string(), path: z.string(), interval: z.string() })).min(1),
  }),
});

export const ruleGroups = z
  .array(
    z.looseObject({
      name: z.string(),
      rules: z
        .array(
          z.union([
            z.looseObject({ alert: z.string(), expr: z.union([z.string(), z.number()]) }),
            z.looseObject({ record: z.string(), expr: z.union([z.string(), z.number()]) }),
          ]),
        )
        .min(1),
    }),
  )
  .min(1);

export const prometheusRule = k8sObject.extend({
  apiVersion: z.literal('monitoring.coreos.com/v1'),
  kind: z.literal('PrometheusRule'),
  spec: z.looseObject({ groups: ruleGroups }),
});

export const kustomization = z.looseObject({
  apiVersion: z.literal('kustomize.config.k8s.io/v1beta1'),
  kind: z.literal('Kustomization'),
  namespace: z.string(),
  resources: z.array(z.string()),
  images: z.array(z.looseObject({ name: z.string(), newName: z.string().optional(), newTag: z.string().optional() })).optional(),
});

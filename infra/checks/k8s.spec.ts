// Static checks of the Kubernetes manifests (no cluster on these machines): the local overlay renders with
// kubectl's built-in kustomize, every built-in object validates against the Kubernetes schemas
// (kubernetes-models), and the deployment policies docs/deploy.md promises hold.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { localRealmImportPath, LOCAL_SHELL_ORIGIN, renderRealmImport } from '../k8s/realm-import.ts';
import { resolveRealmPlaceholders } from '../keycloak/realm-file.ts';
import { repoRoot as root } from '../lib/paths.ts';

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  env?: {
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
  }[];
  resources?: { requests?: object; limits?: object };
  securityContext?: {
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    runAsNonRoot?: boolean;
  };
  readinessProbe?: { httpGet?: { path: string } };
  livenessProbe?: { httpGet?: { path: string } };
}
interface PodSpec {
  securityContext?: { runAsNonRoot?: boolean };
  containers: Container[];
  initContainers?: Container[];
}

function kustomize(dir: string): K8sObject[] {
  const result = spawnSync('kubectl', ['kustomize', join(root, dir)], { encoding: 'utf8' });
  if (result.error) {
    throw new Error(
      `kubectl is needed to render ${dir} (kustomize is built into kubectl) and could not be run: ` +
        `${result.error.message}. Install kubectl (e.g. from the Kubernetes apt repository) and run the tests again.`,
    );
  }
  if (result.status !== 0) throw new Error(`kubectl kustomize ${dir} failed:\n${result.stderr}`);
  return parseAllDocuments(result.stdout).map((document) => document.toJSON() as K8sObject);
}

const objects = kustomize('infra/k8s/overlays/local');
const find = (kind: string, name: string) => {
  const object = objects.find((candidate) => candidate.kind === kind && candidate.metadata.name === name);
  if (!object) throw new Error(`${kind} ${name} is not in the rendered overlay`);
  return object;
};
const podSpecOf = (object: K8sObject): PodSpec | undefined =>
  (object.spec?.template as { spec?: PodSpec } | undefined)?.spec;
const workloads = objects.filter((object) => podSpecOf(object) !== undefined);
const containersOf = (object: K8sObject) => {
  const pod = podSpecOf(object)!;
  return [...pod.containers, ...(pod.initContainers ?? [])];
};

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values: string[] }[];
}
interface Peer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
}
interface Port {
  protocol: string;
  port: number | string;
}

/** Custom resources of the Keycloak Operator: no schema package exists for them, so they are checked by hand. */
const OPERATOR_GROUP = 'k8s.keycloak.org/';

describe('infra/k8s overlay local', () => {
  it('renders with kubectl kustomize and has every part docs/deploy.md lists', () => {
    const names = objects.map((object) => `${object.kind}/${object.metadata.name}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'Deployment/atrium-api',
        'Service/atrium-api',
        'PodDisruptionBudget/atrium-api',
        'HorizontalPodAutoscaler/atrium-api',
        'Job/atrium-db-bootstrap',
        'Job/atrium-migrate',
        'Job/atrium-publish-remotes',
        'StatefulSet/atrium-db',
        'StatefulSet/keycloak-db',
        'Keycloak/keycloak',
        'KeycloakRealmImport/atrium-realm',
        'Deployment/atrium-shell',
        'Deployment/atrium-release-store',
        'Ingress/atrium',
        'Ingress/keycloak',
      ]),
    );
  });

  it('validates every built-in object against the Kubernetes schemas', async () => {
    for (const object of objects) {
      if (object.apiVersion.startsWith(OPERATOR_GROUP)) continue;
      const module = (await import(`kubernetes-models/${object.apiVersion}`)) as Record<
        string,
        new (data: unknown) => { validate(): void }
      >;
      const Model = module[object.kind];
      expect(Model, `${object.apiVersion} ${object.kind} has a model`).toBeDefined();
      expect(() => new Model!(object).validate(), `${object.kind}/${object.metadata.name}`).not.toThrow();
    }
  });

  it('the validation has teeth: a wrong type or a missing required field is refused', async () => {
    // The Kubernetes schemas allow unknown fields (the API server prunes them), so those are not caught here.
    const { Deployment } = await import('kubernetes-models/apps/v1');
    const wrongType = structuredClone(find('Deployment', 'atrium-api')) as unknown as {
      spec: { replicas: unknown };
    };
    wrongType.spec.replicas = 'two';
    expect(() => new Deployment(wrongType as never).validate()).toThrow();
    const noSelector = structuredClone(find('Deployment', 'atrium-api')) as unknown as {
      spec: { selector?: object };
    };
    delete noSelector.spec.selector;
    expect(() => new Deployment(noSelector as never).validate()).toThrow();
  });

  it('runs the API as at least two replicas with probes on the health routes, a PDB and an HPA', () => {
    const api = find('Deployment', 'atrium-api');
    expect(api.spec?.replicas).toBeGreaterThanOrEqual(2);
    const [container] = podSpecOf(api)!.containers;
    expect(container?.readinessProbe?.httpGet?.path).toBe('/api/health/ready');
    expect(container?.livenessProbe?.httpGet?.path).toBe('/api/health/live');
    const hpa = find('HorizontalPodAutoscaler', 'atrium-api');
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec?.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec?.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: 'atrium-api' });
    const pdb = find('PodDisruptionBudget', 'atrium-api');
    expect(pdb.spec?.selector).toEqual({ matchLabels: { 'app.kubernetes.io/name': 'atrium-api' } });
  });

  it('gives every container resources, a non-root user and a read-only root file system', () => {
    for (const workload of workloads) {
      const pod = podSpecOf(workload)!;
      for (const container of containersOf(workload)) {
        const where = `${workload.kind}/${workload.metadata.name} ${container.name}`;
        expect(container.resources?.requests, where).toBeDefined();
        expect(container.resources?.limits, where).toBeDefined();
        expect(pod.securityContext?.runAsNonRoot ?? container.securityContext?.runAsNonRoot, where).toBe(
          true,
        );
        expect(container.securityContext?.readOnlyRootFilesystem, where).toBe(true);
        expect(container.securityContext?.allowPrivilegeEscalation, where).toBe(false);
      }
    }
  });

  it('pins every image (never latest)', () => {
    const images = workloads.flatMap((workload) =>
      containersOf(workload).map((container) => container.image),
    );
    images.push(String(find('Keycloak', 'keycloak').spec?.image));
    for (const image of images) expect(image).toMatch(/^[\w./-]+:(?!latest$)[\w.-]+$/);
  });

  it('takes secrets only from Secrets, by reference', () => {
    for (const workload of workloads) {
      for (const container of containersOf(workload)) {
        for (const variable of container.env ?? []) {
          if (/PASSWORD|SECRET|TOKEN|KEY/.test(variable.name)) {
            expect(variable.valueFrom?.secretKeyRef, `${container.name} ${variable.name}`).toBeDefined();
          }
          expect(variable.value ?? '', `${container.name} ${variable.name}`).not.toMatch(
            /:\/\/[^:/@]+:[^$][^@]*@/,
          );
        }
      }
    }
    const keycloak = find('Keycloak', 'keycloak').spec as {
      db: Record<string, unknown>;
      bootstrapAdmin: object;
    };
    expect(keycloak.db).toMatchObject({
      usernameSecret: { name: 'keycloak-db' },
      passwordSecret: { name: 'keycloak-db' },
    });
    expect(keycloak.db).not.toHaveProperty('password');
    expect(keycloak.bootstrapAdmin).toEqual({ user: { secret: 'keycloak-bootstrap-admin' } });
    const placeholders = (
      find('KeycloakRealmImport', 'atrium-realm').spec as {
        placeholders: Record<string, { secret: { name: string } }>;
      }
    ).placeholders;
    const referenced = new Set([
      ...workloads.flatMap((workload) =>
        containersOf(workload).flatMap((container) =>
          (container.env ?? []).flatMap((variable) => variable.valueFrom?.secretKeyRef?.name ?? []),
        ),
      ),
      'keycloak-db',
      'keycloak-bootstrap-admin',
      ...Object.values(placeholders).map((placeholder) => placeholder.secret.name),
    ]);
    const secrets = objects.filter((object) => object.kind === 'Secret');
    // Every Secret referenced exists (with every key asked for), and the overlay makes exactly the Secrets and
    // keys docs/deploy.md lists.
    for (const name of referenced)
      expect(
        secrets.map((secret) => secret.metadata.name),
        name,
      ).toContain(name);
    const deployDoc = readFileSync(join(root, 'docs/deploy.md'), 'utf8');
    const secretTable = deployDoc.slice(deployDoc.indexOf('| Secret ')).split('\n\n')[0] ?? '';
    const documented = [...secretTable.matchAll(/^\| `([\w-]+)` +\| ([^|]+)\|/gm)].flatMap(([, name, keys]) =>
      [...keys!.matchAll(/`([\w-]+)`/g)].map((key) => `${name}/${key[1]}`),
    );
    expect(documented.length).toBeGreaterThan(0);
    const generated = secrets.flatMap((secret) =>
      Object.keys(secret.data ?? {}).map((key) => `${secret.metadata.name}/${key}`),
    );
    expect(generated.sort()).toEqual(documented.sort());
    for (const workload of workloads) {
      for (const container of containersOf(workload)) {
        for (const variable of container.env ?? []) {
          const ref = variable.valueFrom?.secretKeyRef;
          if (ref)
            expect(generated, `${container.name} ${variable.name}`).toContain(`${ref.name}/${ref.key}`);
        }
      }
    }
  });

  it('requires every Secret it references: none is optional, so a missing one stops the pod', () => {
    for (const workload of workloads) {
      for (const container of containersOf(workload)) {
        for (const variable of container.env ?? []) {
          expect(
            variable.valueFrom?.secretKeyRef?.optional ?? false,
            `${container.name} ${variable.name}`,
          ).toBe(false);
        }
      }
    }
  });

  it("mounts the realm's login theme from a ConfigMap: every file of the theme, at its path, with its content", () => {
    const themeName = (
      JSON.parse(readFileSync(join(root, 'infra/keycloak/realm-atrium.json'), 'utf8')) as {
        loginTheme: string;
      }
    ).loginTheme;
    const themeDir = join(root, 'infra/keycloak/themes', themeName);
    const template = (
      find('Keycloak', 'keycloak').spec as {
        unsupported: {
          podTemplate: {
            spec: {
              containers: { volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[] }[];
              volumes: {
                name: string;
                configMap?: { name: string; items: { key: string; path: string }[] };
              }[];
            };
          };
        };
      }
    ).unsupported.podTemplate.spec;
    const mounts = template.containers.flatMap((container) => container.volumeMounts);
    const mount = mounts.find((candidate) => candidate.mountPath === `/opt/keycloak/themes/${themeName}`);
    expect(mount, 'theme mount').toBeDefined();
    expect(mount!.readOnly).toBe(true);
    const volume = template.volumes.find((candidate) => candidate.name === mount!.name);
    // The generated ConfigMap, by its hashed name (kustomizeconfig.yaml): a changed theme rolls the pods.
    const configMap = objects.find(
      (object) => object.kind === 'ConfigMap' && object.metadata.name === volume?.configMap?.name,
    );
    expect(configMap?.metadata.name).toMatch(/^atrium-keycloak-theme-\w+$/);
    const files = readdirSync(themeDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(themeDir, join(entry.parentPath, entry.name)))
      .sort();
    expect(files).toContain('login/theme.properties');
    const items = volume!.configMap!.items;
    expect(items.map((item) => item.path).sort()).toEqual(files);
    for (const item of items) {
      expect(configMap!.data?.[item.key], item.path).toBe(readFileSync(join(themeDir, item.path), 'utf8'));
    }
  });

  it('commits no Secret in the base: only the local overlay generates its development defaults', () => {
    expect(kustomize('infra/k8s/base').filter((object) => object.kind === 'Secret')).toEqual([]);
  });

  describe('NetworkPolicies', () => {
    const policies = objects.filter((object) => object.kind === 'NetworkPolicy') as (K8sObject & {
      spec: {
        podSelector: LabelSelector;
        policyTypes: string[];
        ingress?: { from?: Peer[]; ports?: Port[] }[];
        egress?: { to?: Peer[]; ports?: Port[] }[];
      };
    })[];
    /** Whether a selector picks a pod with these labels (matchLabels and `In` expressions, all we use). */
    const selects = (selector: LabelSelector, labels: Record<string, string>) =>
      Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value) &&
      (selector.matchExpressions ?? []).every(
        (expression) =>
          expression.operator === 'In' && expression.values.includes(labels[expression.key] ?? ''),
      );
    const describePeer = (peer: Peer) =>
      [
        peer.namespaceSelector ? `ns:${JSON.stringify(peer.namespaceSelector.matchLabels)}` : '',
        peer.podSelector ? `pod:${JSON.stringify(peer.podSelector.matchLabels)}` : '',
      ]
        .filter(Boolean)
        .join(' ');
    /** Every destination a pod with these labels may reach, as `peer -> protocol/port`. */
    const egressOf = (labels: Record<string, string>) =>
      policies
        .filter(
          (policy) => selects(policy.spec.podSelector, labels) && policy.spec.policyTypes.includes('Egress'),
        )
        .flatMap((policy) => policy.spec.egress ?? [])
        .flatMap((rule) =>
          (rule.to ?? [{}]).flatMap((peer) =>
            (rule.ports ?? [{ protocol: 'TCP', port: 'any' }]).map(
              (port) => `${describePeer(peer) || 'anywhere'} -> ${port.protocol}/${port.port}`,
            ),
          ),
        )
        .sort();
    const ingressFrom = (labels: Record<string, string>) =>
      policies
        .filter(
          (policy) => selects(policy.spec.podSelector, labels) && policy.spec.policyTypes.includes('Ingress'),
        )
        .flatMap((policy) => policy.spec.ingress ?? [])
        .flatMap((rule) => rule.from ?? []);
    const name = (value: string) => ({ 'app.kubernetes.io/name': value });
    const dns = [
      'ns:{"kubernetes.io/metadata.name":"kube-system"} pod:{"k8s-app":"kube-dns"} -> TCP/53',
      'ns:{"kubernetes.io/metadata.name":"kube-system"} pod:{"k8s-app":"kube-dns"} -> UDP/53',
    ];
    const to = (labels: object, port: number) => `pod:${JSON.stringify(labels)} -> TCP/${port}`;

    it('deny every ingress and every egress by default', () => {
      const defaultDeny = policies.filter(
        (policy) =>
          JSON.stringify(policy.spec.podSelector) === '{}' &&
          policy.spec.ingress === undefined &&
          policy.spec.egress === undefined,
      );
      expect(defaultDeny.flatMap((policy) => policy.spec.policyTypes).sort()).toEqual(['Egress', 'Ingress']);
      // No policy with rules applies to every pod.
      for (const policy of policies.filter((candidate) => candidate.spec.ingress || candidate.spec.egress)) {
        expect(JSON.stringify(policy.spec.podSelector), policy.metadata.name).not.toBe('{}');
      }
    });

    it("let the API reach only its database, Keycloak, the shell's manifest, DNS and a trace collector's OTLP/HTTP port in monitoring", () => {
      expect(egressOf(name('atrium-api'))).toEqual(
        [
          to(name('atrium-db'), 5432),
          to({ app: 'keycloak' }, 8080),
          to(name('atrium-shell'), 4000),
          'ns:{"kubernetes.io/metadata.name":"monitoring"} -> TCP/4318',
          ...dns,
        ].sort(),
      );
    });

    it('let Keycloak reach only its database, its own pods (cluster cache) and DNS', () => {
      expect(egressOf({ app: 'keycloak' })).toEqual(
        [
          to(name('keycloak-db'), 5432),
          to({ app: 'keycloak' }, 7800),
          to({ app: 'keycloak' }, 57800),
          ...dns,
        ].sort(),
      );
      expect(egressOf({ app: 'keycloak-realm-import' })).toEqual(
        [to(name('keycloak-db'), 5432), ...dns].sort(),
      );
    });

    it('let the shell, the release store and the databases reach nothing at all', () => {
      for (const quiet of ['atrium-shell', 'atrium-release-store', 'atrium-db', 'keycloak-db']) {
        expect(egressOf(name(quiet)), quiet).toEqual([]);
      }
    });

    it('let the one-shots reach only what they work on', () => {
      expect(egressOf(name('atrium-migrate'))).toEqual([to(name('atrium-db'), 5432), ...dns].sort());
      expect(egressOf(name('atrium-db-bootstrap'))).toEqual([to(name('atrium-db'), 5432), ...dns].sort());
      expect(egressOf(name('atrium-publish-remotes'))).toEqual(
        [to(name('atrium-api'), 3000), to({ app: 'keycloak' }, 8080), ...dns].sort(),
      );
    });

    it('give every workload of the overlay an egress policy that names it, or none (deny)', () => {
      for (const workload of workloads) {
        const labels = (workload.spec?.template as { metadata: { labels: Record<string, string> } }).metadata
          .labels;
        const allowed = egressOf(labels);
        expect(
          allowed.filter((line) => line.startsWith('anywhere')),
          workload.metadata.name,
        ).toEqual([]);
      }
    });

    it('let in: the API from the ingress controller and the publish Job, its metrics port from Prometheus; each database from its own clients; the shell from the ingress controller and the API (its manifest)', () => {
      expect(ingressFrom(name('atrium-api'))).toEqual([
        { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } },
        { podSelector: { matchLabels: name('atrium-publish-remotes') } },
        { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
      ]);
      const apiRules = policies
        .filter((policy) => selects(policy.spec.podSelector, name('atrium-api')))
        .flatMap((policy) => policy.spec.ingress ?? []) as Array<{ from?: unknown[]; ports?: unknown[] }>;
      // Prometheus reaches the metrics port only, the ingress controller the API port only.
      expect(apiRules.map((rule) => rule.ports)).toEqual([
        [{ protocol: 'TCP', port: 3000 }],
        [{ protocol: 'TCP', port: 9464 }],
      ]);
      expect(ingressFrom(name('atrium-db'))).toEqual([
        { podSelector: { matchLabels: name('atrium-api') } },
        { podSelector: { matchLabels: name('atrium-migrate') } },
        { podSelector: { matchLabels: name('atrium-db-bootstrap') } },
      ]);
      expect(ingressFrom(name('keycloak-db'))).toEqual([
        { podSelector: { matchLabels: { app: 'keycloak' } } },
        { podSelector: { matchLabels: { app: 'keycloak-realm-import' } } },
      ]);
      // The static servers: browsers through the ingress controller; the shell also the API, for its manifest.
      expect(ingressFrom(name('atrium-shell'))).toEqual([
        { podSelector: { matchLabels: name('atrium-api') } },
        { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } },
      ]);
      expect(ingressFrom(name('atrium-release-store'))).toEqual([
        { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } },
      ]);
    });
  });

  it('routes the shell and /api through an nginx Ingress on one host', () => {
    const ingress = find('Ingress', 'atrium').spec as {
      ingressClassName: string;
      rules: { host: string; http: { paths: { path: string; backend: { service: { name: string } } }[] } }[];
    };
    expect(ingress.ingressClassName).toBe('nginx');
    const shellHost = ingress.rules.find((rule) => `http://${rule.host}` === LOCAL_SHELL_ORIGIN);
    const routes = Object.fromEntries(
      shellHost!.http.paths.map((path) => [path.path, path.backend.service.name]),
    );
    expect(routes).toEqual({ '/api': 'atrium-api', '/': 'atrium-shell' });
  });

  it('routes only the atrium realm and static resources to Keycloak: no admin console, no master realm', () => {
    const keycloak = find('Keycloak', 'keycloak').spec as {
      ingress: { enabled: boolean };
      hostname: { hostname: string; admin?: string };
    };
    expect(keycloak.ingress.enabled).toBe(false);
    const publicHost = new URL(keycloak.hostname.hostname).host;
    // The admin console lives on another URL (port-forward), so Keycloak never links it on the public host.
    expect(new URL(keycloak.hostname.admin ?? keycloak.hostname.hostname).host).not.toBe(publicHost);
    const ingresses = objects.filter((object) => object.kind === 'Ingress') as unknown as {
      metadata: { name: string };
      spec: {
        rules: {
          host: string;
          http: { paths: { path: string; pathType: string; backend: { service: { name: string } } }[] };
        }[];
      };
    }[];
    const toKeycloak = ingresses.flatMap((ingress) =>
      ingress.spec.rules.flatMap((rule) =>
        rule.http.paths
          .filter((path) => path.backend.service.name === 'keycloak-service')
          .map((path) => ({ host: rule.host, ...path })),
      ),
    );
    expect(toKeycloak.map((route) => route.path).sort()).toEqual(['/realms/atrium', '/resources']);
    expect(new Set(toKeycloak.map((route) => route.host))).toEqual(new Set([publicHost]));
    /** Whether an Ingress Prefix path (element-wise, as Kubernetes defines it) would send `url` to Keycloak. */
    const routed = (url: string) =>
      toKeycloak.some(
        (route) => route.pathType === 'Prefix' && (url === route.path || url.startsWith(`${route.path}/`)),
      );
    for (const blocked of [
      '/admin',
      '/admin/master/console/',
      '/admin/realms/atrium/users',
      '/realms/master/protocol/openid-connect/token',
      '/realms/atrium-evil/protocol/openid-connect/token',
      '/metrics',
      '/health/ready',
    ]) {
      expect(routed(blocked), blocked).toBe(false);
    }
    for (const open of [
      '/realms/atrium/.well-known/openid-configuration',
      '/realms/atrium/protocol/openid-connect/auth',
      '/realms/atrium/protocol/openid-connect/certs',
      '/resources/abc12/login/keycloak.v2/css/styles.css',
    ]) {
      expect(routed(open), open).toBe(true);
    }
  });

  describe("the API's PostgreSQL role", () => {
    const bootstrap = find('Job', 'atrium-db-bootstrap');
    const [bootstrapContainer] = podSpecOf(bootstrap)!.containers;
    const command = bootstrapContainer!.command!;
    const appRole = command.find((arg) => arg.startsWith('app_role='))!.slice('app_role='.length);
    const envOf = (kind: string, name: string, variable: string) =>
      containersOf(find(kind, name))
        .flatMap((container) => container.env ?? [])
        .find((candidate) => candidate.name === variable);

    it('is created by a bootstrap Job from db-bootstrap.sql, before the migrations run', () => {
      expect(appRole).toBe('atrium');
      const script = objects.find(
        (object) => object.kind === 'ConfigMap' && object.metadata.name.startsWith('atrium-db-bootstrap'),
      );
      expect(script?.data?.['db-bootstrap.sql']).toBe(
        readFileSync(join(root, 'infra/postgres/db-bootstrap.sql'), 'utf8'),
      );
      expect(command).toContain('/bootstrap/db-bootstrap.sql');
      const wave = (object: K8sObject) =>
        Number(object.metadata.annotations?.['argocd.argoproj.io/sync-wave']);
      expect(wave(bootstrap)).toBeLessThan(wave(find('Job', 'atrium-migrate')));
      // The role's password reaches psql through the environment (\getenv), never its command line.
      expect(envOf('Job', 'atrium-db-bootstrap', 'ATRIUM_DB_PASSWORD')?.valueFrom?.secretKeyRef).toEqual({
        name: 'atrium-db',
        key: 'password',
      });
    });

    it('is what the API and the migrations log in as, into its own schema', () => {
      for (const [kind, name] of [
        ['Deployment', 'atrium-api'],
        ['Job', 'atrium-migrate'],
      ] as const) {
        const url = new URL(envOf(kind, name, 'DATABASE_URL')!.value!.replace('$(DB_PASSWORD)', 'x'));
        expect(url.username, name).toBe(appRole);
        expect(envOf(kind, name, 'DB_PASSWORD')?.valueFrom?.secretKeyRef).toEqual({
          name: 'atrium-db',
          key: 'password',
        });
        // MikroORM's schema option (read from MIKRO_ORM_SCHEMA): tables and the migrations table both there.
        expect(envOf(kind, name, 'MIKRO_ORM_SCHEMA')?.value, name).toBe(appRole);
      }
    });

    it('is not the superuser, whose password only the database and the bootstrap Job hold', () => {
      expect(envOf('StatefulSet', 'atrium-db', 'POSTGRES_USER')?.value).not.toBe(appRole);
      const holders = workloads
        .filter((workload) =>
          containersOf(workload).some((container) =>
            (container.env ?? []).some(
              (variable) => variable.valueFrom?.secretKeyRef?.key === 'postgres-password',
            ),
          ),
        )
        .map((workload) => workload.metadata.name)
        .sort();
      expect(holders).toEqual(['atrium-db', 'atrium-db-bootstrap']);
    });
  });

  it('agrees on one issuer: Keycloak hostname, API and shell configuration', () => {
    const hostname = (
      find('Keycloak', 'keycloak').spec as { hostname: { hostname: string; backchannelDynamic: boolean } }
    ).hostname;
    expect(hostname.backchannelDynamic).toBe(true);
    const config = (prefix: string) =>
      (
        objects.find(
          (object) => object.kind === 'ConfigMap' && object.metadata.name.startsWith(prefix),
        ) as unknown as {
          data: Record<string, string>;
        }
      ).data;
    expect(config('atrium-api-config').OIDC_ISSUER_URL).toBe(`${hostname.hostname}/realms/atrium`);
    expect(config('atrium-shell-config').ATRIUM_OIDC_AUTHORITY).toBe(`${hostname.hostname}/realms/atrium`);
    expect(config('atrium-api-config').ALLOWED_REMOTE_ORIGINS).toBe(
      config('atrium-publish-config').ATRIUM_RELEASE_STORE_URL,
    );
    expect(config('atrium-shell-config').ATRIUM_REMOTE_ORIGINS).toBe(
      config('atrium-publish-config').ATRIUM_RELEASE_STORE_URL,
    );
    // Releases are checked against the shell this deployment runs, through its Service.
    expect(config('atrium-api-config').SHELL_MANIFEST_URL).toBe('http://atrium-shell:4000/mf-manifest.json');
    // DPoP proofs name the URL the browser calls (htu): the API must know it as the shell does.
    expect(config('atrium-api-config').API_PUBLIC_URL).toBe(config('atrium-shell-config').ATRIUM_API_URL);
  });

  it('imports the realm file as it is, rendered for the overlay (run `node infra/k8s/realm-import.ts` when stale)', () => {
    const committed = parse(readFileSync(localRealmImportPath, 'utf8')) as unknown;
    expect(committed).toEqual(parse(renderRealmImport(LOCAL_SHELL_ORIGIN)));
    const realmImport = find('KeycloakRealmImport', 'atrium-realm').spec as {
      keycloakCRName: string;
      realm: { clients: { clientId: string; redirectUris?: string[] }[] };
    };
    expect(realmImport.keycloakCRName).toBe('keycloak');
    const shell = realmImport.realm.clients.find((client) => client.clientId === 'atrium-shell');
    expect(shell?.redirectUris?.every((uri) => uri.startsWith(LOCAL_SHELL_ORIGIN))).toBe(true);
  });

  it("imports no person into the cluster realm (no demo users), only the clients' service accounts", () => {
    const realm = (find('KeycloakRealmImport', 'atrium-realm').spec as { realm: { users: object[] } }).realm;
    expect(realm.users.length).toBeGreaterThan(0);
    for (const user of realm.users as {
      username: string;
      serviceAccountClientId?: string;
      credentials?: [];
    }[]) {
      expect(user.serviceAccountClientId, user.username).toBeDefined();
      expect(user.credentials, user.username).toBeUndefined();
    }
    expect(JSON.stringify(realm)).not.toMatch(/"(alice|ada)"/);
  });

  it("requires every administrator's second factor in the cluster realm (nothing sets it otherwise)", () => {
    const spec = find('KeycloakRealmImport', 'atrium-realm').spec as {
      placeholders: Record<string, unknown>;
      realm: object;
    };
    // As the import resolves it: the operator fills only the placeholders it maps, here none for this one.
    const realm = JSON.parse(resolveRealmPlaceholders(JSON.stringify(spec.realm), {})) as {
      authenticationFlows: {
        alias: string;
        authenticationExecutions: { flowAlias?: string; requirement: string }[];
      }[];
    };
    const adminStep = realm.authenticationFlows
      .find((flow) => flow.alias === 'atrium forms')
      ?.authenticationExecutions.find((step) => step.flowAlias === 'atrium admins second factor');
    expect(adminStep?.requirement).toBe('CONDITIONAL');
    expect(spec.placeholders).not.toHaveProperty('ATRIUM_ADMIN_SECOND_FACTOR');
  });

  it('fills every client secret from a Secret, with no development default to fall back on', () => {
    const spec = find('KeycloakRealmImport', 'atrium-realm').spec as {
      placeholders: Record<string, { secret: { name: string; key: string } }>;
      realm: object;
    };
    const text = JSON.stringify(spec.realm);
    const used = [...text.matchAll(/\$\{([A-Z0-9_]+)(:[^}]*)?\}/g)];
    const secrets = used.filter(([, name]) => name!.endsWith('_SECRET'));
    expect(secrets.length).toBeGreaterThan(0);
    for (const [whole, name, fallback] of secrets) {
      expect(fallback, whole).toBeUndefined();
      const secret = spec.placeholders[name!]?.secret;
      expect(secret, name).toBeDefined();
      expect(find('Secret', secret!.name).data?.[secret!.key], `${secret!.name}/${secret!.key}`).toBeTruthy();
    }
    // The realm file itself keeps its development defaults for `npm start`; the rendering removes them.
    expect(readFileSync(join(root, 'infra/keycloak/realm-atrium.json'), 'utf8')).toMatch(/_SECRET:[^}]+\}/);
  });
});

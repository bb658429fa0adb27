// Static checks of the Kubernetes manifests (no cluster on these machines): the local overlay renders with
// kubectl's built-in kustomize, every built-in object validates against the Kubernetes schemas
// (kubernetes-models), and the deployment policies docs/deploy.md promises hold.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { localRealmImportPath, LOCAL_SHELL_ORIGIN, renderRealmImport } from '../k8s/realm-import.ts';

const root = join(import.meta.dirname, '../..');

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
}
interface Container {
  name: string;
  image: string;
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
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
        'Job/atrium-migrate',
        'Job/atrium-publish-remotes',
        'StatefulSet/atrium-db',
        'StatefulSet/keycloak-db',
        'Keycloak/keycloak',
        'KeycloakRealmImport/atrium-realm',
        'Deployment/atrium-shell',
        'Deployment/atrium-release-store',
        'Ingress/atrium',
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
    const referenced = new Set([
      ...workloads.flatMap((workload) =>
        containersOf(workload).flatMap((container) =>
          (container.env ?? []).flatMap((variable) => variable.valueFrom?.secretKeyRef?.name ?? []),
        ),
      ),
      'keycloak-db',
      'keycloak-bootstrap-admin',
      // The realm import's placeholders (deployer secret, SMTP settings) come from Secrets too.
      ...Object.values(
        (
          find('KeycloakRealmImport', 'atrium-realm').spec as {
            placeholders: Record<string, { secret: { name: string } }>;
          }
        ).placeholders,
      ).map((placeholder) => placeholder.secret.name),
    ]);
    const secrets = objects
      .filter((object) => object.kind === 'Secret')
      .map((object) => object.metadata.name);
    expect(secrets.sort()).toEqual([...referenced].sort());
  });

  it('commits no Secret in the base: only the local overlay generates its development defaults', () => {
    expect(kustomize('infra/k8s/base').filter((object) => object.kind === 'Secret')).toEqual([]);
  });

  it('restricts traffic with NetworkPolicies: ingress to the API, API and migration to its database, Keycloak to its own', () => {
    const policies = objects.filter((object) => object.kind === 'NetworkPolicy');
    const ingressFrom = (selector: Record<string, string>) => {
      const policy = policies.find(
        (candidate) =>
          JSON.stringify((candidate.spec?.podSelector as { matchLabels?: object }).matchLabels) ===
          JSON.stringify(selector),
      );
      expect(policy, JSON.stringify(selector)).toBeDefined();
      return (policy!.spec?.ingress as { from: object[] }[]).flatMap((rule) => rule.from);
    };
    const defaultDeny = policies.find(
      (policy) => JSON.stringify(policy.spec?.podSelector) === '{}' && policy.spec?.ingress === undefined,
    );
    expect(defaultDeny, 'a default-deny ingress policy').toBeDefined();
    expect(ingressFrom({ 'app.kubernetes.io/name': 'atrium-api' })).toEqual([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } },
      { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'atrium-publish-remotes' } } },
    ]);
    expect(ingressFrom({ 'app.kubernetes.io/name': 'atrium-db' })).toEqual([
      { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'atrium-api' } } },
      { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'atrium-migrate' } } },
    ]);
    expect(ingressFrom({ 'app.kubernetes.io/name': 'keycloak-db' })).toEqual([
      { podSelector: { matchLabels: { app: 'keycloak' } } },
    ]);
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
});

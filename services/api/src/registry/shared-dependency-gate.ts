import { Inject, Injectable, Logger } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/core';
import { type AuditActor, AuditService } from '../audit/index.js';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import { CANARIES, type Canaries } from './canaries.js';
import { SharedDependencyConflictError, ShellManifestUnavailableError } from './registry.errors.js';
import { RemoteVersion } from './remote-version.entity.js';
import {
  type LiveBuild,
  type SharedDependency,
  sharedDependenciesOf,
  sharedDependencyConflicts,
} from './shared-dependencies.js';

/** How the gate names the shell in a refusal. */
const SHELL_LABEL = 'the shell';

/** The acts that put a release on people's pages, as a refusal's audit event names them. */
export type GatedAct = 'publish' | 'activate' | 'canary';

/** The most bytes of the shell's manifest read; it is a few kilobytes. */
const SHELL_MANIFEST_MAX_BYTES = 1024 * 1024;
const SHELL_MANIFEST_TIMEOUT_MS = 5_000;

/** A release to check: a remote's version and the packages its manifest shares (null: unknown, unchecked). */
export interface GatedRelease {
  readonly remote: string;
  readonly version: string;
  readonly shared: readonly SharedDependency[] | null;
}

/** Checks, inside a change's transaction, a release that change is about to put on pages (throws a refusal). */
export type ReleaseCheck = (em: EntityManager, release: GatedRelease) => Promise<void>;

/**
 * The shared-dependency gate (docs/adr/0013-shared-dependency-gate.md): a release is published, activated or
 * started as a canary only when its shared dependencies match the shell's (read from SHELL_MANIFEST_URL at each
 * check, so a shell deployed since counts at once) and the other live releases' (active versions and running
 * canaries). A refusal is audited (`remote.version.refused`) in a transaction of its own, since the refused
 * change rolls back.
 */
@Injectable()
export class SharedDependencyGate {
  private readonly logger = new Logger(SharedDependencyGate.name);

  constructor(
    private readonly em: EntityManager,
    private readonly audit: AuditService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CANARIES) private readonly canaries: Canaries,
  ) {}

  /**
   * Runs `change` (the transaction of a publish, activation or canary start) with `check`, which it calls
   * inside that transaction, the remote locked, on the release it is about to put on pages. A refusal thrown by
   * `check` is audited as `by`'s `act` once the change has rolled back.
   */
  async guard<T>(by: AuditActor, act: GatedAct, change: (check: ReleaseCheck) => Promise<T>): Promise<T> {
    try {
      return await change((em, release) => this.check(em, release));
    } catch (error) {
      if (error instanceof SharedDependencyConflictError) await this.recordRefusal(by, act, error);
      throw error;
    }
  }

  private async check(em: EntityManager, release: GatedRelease): Promise<void> {
    // Versions published without their manifest (before this gate) declare nothing that could be checked.
    if (release.shared === null || release.shared.length === 0) return;
    const label = `${release.remote} ${release.version}`;
    const conflicts = sharedDependencyConflicts(
      { label, remote: release.remote, shared: release.shared },
      await this.shell(),
      await liveReleases(em, this.canaries, release.remote),
    );
    if (conflicts.length > 0) {
      throw new SharedDependencyConflictError({ ...release, label }, conflicts);
    }
  }

  /** The shell as its deployed manifest declares it; null when SHELL_MANIFEST_URL is unset. */
  private async shell(): Promise<LiveBuild | null> {
    const url = this.config.shellManifestUrl;
    if (url === null) return null;
    let text: string;
    try {
      const response = await fetch(url, {
        redirect: 'error',
        signal: AbortSignal.timeout(SHELL_MANIFEST_TIMEOUT_MS),
      });
      if (!response.ok) throw new ShellManifestUnavailableError(url, `HTTP ${response.status}`);
      text = await response.text();
    } catch (error) {
      if (error instanceof ShellManifestUnavailableError) throw error;
      throw new ShellManifestUnavailableError(url, reasonOf(error), { cause: error });
    }
    if (Buffer.byteLength(text) > SHELL_MANIFEST_MAX_BYTES) {
      throw new ShellManifestUnavailableError(url, `larger than ${SHELL_MANIFEST_MAX_BYTES} bytes`);
    }
    let manifest: unknown;
    try {
      manifest = JSON.parse(text);
    } catch {
      throw new ShellManifestUnavailableError(url, 'not JSON');
    }
    const read = sharedDependenciesOf(manifest);
    if ('problem' in read) throw new ShellManifestUnavailableError(url, `its manifest ${read.problem}`);
    return { label: SHELL_LABEL, shared: read.dependencies };
  }

  private async recordRefusal(
    by: AuditActor,
    act: GatedAct,
    error: SharedDependencyConflictError,
  ): Promise<void> {
    const { remote, version } = error.release;
    try {
      await this.em.fork().transactional((em) => {
        this.audit.record(em, {
          actor: by.actor,
          actorName: by.name,
          action: 'remote.version.refused',
          target: `${remote}@${version}`,
          details: { remote, version, act, reason: error.message, conflicts: error.conflicts },
        });
        return Promise.resolve();
      });
    } catch (auditError) {
      // The caller still hears why it was refused; the log keeps what the audit log could not.
      this.logger.error(`could not audit the refusal of ${remote}@${version}: ${reasonOf(auditError)}`);
    }
  }
}

/**
 * The releases on people's pages now, except `remote`'s own (one page never holds two of a remote's versions):
 * each remote's active version and its running canary, as far as their shared dependencies are known.
 */
async function liveReleases(em: EntityManager, canaries: Canaries, remote: string): Promise<LiveBuild[]> {
  const running = (await canaries.running(em)).filter((canary) => canary.remote !== remote);
  const versions = await em.find(RemoteVersion, {
    remote: { $ne: remote },
    $or: [{ active: true }, ...running.map((canary) => ({ remote: canary.remote, version: canary.version }))],
  });
  return versions.flatMap((version) =>
    version.shared
      ? [
          {
            label: `${version.remote.name} ${version.version}`,
            remote: version.remote.name,
            shared: version.shared,
          },
        ]
      : [],
  );
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError') return `no answer within ${SHELL_MANIFEST_TIMEOUT_MS / 1000} s`;
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

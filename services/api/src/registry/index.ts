// The registry's public surface: other modules and the app import it from here, nothing else of registry/
// (.dependency-cruiser.cjs, api-module-public-file).
export { ActiveRemotes } from './active-remotes.js';
export * from './canaries.js';
export * from './registry.errors.js';
export { REGISTRY_ENTITIES, RegistryModule } from './registry.module.js';
export { assertMayDeploy, requireDeployRole } from './registry.roles.js';
export {
  remoteNameParamSchema,
  remoteNameSchema,
  roleListSchema,
  versionSchema,
} from './registry.schemas.js';
export { RegistryService, type ServedToPerson } from './registry.service.js';
export { RemoteVersion } from './remote-version.entity.js';
export { Remote } from './remote.entity.js';
export { SharedDependencyGate } from './shared-dependency-gate.js';
export { assertServable, lockRemote, makeActive } from './version-switch.js';

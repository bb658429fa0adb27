// The profile module's public surface: the app imports it from here, nothing else of me/
// (.dependency-cruiser.cjs, api-module-public-file).
export { ME_ENTITIES, MeModule } from './me.module.js';
export { UserProfile } from './user-profile.entity.js';

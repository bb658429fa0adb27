import { UserProfile } from '../me/user-profile.entity.js';

/** Every entity the ORM knows; migrations are generated from this list. */
export const ENTITIES = [UserProfile];

import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC_KEY = 'atrium:isPublic';

/** Marks a route or controller as reachable without an access token; everything else needs one. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC_KEY, true);

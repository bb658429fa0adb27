import { Body, Controller, Get, Param, Post, Put, UseInterceptors } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedUser } from '../auth/access-token.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { Roles } from '../auth/roles.decorator.js';
import { ApiAuthenticated, ApiDocument } from '../common/openapi/api-docs.decorators.js';
import {
  type ActivateVersion,
  activateVersionSchema,
  adminRemoteListSchema,
  type PublishVersion,
  publishResultSchema,
  publishVersionSchema,
  remoteDetailSchema,
  remoteListSchema,
  remoteNameParamSchema,
  versionHistorySchema,
} from './registry.schemas.js';
import { type RemoteDetail, type RemoteEntry, RegistryService, type VersionDoc } from './registry.service.js';
import { RequestContextInterceptor } from '../database/request-context.interceptor.js';

/** Role that may publish versions (the deployment pipeline's service account). */
export const PUBLISHER_ROLE = 'remote-publisher';
/** Role that may activate versions and read the registry's history. */
export const ADMIN_ROLE = 'atrium-admin';

const nameParam = { schema: remoteNameParamSchema };

@ApiTags('registry')
@Controller()
@UseInterceptors(RequestContextInterceptor)
export class RegistryController {
  constructor(private readonly registry: RegistryService) {}

  @Get('remotes')
  @ApiOperation({ summary: 'The remotes the caller may use, with their active version, in navigation order' })
  @ApiAuthenticated()
  @ApiDocument(200, remoteListSchema, 'remotes the caller may load')
  async list(@CurrentUser() user: AuthenticatedUser): Promise<{ remotes: RemoteEntry[] }> {
    return { remotes: await this.registry.listForUser(user) };
  }

  @Post('remotes/:name/versions')
  @Roles(PUBLISHER_ROLE)
  @ApiOperation({ summary: 'Publish a version (creates the remote on first publish)' })
  @ApiAuthenticated(
    'validation_failed',
    'invalid_token',
    'insufficient_scope',
    'version_exists',
    'path_in_use',
  )
  @ApiDocument(201, publishResultSchema, 'the version was registered')
  publish(
    @CurrentUser() user: AuthenticatedUser,
    @Param('name', nameParam) name: string,
    @Body({ schema: publishVersionSchema }) body: PublishVersion,
  ): Promise<{ remote: RemoteDetail; version: VersionDoc }> {
    return this.registry.publish(user, name, body);
  }

  @Put('remotes/:name/active')
  @Roles(ADMIN_ROLE)
  @ApiOperation({ summary: 'Make a version active (rollback = activate an older one)' })
  @ApiAuthenticated(
    'validation_failed',
    'invalid_token',
    'insufficient_scope',
    'remote_not_found',
    'version_not_found',
    'version_unverifiable',
  )
  @ApiDocument(200, remoteDetailSchema, 'the remote with its new active version')
  activate(
    @CurrentUser() user: AuthenticatedUser,
    @Param('name', nameParam) name: string,
    @Body({ schema: activateVersionSchema }) body: ActivateVersion,
  ): Promise<RemoteDetail> {
    return this.registry.activate(user, name, body);
  }

  @Get('remotes/:name/versions')
  @Roles(ADMIN_ROLE)
  @ApiOperation({ summary: "A remote's versions, newest first" })
  @ApiAuthenticated('validation_failed', 'invalid_token', 'insufficient_scope', 'remote_not_found')
  @ApiDocument(200, versionHistorySchema, 'the remote and its versions')
  history(@Param('name', nameParam) name: string): Promise<{ remote: RemoteDetail; versions: VersionDoc[] }> {
    return this.registry.history(name);
  }

  @Get('admin/remotes')
  @Roles(ADMIN_ROLE)
  @ApiOperation({ summary: 'Every remote with all its versions, for the admin console' })
  @ApiAuthenticated('invalid_token', 'insufficient_scope')
  @ApiDocument(200, adminRemoteListSchema, 'every remote')
  async listAll(): Promise<{ remotes: Array<RemoteDetail & { versions: VersionDoc[] }> }> {
    return { remotes: await this.registry.listAll() };
  }
}

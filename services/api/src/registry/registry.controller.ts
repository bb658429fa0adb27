import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Put,
  Req,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ADMIN_ROLE, type AuthenticatedUser, CurrentUser, PUBLISHER_ROLE, Roles } from '../auth/index.js';
import { RequestContextInterceptor } from '../database/index.js';
import { ApiAuthenticated, ApiDocument } from '../common/openapi/api-docs.decorators.js';
import {
  type ActivateVersion,
  activateVersionSchema,
  adminRemoteListSchema,
  type CreateRemote,
  createRemoteSchema,
  type PublishVersion,
  publishResultSchema,
  publishVersionSchema,
  remoteDetailSchema,
  remoteListSchema,
  remoteNameParamSchema,
  type UpdateRemote,
  updateRemoteSchema,
  versionDocSchema,
  versionHistorySchema,
  versionParamSchema,
  type WithdrawVersion,
  withdrawVersionSchema,
} from './registry.schemas.js';
import {
  type PulledRelease,
  type RemoteDetail,
  type RemoteEntry,
  RegistryService,
  type VersionDoc,
} from './registry.service.js';

const nameParam = { schema: remoteNameParamSchema };

/** Whether an If-None-Match header names `etag` (RFC 9110 §13.1.2: weak comparison, `*`, lists). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

@ApiTags('registry')
// RequestContextInterceptor on every route but the list: it reads the replica's copy of the registry
// (ActiveRemotes, which forks its own EntityManager to load it) and needs no EntityManager of its own.
@Controller()
export class RegistryController {
  constructor(private readonly registry: RegistryService) {}

  @Get('remotes')
  @ApiOperation({
    summary: 'The remotes the caller may use, with their active version, in navigation order',
    description:
      'Answers carry an ETag; a request with a matching If-None-Match gets 304 Not Modified and no body.',
  })
  @ApiAuthenticated()
  @ApiDocument(200, remoteListSchema, 'remotes the caller may load')
  @ApiResponse({
    status: 304,
    description: 'unchanged since the answer whose ETag was sent in If-None-Match',
  })
  async list(
    @CurrentUser() user: AuthenticatedUser,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ remotes: RemoteEntry[]; withdrawn: PulledRelease[] } | undefined> {
    const { remotes, withdrawn, etag } = await this.registry.listForUser(user);
    // Private: the answer depends on who asks. no-cache: a browser revalidates it before each use.
    void reply.header('ETag', etag).header('Cache-Control', 'private, no-cache');
    if (matchesEtag(request.headers['if-none-match'], etag)) {
      void reply.status(304);
      return undefined;
    }
    return { remotes, withdrawn };
  }

  @Post('remotes')
  @UseInterceptors(RequestContextInterceptor)
  @Roles(ADMIN_ROLE)
  @ApiOperation({
    summary: 'Create a remote with its settings and owning deployer (administrators); it has no version yet',
  })
  @ApiAuthenticated(
    'validation_failed',
    'invalid_token',
    'insufficient_scope',
    'remote_exists',
    'path_in_use',
  )
  @ApiDocument(201, remoteDetailSchema, 'the remote was created')
  create(
    @CurrentUser() user: AuthenticatedUser,
    @Body({ schema: createRemoteSchema }) body: CreateRemote,
  ): Promise<RemoteDetail> {
    return this.registry.create(user, body);
  }

  @Patch('remotes/:name')
  @UseInterceptors(RequestContextInterceptor)
  @Roles(ADMIN_ROLE)
  @ApiOperation({
    summary: "Change a remote's title, path, navigation order, required roles or owner (administrators)",
  })
  @ApiAuthenticated(
    'validation_failed',
    'invalid_token',
    'insufficient_scope',
    'not_remote_owner',
    'remote_not_found',
    'path_in_use',
  )
  @ApiDocument(200, remoteDetailSchema, 'the remote with its new settings')
  update(
    @CurrentUser() user: AuthenticatedUser,
    @Param('name', nameParam) name: string,
    @Body({ schema: updateRemoteSchema }) body: UpdateRemote,
  ): Promise<RemoteDetail> {
    return this.registry.update(user, name, body);
  }

  @Post('remotes/:name/versions')
  @UseInterceptors(RequestContextInterceptor)
  @Roles(PUBLISHER_ROLE)
  @ApiOperation({
    summary: 'Publish a version of an existing remote (its owning deployer only)',
  })
  @ApiAuthenticated(
    'validation_failed',
    'remote_origin_refused',
    'invalid_token',
    'insufficient_scope',
    'not_remote_owner',
    'remote_not_found',
    'version_exists',
    'shared_dependency_conflict',
    'shell_manifest_unavailable',
  )
  @ApiDocument(201, publishResultSchema, 'the version was registered')
  publish(
    @CurrentUser() user: AuthenticatedUser,
    @Param('name', nameParam) name: string,
    @Body({ schema: publishVersionSchema }) body: PublishVersion,
  ): Promise<{ remote: RemoteDetail; version: VersionDoc }> {
    return this.registry.publish(user, name, body);
  }

  // No @Roles: administrators or the remote's owning deployer, which only the service can tell.
  @Put('remotes/:name/active')
  @UseInterceptors(RequestContextInterceptor)
  @ApiOperation({
    summary:
      'Make a version active, rollback = activate an older one (administrators, or the owning deployer)',
  })
  @ApiAuthenticated(
    'validation_failed',
    'invalid_token',
    'insufficient_scope',
    'not_remote_owner',
    'remote_not_found',
    'version_not_found',
    'version_unverifiable',
    'version_withdrawn',
    'shared_dependency_conflict',
    'shell_manifest_unavailable',
  )
  @ApiDocument(200, remoteDetailSchema, 'the remote with its new active version')
  activate(
    @CurrentUser() user: AuthenticatedUser,
    @Param('name', nameParam) name: string,
    @Body({ schema: activateVersionSchema }) body: ActivateVersion,
  ): Promise<RemoteDetail> {
    return this.registry.activate(user, name, body);
  }

  @Post('remotes/:name/versions/:version/withdrawal')
  @UseInterceptors(RequestContextInterceptor)
  @Roles(ADMIN_ROLE)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Withdraw a version (administrators): never served again, dropped by open pages',
    description:
      'Only a version nobody is served can be withdrawn: activate another version, or abort its canary, first. ' +
      'Withdrawing a withdrawn version changes nothing.',
  })
  @ApiAuthenticated(
    'validation_failed',
    'invalid_token',
    'insufficient_scope',
    'remote_not_found',
    'version_not_found',
    'version_in_use',
  )
  @ApiDocument(200, versionDocSchema, 'the version, withdrawn')
  withdraw(
    @CurrentUser() user: AuthenticatedUser,
    @Param('name', nameParam) name: string,
    @Param('version', { schema: versionParamSchema }) version: string,
    @Body({ schema: withdrawVersionSchema }) body: WithdrawVersion,
  ): Promise<VersionDoc> {
    return this.registry.withdraw(user, name, version, body.reason);
  }

  // No @Roles: administrators or the remote's owning deployer (the release CLI reads the active version).
  @Get('remotes/:name/versions')
  @UseInterceptors(RequestContextInterceptor)
  @ApiOperation({
    summary: "A remote's versions, newest first (administrators, or the owning deployer)",
  })
  @ApiAuthenticated(
    'validation_failed',
    'invalid_token',
    'insufficient_scope',
    'not_remote_owner',
    'remote_not_found',
  )
  @ApiDocument(200, versionHistorySchema, 'the remote and its versions')
  history(
    @CurrentUser() user: AuthenticatedUser,
    @Param('name', nameParam) name: string,
  ): Promise<{ remote: RemoteDetail; versions: VersionDoc[] }> {
    return this.registry.history(user, name);
  }

  @Get('admin/remotes')
  @UseInterceptors(RequestContextInterceptor)
  @Roles(ADMIN_ROLE)
  @ApiOperation({ summary: 'Every remote with all its versions, for the admin console' })
  @ApiAuthenticated('invalid_token', 'insufficient_scope')
  @ApiDocument(200, adminRemoteListSchema, 'every remote')
  async listAll(): Promise<{ remotes: Array<RemoteDetail & { versions: VersionDoc[] }> }> {
    return { remotes: await this.registry.listAll() };
  }
}

import { Body, Controller, Get, Param, Patch, Post, UseInterceptors } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthenticatedUser, CurrentUser } from '../auth/index.js';
import { ApiAuthenticated, ApiDocument } from '../common/openapi/api-docs.decorators.js';
import { RequestContextInterceptor } from '../database/index.js';
import { remoteNameParamSchema } from '../registry/index.js';
import {
  type AbortRollout,
  abortRolloutSchema,
  type ChangeRollout,
  changeRolloutSchema,
  type RolloutDoc,
  rolloutDocSchema,
  rolloutStateSchema,
  type StartRollout,
  startRolloutSchema,
} from './rollout.schemas.js';
import { RolloutService } from './rollout.service.js';

const nameParam = { schema: remoteNameParamSchema };
// Every step: administrators, or the remote's owning deployer (which only the service can tell).
const STEP_ERRORS = [
  'validation_failed',
  'invalid_token',
  'insufficient_scope',
  'not_remote_owner',
  'remote_not_found',
] as const;

@ApiTags('registry')
@Controller('remotes/:name/rollout')
@UseInterceptors(RequestContextInterceptor)
export class RolloutController {
  constructor(private readonly rollouts: RolloutService) {}

  @Get()
  @ApiOperation({
    summary: "A remote's latest canary, running or ended (administrators, or the owning deployer)",
  })
  @ApiAuthenticated(...STEP_ERRORS)
  @ApiDocument(200, rolloutStateSchema, 'the latest canary, or null')
  async get(
    @CurrentUser() user: AuthenticatedUser,
    @Param('name', nameParam) name: string,
  ): Promise<{ rollout: RolloutDoc | null }> {
    return { rollout: await this.rollouts.get(user, name) };
  }

  @Post()
  @ApiOperation({
    summary:
      'Start a canary: serve a published version to a share of people and/or role holders (administrators, or the owning deployer; a deployer may name only roles the remote requires)',
  })
  @ApiAuthenticated(
    ...STEP_ERRORS,
    'canary_audience_refused',
    'version_not_found',
    'version_unverifiable',
    'version_withdrawn',
    'no_stable_version',
    'rollout_in_progress',
    'shared_dependency_conflict',
    'shell_manifest_unavailable',
  )
  @ApiDocument(201, rolloutDocSchema, 'the canary is running')
  start(
    @CurrentUser() user: AuthenticatedUser,
    @Param('name', nameParam) name: string,
    @Body({ schema: startRolloutSchema }) body: StartRollout,
  ): Promise<RolloutDoc> {
    return this.rollouts.start(user, name, body);
  }

  @Patch()
  @ApiOperation({
    summary:
      "Widen or narrow the running canary's share or roles (a deployer may name only roles the remote requires)",
  })
  @ApiAuthenticated(...STEP_ERRORS, 'canary_audience_refused', 'no_rollout')
  @ApiDocument(200, rolloutDocSchema, 'the canary with its new audience')
  change(
    @CurrentUser() user: AuthenticatedUser,
    @Param('name', nameParam) name: string,
    @Body({ schema: changeRolloutSchema }) body: ChangeRollout,
  ): Promise<RolloutDoc> {
    return this.rollouts.change(user, name, body);
  }

  @Post('promote')
  @ApiOperation({ summary: "Promote the running canary: it becomes the remote's active version" })
  @ApiAuthenticated(...STEP_ERRORS, 'no_rollout')
  @ApiDocument(200, rolloutDocSchema, 'the canary, promoted')
  promote(
    @CurrentUser() user: AuthenticatedUser,
    @Param('name', nameParam) name: string,
  ): Promise<RolloutDoc> {
    return this.rollouts.promote(user, name);
  }

  @Post('abort')
  @ApiOperation({ summary: 'Abort the running canary: everybody gets the active version again' })
  @ApiAuthenticated(...STEP_ERRORS, 'no_rollout')
  @ApiDocument(200, rolloutDocSchema, 'the canary, aborted')
  abort(
    @CurrentUser() user: AuthenticatedUser,
    @Param('name', nameParam) name: string,
    @Body({ schema: abortRolloutSchema }) body: AbortRollout,
  ): Promise<RolloutDoc> {
    return this.rollouts.abort(user, name, body);
  }
}

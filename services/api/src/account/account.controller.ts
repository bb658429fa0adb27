import { Body, Controller, Get, Post, UseInterceptors } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedUser } from '../auth/access-token.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { ApiAuthenticated, ApiDocument } from '../common/openapi/api-docs.decorators.js';
import { RequestContextInterceptor } from '../database/request-context.interceptor.js';
import {
  type AccountActivity,
  accountActivitySchema,
  type AccountCredentials,
  accountCredentialsSchema,
  type AccountDeletionRequest,
  accountDeletionSchema,
  type AccountSessions,
  accountSessionsSchema,
  signedOutSchema,
  type SignedOutSessions,
} from './account.schemas.js';
import { AccountService } from './account.service.js';
import { z } from 'zod';

/**
 * The caller's own account at Keycloak. No route takes a user id: the account is the verified token's
 * `sub`, and only a person's token from SHELL_CLIENTS (the shell) is accepted.
 */
@ApiTags('account')
@Controller('account')
@UseInterceptors(RequestContextInterceptor)
export class AccountController {
  constructor(private readonly account: AccountService) {}

  @Get('sessions')
  @ApiOperation({ summary: "The caller's sign-in sessions (devices) at Keycloak, most recently used first" })
  @ApiAuthenticated('invalid_token', 'personal_session_required', 'identity_admin_unavailable')
  @ApiDocument(200, accountSessionsSchema, "the caller's sessions")
  sessions(@CurrentUser() user: AuthenticatedUser): Promise<AccountSessions> {
    return this.account.sessions(user);
  }

  @Post('sessions/sign-out-others')
  @ApiOperation({ summary: "Ends every session of the caller except the token's own" })
  @ApiAuthenticated('invalid_token', 'personal_session_required', 'identity_admin_unavailable')
  @ApiDocument(200, signedOutSchema, 'how many sessions were ended')
  signOutOthers(@CurrentUser() user: AuthenticatedUser): Promise<SignedOutSessions> {
    return this.account.signOutOthers(user);
  }

  @Get('credentials')
  @ApiOperation({
    summary:
      "The caller's sign-in methods at Keycloak (password, authenticator apps, passkeys): id, type, label, date",
  })
  @ApiAuthenticated('invalid_token', 'personal_session_required', 'identity_admin_unavailable')
  @ApiDocument(200, accountCredentialsSchema, "the caller's sign-in methods, without secrets")
  credentials(@CurrentUser() user: AuthenticatedUser): Promise<AccountCredentials> {
    return this.account.credentials(user);
  }

  @Get('activity')
  @ApiOperation({ summary: "The caller's recent security events from Keycloak, newest first" })
  @ApiAuthenticated('invalid_token', 'personal_session_required', 'identity_admin_unavailable')
  @ApiDocument(200, accountActivitySchema, "the caller's security activity")
  activity(@CurrentUser() user: AuthenticatedUser): Promise<AccountActivity> {
    return this.account.activity(user);
  }

  @Post('deletion')
  @ApiOperation({
    summary:
      "Deletes the caller's account (Keycloak user, profile, preferences) once `confirmation` equals their username",
  })
  @ApiAuthenticated(
    'invalid_token',
    'validation_failed',
    'personal_session_required',
    'identity_admin_unavailable',
  )
  @ApiDocument(204, z.null(), 'the account is deleted; sign out')
  async deleteAccount(
    @CurrentUser() user: AuthenticatedUser,
    @Body({ schema: accountDeletionSchema }) body: AccountDeletionRequest,
  ): Promise<void> {
    await this.account.deleteAccount(user, body.confirmation);
  }
}

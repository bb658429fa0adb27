import { Body, Controller, Get, Post, UseInterceptors } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthenticatedUser, CurrentUser } from '../auth/index.js';
import { RequestContextInterceptor } from '../database/index.js';
import { ApiAuthenticated, ApiDocument } from '../common/openapi/api-docs.decorators.js';
import {
  type AccountAccessGrant,
  accountAccessGrantSchema,
  type AccountAccessRedirect,
  accountAccessRedirectSchema,
  type AccountAccessRequest,
  accountAccessRequestSchema,
  type AccountActivity,
  accountActivitySchema,
  type AccountCredentials,
  accountCredentialsSchema,
  type AccountSessions,
  accountSessionsSchema,
  signedOutSchema,
  type SignedOutSessions,
} from './account.schemas.js';
import { AccountService } from './account.service.js';
import { z } from 'zod';

/**
 * The caller's own account at Keycloak. No route takes a user id: the account is the verified token's
 * `sub`, and only a person's token from SHELL_CLIENTS (the shell) is accepted. Sessions and sign-in methods
 * need the person's permission at Keycloak first (`access-request`, then `access`), which their Keycloak
 * session gives without a page; deleting the account is Keycloak's own action (kc_action=delete_account).
 */
@ApiTags('account')
@Controller('account')
@UseInterceptors(RequestContextInterceptor)
export class AccountController {
  constructor(private readonly account: AccountService) {}

  @Post('access-request')
  @ApiOperation({
    summary:
      "Starts the caller's permission for the API to act on their account at Keycloak: the authorization request for their browser to open",
  })
  @ApiAuthenticated(
    'invalid_token',
    'validation_failed',
    'personal_session_required',
    'account_access_required',
  )
  @ApiDocument(200, accountAccessRedirectSchema, 'where to send the browser')
  requestAccess(
    @CurrentUser() user: AuthenticatedUser,
    @Body({ schema: accountAccessRequestSchema }) body: AccountAccessRequest,
  ): AccountAccessRedirect {
    return this.account.requestAccess(user, body.redirectUri);
  }

  @Post('access')
  @ApiOperation({
    summary:
      "Completes it with Keycloak's answer (code and state), as it reached the shell's page; kept for the caller's session",
  })
  @ApiAuthenticated(
    'invalid_token',
    'validation_failed',
    'personal_session_required',
    'account_access_required',
    'identity_admin_unavailable',
  )
  @ApiDocument(204, z.null(), "the API may now act on the caller's account in this session")
  async grantAccess(
    @CurrentUser() user: AuthenticatedUser,
    @Body({ schema: accountAccessGrantSchema }) body: AccountAccessGrant,
  ): Promise<void> {
    await this.account.grantAccess(user, body.code, body.state);
  }

  @Get('sessions')
  @ApiOperation({ summary: "The caller's sign-in sessions (devices) at Keycloak, most recently used first" })
  @ApiAuthenticated(
    'invalid_token',
    'personal_session_required',
    'account_access_required',
    'identity_admin_unavailable',
  )
  @ApiDocument(200, accountSessionsSchema, "the caller's sessions")
  sessions(@CurrentUser() user: AuthenticatedUser): Promise<AccountSessions> {
    return this.account.sessions(user);
  }

  @Post('sessions/sign-out-others')
  @ApiOperation({ summary: "Ends every session of the caller except the token's own" })
  @ApiAuthenticated(
    'invalid_token',
    'personal_session_required',
    'account_access_required',
    'identity_admin_unavailable',
  )
  @ApiDocument(200, signedOutSchema, 'how many sessions were ended')
  signOutOthers(@CurrentUser() user: AuthenticatedUser): Promise<SignedOutSessions> {
    return this.account.signOutOthers(user);
  }

  @Get('credentials')
  @ApiOperation({
    summary:
      "The caller's sign-in methods at Keycloak (password, authenticator apps, passkeys): id, type, label, date",
  })
  @ApiAuthenticated(
    'invalid_token',
    'personal_session_required',
    'account_access_required',
    'identity_admin_unavailable',
  )
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
}

import { Body, Controller, Get, Put, UseInterceptors } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthenticatedUser, CurrentUser } from '../auth/index.js';
import { RequestContextInterceptor } from '../database/index.js';
import { ApiAuthenticated, ApiDocument } from '../common/openapi/api-docs.decorators.js';
import { type MeDocument, MeService } from './me.service.js';
import { meDocumentSchema, type Preferences, preferencesSchema } from './preferences.schema.js';

@ApiTags('me')
@Controller('me')
export class MeController {
  constructor(private readonly me: MeService) {}

  @Get()
  @ApiOperation({ summary: 'The caller: identity from the token, preferences from the database' })
  // account_deleted: a token that outlives its account may not create the profile again.
  @ApiAuthenticated('invalid_token', 'account_deleted')
  @ApiDocument(200, meDocumentSchema, 'the caller')
  getMe(@CurrentUser() user: AuthenticatedUser): Promise<MeDocument> {
    return this.me.getMe(user);
  }

  @Put('preferences')
  // Only here: getMe's steady path needs no EntityManager of its own, and forks one for its rare write.
  @UseInterceptors(RequestContextInterceptor)
  @ApiOperation({ summary: "Replace the caller's preferences" })
  @ApiAuthenticated('invalid_token', 'account_deleted', 'validation_failed')
  @ApiDocument(200, meDocumentSchema, 'the caller with the new preferences')
  updatePreferences(
    @CurrentUser() user: AuthenticatedUser,
    @Body({ schema: preferencesSchema }) body: Preferences,
  ): Promise<MeDocument> {
    return this.me.updatePreferences(user, body);
  }
}

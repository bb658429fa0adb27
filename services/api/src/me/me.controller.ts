import { Body, Controller, Get, Put } from '@nestjs/common';
import type { AuthenticatedUser } from '../auth/access-token.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { type MeDocument, MeService } from './me.service.js';
import { parseBody, preferencesSchema } from './preferences.schema.js';

@Controller('me')
export class MeController {
  constructor(private readonly me: MeService) {}

  @Get()
  getMe(@CurrentUser() user: AuthenticatedUser): Promise<MeDocument> {
    return this.me.getMe(user);
  }

  @Put('preferences')
  updatePreferences(@CurrentUser() user: AuthenticatedUser, @Body() body: unknown): Promise<MeDocument> {
    return this.me.updatePreferences(user, parseBody(preferencesSchema, body));
  }
}

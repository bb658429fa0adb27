import { Module } from '@nestjs/common';
import { AccountModule } from '../account/account.module.js';
import { MeController } from './me.controller.js';
import { MeService } from './me.service.js';

@Module({ imports: [AccountModule], controllers: [MeController], providers: [MeService] })
export class MeModule {}

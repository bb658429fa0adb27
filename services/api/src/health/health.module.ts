import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/index.js';
import { HealthController } from './health.controller.js';

@Module({ imports: [AuthModule], controllers: [HealthController] })
export class HealthModule {}

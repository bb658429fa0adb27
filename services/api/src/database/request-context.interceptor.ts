import { MikroORM, RequestContext } from '@mikro-orm/core';
import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { Observable } from 'rxjs';

/**
 * Runs a route's pipes and handler inside a MikroORM RequestContext, so the injected EntityManager is a
 * fresh fork per request. Applied with `@UseInterceptors` to the controllers that use the database only:
 * as Nest middleware it would pull @fastify/middie into every request, liveness and docs included.
 */
@Injectable()
export class RequestContextInterceptor implements NestInterceptor {
  constructor(private readonly orm: MikroORM) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    // Subscribing inside the context starts the handler there; its awaits keep the context.
    return new Observable((subscriber) =>
      RequestContext.create(this.orm.em, () => next.handle().subscribe(subscriber)),
    );
  }
}

import type { ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';

/**
 * One metadata key of the route a request reached (the handler's value, else its controller's, as
 * `Reflector.getAllAndOverride`), read once per route instead of on every request: the global guards ask
 * on every request, and routes never change their metadata after start-up.
 */
export class RouteMetadata<T> {
  // Keyed by controller, then handler: an inherited handler may sit under controllers that differ.
  private readonly routes = new WeakMap<object, Map<object, T | undefined>>();

  constructor(
    private readonly reflector: Reflector,
    private readonly key: string,
  ) {}

  of(context: ExecutionContext): T | undefined {
    const controller = context.getClass();
    const handler = context.getHandler();
    let handlers = this.routes.get(controller);
    if (!handlers) {
      handlers = new Map();
      this.routes.set(controller, handlers);
    }
    if (!handlers.has(handler)) {
      handlers.set(handler, this.reflector.getAllAndOverride<T | undefined>(this.key, [handler, controller]));
    }
    return handlers.get(handler);
  }
}

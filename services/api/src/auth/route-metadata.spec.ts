import { Controller, Get, SetMetadata } from '@nestjs/common';
import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { describe, expect, it, vi } from 'vitest';
import { RouteMetadata } from './route-metadata.js';

const FLAG = 'test:flag';

class BaseController {
  @Get('inherited')
  inherited(): void {}

  @SetMetadata(FLAG, 'handler')
  @Get('own')
  own(): void {}
}

@SetMetadata(FLAG, 'first')
@Controller('first')
class FirstController extends BaseController {}

@Controller('second')
class SecondController extends BaseController {}

// The route's handler function, as Nest hands it to guards.
const handler = (name: 'own' | 'inherited'): object => Reflect.get(BaseController.prototype, name);
const contextOf = (controller: object, handler: object) =>
  ({ getClass: () => controller, getHandler: () => handler }) as unknown as ExecutionContext;

describe('RouteMetadata', () => {
  it("prefers the handler's value over its controller's, as Reflector.getAllAndOverride", () => {
    const metadata = new RouteMetadata<string>(new Reflector(), FLAG);
    expect(metadata.of(contextOf(FirstController, handler('own')))).toBe('handler');
    expect(metadata.of(contextOf(FirstController, handler('inherited')))).toBe('first');
  });

  it('tells apart one inherited handler under controllers with different metadata', () => {
    const metadata = new RouteMetadata<string>(new Reflector(), FLAG);
    const inherited = handler('inherited');
    expect(metadata.of(contextOf(FirstController, inherited))).toBe('first');
    expect(metadata.of(contextOf(SecondController, inherited))).toBeUndefined();
    expect(metadata.of(contextOf(FirstController, inherited))).toBe('first');
  });

  it('reads each route once, absent values included', () => {
    const reflector = new Reflector();
    const read = vi.spyOn(reflector, 'getAllAndOverride');
    const metadata = new RouteMetadata<string>(reflector, FLAG);
    for (let request = 0; request < 3; request += 1) {
      metadata.of(contextOf(FirstController, handler('own')));
      metadata.of(contextOf(SecondController, handler('inherited')));
    }
    expect(read).toHaveBeenCalledTimes(2);
  });
});

import { Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/core';

const CHECK_TIMEOUT_MS = 2_000;

/** Whether the database answers right now. */
export type DatabaseState = { readonly up: true } | { readonly up: false; readonly reason: string };

/** Runs the trivial query behind the readiness check. */
@Injectable()
export class DatabaseHealth {
  constructor(private readonly orm: MikroORM) {}

  async check(): Promise<DatabaseState> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)),
        CHECK_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([this.orm.em.getConnection().execute('select 1'), timeout]);
      return { up: true };
    } catch (error) {
      return { up: false, reason: error instanceof Error ? error.message : String(error) };
    } finally {
      clearTimeout(timer);
    }
  }
}

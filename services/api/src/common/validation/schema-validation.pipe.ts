import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { type FieldError, ValidationFailedError } from '../errors/domain-errors.js';

type Schema = NonNullable<ArgumentMetadata['schema']>;
type StandardIssue = NonNullable<Awaited<ReturnType<Schema['~standard']['validate']>>['issues']>[number];
// zod adds `code` and, for unknown fields, `keys` to the standard issue.
type Issue = StandardIssue & { readonly code?: string; readonly keys?: readonly string[] };

const WHOLE: Record<string, string> = { body: '(body)', query: '(query)', param: '(path)' };

function segment(part: NonNullable<Issue['path']>[number]): string {
  return String(typeof part === 'object' ? part.key : part);
}

/**
 * Turns schema issues into field errors that name the field as the client wrote it (`manifestUrl`,
 * `requiredRoles.2`); unknown fields are named one by one with "is not allowed".
 */
export function toFieldErrors(issues: readonly Issue[], location: string, name?: string): FieldError[] {
  const prefix = name ? [name] : [];
  return issues.flatMap((issue) => {
    const path = [...prefix, ...(issue.path ?? []).map(segment)];
    if (issue.code === 'unrecognized_keys' && issue.keys) {
      return issue.keys.map((key) => ({ field: [...path, key].join('.'), message: 'is not allowed' }));
    }
    if (path.length === 0) {
      const message = issue.code === 'invalid_type' ? 'must be a JSON object' : issue.message;
      return [{ field: WHOLE[location] ?? `(${location})`, message }];
    }
    return [{ field: path.join('.'), message: issue.message }];
  });
}

/**
 * Global pipe: validates every `@Body({ schema })`, `@Param(name, { schema })` and `@Query({ schema })`
 * with its Standard Schema (zod) and answers 400 validation_failed naming each bad field. The same schemas
 * describe the routes in the OpenAPI document, so the contract and the check cannot drift apart.
 */
@Injectable()
export class SchemaValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const schema = metadata.schema;
    if (!schema || metadata.type === 'custom') return value;
    const result = await schema['~standard'].validate(value);
    if (result.issues) {
      throw new ValidationFailedError(toFieldErrors(result.issues, metadata.type, metadata.data));
    }
    return result.value;
  }
}

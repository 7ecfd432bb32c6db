import type { z } from 'zod';
import { validationError, type ValidationIssue } from './errors.js';

type Issue = z.core.$ZodIssue;

/** Parses service input; the first problems become one message naming the fields to fix, and issues in data. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(describeIssues(result.error.issues), toIssues(result.error.issues, input));
}

export function describeIssues(issues: readonly Issue[]): string {
  return issues
    .flatMap(closestBranch)
    .slice(0, 3)
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

function toIssues(issues: readonly Issue[], input: unknown): ValidationIssue[] {
  return issues.flatMap(closestBranch).slice(0, 3).map((issue) => {
    // A rule of our own names its code and bound in `params` (see the Crossing Step refine).
    const params = issue.code === 'custom' ? (issue.params as { code?: string; bound?: number } | undefined) : undefined;
    const bound = issue.code === 'too_big' ? issue.maximum : issue.code === 'too_small' ? issue.minimum : params?.bound;
    const inclusive = issue.code === 'too_big' || issue.code === 'too_small' ? issue.inclusive : undefined;
    const value = valueAt(input, issue.path);
    return {
      path: issue.path,
      code: params?.code ?? issue.code,
      ...(bound !== undefined ? { bound: Number(bound) } : {}),
      ...(inclusive !== undefined ? { inclusive } : {}),
      ...(isScalar(value) ? { input: value } : {}),
      message: issue.message,
    };
  });
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let at = input;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

const isScalar = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/**
 * A transport's raw input (a REST body or path) passed as a verb's input type. The verb parses it
 * with its schema before use, so the type is the schema's promise, not the caller's.
 */
export const unparsed = <T>(raw: unknown): T => raw as T;

/**
 * A union that matched no branch says only "Invalid input"; the branch that came closest (fewest
 * problems) names the field to fix instead, e.g. a bad slug in the V2 tags body.
 */
function closestBranch(issue: Issue): Issue[] {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue];
  const closest = issue.errors.reduce((best, branch) => (branch.length < best.length ? branch : best));
  return closest.flatMap(closestBranch).map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }));
}

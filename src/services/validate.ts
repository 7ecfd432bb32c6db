import type { z } from 'zod';
import { validationError } from './errors.js';

type Issue = z.core.$ZodIssue;

/** Parses service input; the first problems become one message naming the fields to fix. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(describeIssues(result.error.issues));
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

/**
 * A union that matched no branch says only "Invalid input"; the branch that came closest (fewest
 * problems) names the field to fix instead, e.g. a bad slug in the V2 tags body.
 */
function closestBranch(issue: Issue): Issue[] {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue];
  const closest = issue.errors.reduce((best, branch) => (branch.length < best.length ? branch : best));
  return closest.flatMap(closestBranch).map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }));
}

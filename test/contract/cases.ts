import { it } from 'vitest';

export interface ContractOptions {
  /** Case name → reason, for cases this backend cannot run. Every name must be a case of the suite. */
  skip?: Readonly<Record<string, string>>;
}

/**
 * Registers the cases of one contract suite under unique names, skipping the ones options.skip names.
 * Call checkSkips() last in the suite body, once every case is registered: a misspelt skip must not pass silently.
 */
export function contractCases(suite: string, options: ContractOptions) {
  const skip = options.skip ?? {};
  const caseNames = new Set<string>();

  const test = (caseName: string, fn: () => Promise<void>): void => {
    if (caseNames.has(caseName)) throw new Error(`${suite}: duplicate case: ${caseName}`);
    caseNames.add(caseName);
    if (skip[caseName] !== undefined) it.skip(caseName, fn);
    else it(caseName, fn);
  };

  const checkSkips = (): void => {
    const unknown = Object.keys(skip).filter((caseName) => !caseNames.has(caseName));
    if (unknown.length > 0) throw new Error(`${suite} skip list names unknown cases: ${unknown.join('; ')}`);
  };

  return { test, checkSkips };
}

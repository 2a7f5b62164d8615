import type { TestCaseResult } from '@jest/reporters';

/** Filled by the benchmark reporter while jest-junit runs; see junitTestCaseProperties.js. */
export declare const state: { lookup?: (testCase: TestCaseResult) => Record<string, string> };
declare function junitTestCaseProperties(testCase: TestCaseResult): Record<string, string>;
export default junitTestCaseProperties;

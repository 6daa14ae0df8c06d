/** The retention tiers a table is created with (settings.ts): the decision and outcome tables share them. */
export type TRetention = { fullDays: number; keepDays: number; routineSampleBasisPoints: number };

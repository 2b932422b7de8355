/**
 * Which of a worker's embedders a job uses: one per model and backend settings. Apart from
 * job.ts so that the pool (main thread) reads it without loading what a job runs:
 * every extractor, the chunkers and their packages are the workers' code only.
 */
import type { Job } from "../job-types";

export const embedderKey = (job: Job): string => JSON.stringify([job.model, job.embed]);

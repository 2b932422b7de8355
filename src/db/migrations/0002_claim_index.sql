DROP INDEX `tasks_status_run_idx`;--> statement-breakpoint
CREATE INDEX `tasks_status_run_idx` ON `tasks` (`status`,`run_after`,`id`);
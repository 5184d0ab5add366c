/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The subcommands of latwatt, in the manner of git.c's commands[]: adding one
 * is a file cmd/NAME.c defining cmd_NAME() and one line in this list.
 */
#ifndef LW_COMMANDS_H
#define LW_COMMANDS_H

#define LW_COMMANDS(X)								\
	X(run,     "run probes and workloads, record into a run directory")	\
	X(analyze, "summarize a run: latency statistics, histogram, analysis.json") \
	X(sysinfo, "show what a run would record about this system, with warnings") \
	X(import,  "import results of other tools (cyclictest --json) as a run") \
	X(tracedump, "print a run's kernel trace (RUN/trace.dat) through latwatt's reader") \
	X(cleanup, "remove trace instances left behind by killed runs") \
	X(boards,  "list, show and check board files (boards/NAME.yaml)") \
	X(power,   "power sources, estimates from traces, meter logs, summaries") \
	X(workloads, "list the workloads of 'run -w' and their parameters") \
	X(report,  "HTML report with plots, JUnit, LAVA and Markdown of a run or comparison") \
	X(compare, "compare runs against a baseline: statistics, verdicts, CI rules") \
	X(db,      "results store: keep runs and named baselines in an SQLite file") \
	X(scenarios, "list the scenario files, show or check one") \
	X(target,  "run latwatt on a board over ssh and bring the run home") \
	X(bisect,  "find the first version (kernel) that made a metric worse, with repeated runs") \
	X(tune,    "search run-time knobs for the lowest power that meets the budgets") \
	X(export,  "export runs, repeats or a comparison as KCIDB I/O JSON (KernelCI)") \
	X(lab,     "submit jobs to a LAVA lab, wait for them, fetch their runs")

#define LW_DECLARE(name, help) int cmd_##name(int argc, char **argv);
LW_COMMANDS(LW_DECLARE)
#undef LW_DECLARE

#endif

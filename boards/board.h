/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Board files: boards/NAME.yaml.  What a board is (CPUs, housekeeping and
 * realtime sets), what kernel it is expected to run (PREEMPT_RT, nohz_full,
 * isolcpus, rcu_nocbs), its idle states and operating points with the power
 * drawn in each (the energy model), where its power can be measured, and
 * the budgets a run on it must meet.  The format is documented in
 * boards/README.md; every error names file:line:column and the key.
 *
 * The board "local" is the machine latwatt runs on: CPUs, idle states and
 * operating points are discovered from sysfs (under a root directory, so
 * tests point it at a copy), and a boards/local.yaml, when there is one,
 * adds power figures and budgets.
 */
#ifndef LW_BOARD_H
#define LW_BOARD_H

#include <jansson.h>
#include <sched.h>
#include <stdint.h>

#define LW_BOARD_FORMAT 1

struct lw_idle_state {
	char *name;
	char *desc;
	double exit_latency_us;		/* < 0: not given */
	double target_residency_us;	/* < 0: not given */
	double power_mw;		/* per CPU in this state; < 0: not given */
	int estimated;			/* the power figure is an estimate */
	int line;
};

struct lw_opp {
	uint64_t freq_khz;		/* 0: the one fixed frequency */
	double voltage_mv;		/* < 0: not given */
	double power_mw;		/* active power per CPU; < 0: not given */
	int estimated;
	int line;
};

/* A power source the board is expected to have. */
struct lw_board_source {
	char *type;			/* a sensor of LW_POWER_SOURCES() (lib/powersrc.h), or meter */
	char *device;			/* hwmon/iio device name, RAPL zone, supply */
	char *rail;			/* label given to what it measures */
	int line;
};

struct lw_metric;

/* A budget: "the figure @m (of @probe) <= @limit", @m from the metric
 * registry (lib/metrics.h): a probe's figure when m->probe. */
struct lw_budget {
	const struct lw_metric *m;
	char *probe;			/* latency: probe name, NULL = every probe */
	char *stat;			/* latency: p50 p90 p99 p99.9 p99.99 max mean min */
	double limit;			/* us, count, mW or uJ */
	int line;
};

struct lw_board {
	char *name;
	char *description;
	char *arch;			/* as uname -m says: x86_64, aarch64, armv7l */
	char *path;			/* file it was read from, or NULL (built-in) */
	char **sources;			/* where the numbers come from */
	int nsources;
	int emulated;
	int discovered;			/* filled from the running machine */

	int ncpus;			/* 0: not given */
	cpu_set_t housekeeping, realtime;
	int has_housekeeping, has_realtime;

	struct {
		int preempt_rt;		/* -1 either, 0 must not be, 1 must be */
		char *cmdline;		/* words expected on /proc/cmdline */
		cpu_set_t nohz_full, isolated, rcu_nocbs;
		int has_nohz_full, has_isolated, has_rcu_nocbs;
		char **tracers;
		int ntracers;
		char **tracers_rt;	/* expected only when the kernel is PREEMPT_RT */
		int ntracers_rt;
	} kernel;

	struct lw_idle_state *idle;
	int nidle;
	struct lw_opp *opp;		/* sorted by frequency */
	int nopp;
	double static_power_mw;		/* the rest of the board; < 0: not given */
	struct {			/* fallbacks where a state or OPP has no figure */
		double active_power_mw;	/* per CPU running; < 0: not given */
		double idle_power_mw;	/* per CPU in any idle state but polling */
		double poll_power_mw;	/* per CPU in a polling idle state (POLL) */
	} model;
	char *power;			/* measured, estimated, auto (default) */

	struct lw_board_source *src;
	int nsrc;
	struct lw_budget *budget;
	int nbudget;

	char *text;			/* the file's bytes as read and parsed (NULL:
					 * none); RUN/board.yaml gets these */
	size_t text_len;

	struct {			/* target: how `latwatt target` reaches the board */
		char *ssh;		/* [user@]host; NULL: no target section */
		unsigned port;		/* 0: ssh's default */
		char *identity;		/* private key file, or NULL */
		char *dir;		/* where on the board (default /tmp) */
		char **options;		/* ssh -o options ("Key=value"), checked by
					 * lw_ssh_option_check() */
		int noptions;
		int known_hosts;	/* options name a known-hosts file of the
					 * board's: latwatt target makes ssh only read it */
	} target;
};

/* A [user@]host that ssh takes as a destination and nothing else (no
 * leading '-', no shell syntax): 1, else 0. */
int lw_ssh_dest_ok(const char *s);
/* An ssh -o option a board file may give ("Key=value" or "Key value", the
 * key in any case; an allow-list: no command, library, other configuration,
 * jump host, forwarding or file that ssh writes).  0 when allowed, else -1
 * with @why saying why (a fixed text, never the option); *@known set to 1
 * when it names a UserKnownHostsFile other than none or /dev/null. */
int lw_ssh_option_check(const char *opt, const char **why, int *known);

/* Read and validate a board file.  NULL after error("file:line:col: ..."). */
struct lw_board *lw_board_load(const char *path);
/* Same from memory (tests); @name stands for the file in messages. */
struct lw_board *lw_board_parse(const char *name, const char *text);
/*
 * Find a board by name ("qemu-x86_64") or path ("./my.yaml") and load it.
 * "local" is discovered under @root ("" or NULL: this machine) and merged
 * with a local.yaml if one is found.  Search path: $LATWATT_BOARDS (colon
 * separated), the boards/ folder next to the executable (and ../boards,
 * ../share/latwatt/boards from it), /etc/latwatt/boards (where the QEMU
 * guest gets its board), then PREFIX/share/latwatt/boards.  Never the
 * current directory: "./NAME.yaml" names a file there explicitly.
 */
struct lw_board *lw_board_find(const char *name, const char *root);
/* Fill what a board leaves out (CPUs, idle states, OPPs) from the machine
 * under @root.  Never fails. */
void lw_board_discover(struct lw_board *b, const char *root);
void lw_board_free(struct lw_board *b);

/* The directories searched, in order (NULL-terminated, static storage). */
const char *const *lw_board_dirs(void);
/* Every board file found: array of {name, path, arch, description}. */
json_t *lw_board_list(void);
/* The board as JSON (what `latwatt boards show` prints). */
json_t *lw_board_to_json(const struct lw_board *b);

/* Energy model lookups.  The one lookup of an idle state's power: one CPU
 * in state @name (mW).  In order: the state's own power_mw; for a polling
 * state (named POLL, or @polling: the caller knows its exit latency is 0)
 * model.poll_power_mw, else the active power at the nominal frequency;
 * model.idle_power_mw; the first listed non-polling state's power_mw; and
 * < 0 when the board says nothing that applies. */
double lw_board_state_power(const struct lw_board *b, const char *name, int polling);
/* lw_board_state_power(@b, @name, 0). */
double lw_board_idle_power(const struct lw_board *b, const char *name);
/* Active power of one CPU at @khz (mW): linear between operating points,
 * clamped at the ends; < 0 when the board has no powered OPP. */
double lw_board_active_power(const struct lw_board *b, uint64_t khz);
/* The frequency used when nothing says otherwise: the highest OPP. */
uint64_t lw_board_nominal_khz(const struct lw_board *b);
/* 1 when the board can estimate power (OPP power or idle power given). */
int lw_board_has_model(const struct lw_board *b);

/* Keep the board with a run: RUN/board.yaml (a copy of the file, when
 * there is one) and RUN/board.json (the board as resolved, discovery
 * included), made in the run directory's descriptor @dfd. */
int lw_board_record(const struct lw_board *b, int dfd, const char *rundir);
/* The board of a run: @name when given, else RUN/board.yaml, else the
 * name in the manifest ("local" when none). */
struct lw_board *lw_board_for_run(const char *rundir, const char *name);

/* Differences between what the board expects and a sysinfo
 * (lw_sysinfo_collect()), as an array of
 * {"what", "expected", "found", "message"}; empty when all agree. */
json_t *lw_board_check(const struct lw_board *b, const json_t *sysinfo);

#endif

// SPDX-License-Identifier: GPL-2.0-only
/*
 * latwatt bisect: the first version (kernel) in an ordered list whose runs
 * are worse than the last good one's by a rule of the comparison engine.
 *
 * The search is analysis/bisect.c; this file makes the runs (through the
 * QEMU board, a deploy hook and 'latwatt target', or a run command), judges
 * two versions' runs with the comparison engine (analysis/compare.h: the
 * groups of runs, the verdicts, the rules of --fail-on) and keeps a
 * directory: bisect.json (the parameters), bisect.log (what was run and
 * judged, one line each), runs/NN-VERSION/run-MM (every run), and at the end
 * result.json and comparison.json (the evidence: last good against first
 * bad).  The runs are the state: started again on the same directory, the
 * bisect finds the runs it has and only makes the missing ones, and the
 * comparison (seeded) judges them as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/bisect.h"
#include "analysis/compare.h"
#include "analysis/failon.h"
#include "cmd/commands.h"
#include "cmd/lab.h"
#include "cmd/lava_api.h"
#include "lib/error.h"
#include "lib/input.h"
#include "lib/json.h"
#include "lib/parse.h"
#include "lib/rundir.h"
#include "lib/safefile.h"
#include "reports/report.h"
#include "lib/spawn.h"
#include "lib/words.h"
#include "lib/timeutil.h"

static const char usage[] =
"usage: latwatt bisect -o DIR --good V --bad V --versions LIST|@FILE --metric RULE...\n"
"                      [RUNNER] [OPTIONS] [-- LATWATT-RUN-ARGS...]\n"
"       latwatt bisect -o DIR                 (resume an interrupted bisect)\n"
"\n"
"Find the first version in an ordered list (kernels, oldest first) whose runs\n"
"are worse than the last good version's by RULE, judged by the comparison\n"
"engine of 'latwatt compare' on repeated runs of each version.  It first\n"
"confirms that BAD is worse than GOOD (adding repeats up to --max-repeat) and\n"
"stops with that finding if it is not; then each step runs the middle version\n"
"and compares it with both ends: like good, like bad, or cannot tell yet (then\n"
"more runs, judged again at doubling counts up to --max-repeat).  The step\n"
"found is confirmed between its own two ends before it is named.\n"
"\n"
"DIR keeps everything: bisect.json (the parameters), bisect.log (each run and\n"
"judgement), runs/NN-VERSION/run-MM, and at the end result.json and\n"
"comparison.json (last good against first bad, as 'latwatt compare' writes\n"
"it; 'latwatt report DIR/comparison.json' draws it).  Interrupted, run the\n"
"same command (or just 'latwatt bisect -o DIR') to go on where it stopped.\n"
"\n"
"  -o, --output DIR          the bisect's directory (new, or one to resume)\n"
"  -g, --good V              a version known to be good\n"
"  -B, --bad V               a later version known to be bad\n"
"  -V, --versions LIST       the versions in order: comma-separated, or @FILE\n"
"                            (one a line, '#' comments); GOOD and BAD among them\n"
"  -m, --metric RULE         what 'worse' means, a --fail-on rule of 'latwatt\n"
"                            compare' (repeatable): 'p99>+20%', 'xruns>0',\n"
"                            'power>+5%', 'any:worse' (default: cyclic.p99:worse)\n"
"  -r, --repeat N            runs of each version to start with (default 3)\n"
"  -M, --max-repeat N        most runs of one version (default 12)\n"
"\n"
"RUNNER (one of; default: --board qemu-x86_64):\n"
"  -b, --board NAME          a QEMU board (qemu-x86_64, qemu-aarch64): each run\n"
"                            boots VERSION, a kernel as 'scripts/qemu-board run'\n"
"                            names it (6.1-rt, linux-image-6.1.0-57-rt-amd64 ...)\n"
"      --deploy CMD          a hook that installs and boots VERSION on a real\n"
"                            board: CMD's words, '{version}' replaced, run without\n"
"                            a shell; then the run goes through 'latwatt target'\n"
"  -s, --ssh [USER@]HOST     the board for 'latwatt target' (with --deploy)\n"
"  -p, --port PORT           its ssh port\n"
"  -i, --identity FILE       its ssh key\n"
"      --run-cmd CMD         any command that makes one run directory: its words,\n"
"                            '{version}' and '{out}' replaced, run without a shell\n"
"      --lava-job FILE       jobs in a LAVA lab: FILE is a rendered job definition\n"
"                            (as for 'latwatt lab submit'), '{version}' replaced\n"
"                            in its name and its text (kernel_url, job_name ...);\n"
"                            a version's runs are submitted at once, spread over\n"
"                            the lab's devices as 'latwatt lab submit' spreads\n"
"                            them, waited for and fetched.  A version with a job\n"
"                            that did not complete (boot failure, timeout,\n"
"                            infrastructure error) is skipped: named, never\n"
"                            counted good or bad (as 'git bisect skip')\n"
"      --url URL             with --lava-job: the server (default $LAVA_URL)\n"
"      --token-file FILE     with --lava-job: the API token (default $LAVA_TOKEN,\n"
"                            else the file $LAVA_TOKEN_FILE); never on the\n"
"                            command line\n"
"      --lab NAME            with --lava-job: the lab's name (default $LAVA_LAB)\n"
"      --lab-timeout TIME    with --lava-job: the longest wait for one version's\n"
"                            jobs (default 30m; then an error: run it again to\n"
"                            go on waiting)\n"
"      --lab-interval TIME   with --lava-job: between two looks (default 5s)\n"
"\n"
"  -a, --alpha P             significance level of the comparison (default 0.05)\n"
"      --json                print result.json instead of the text\n"
"  -q, --quiet               no progress\n"
"  -h, --help                this text\n"
"\n"
"Exit status: 0 the first bad version was found; 1 good and bad do not differ\n"
"by the rules, or a version could not be decided with --max-repeat runs, or\n"
"only skipped versions are left where the first bad one is;\n"
"2 error; 130 interrupted (run it again to resume).\n";

#define MAX_VERSIONS 512
#define MAX_RULES    16
#define MAX_WORDS    64
#define DEFAULT_RULE "cyclic.p99:worse"

enum runner { RUNNER_QEMU, RUNNER_DEPLOY, RUNNER_CMD, RUNNER_LAVA };

struct params {
	const char *out;
	const char *good, *bad;
	const char *versions_arg;
	const char *rule_text[MAX_RULES];
	size_t nrules;
	unsigned repeat, max_repeat;
	enum runner runner;
	const char *board, *deploy, *ssh, *port, *identity, *run_cmd;
	const char *lava_job, *url, *token_file, *lab;
	uint64_t lab_timeout_ns, lab_interval_ns;
	double alpha;
	char **run_args;
	int nrun_args, own_run_args;
	int json, quiet;
};

struct bisect {
	const struct params *p;
	char **versions;
	size_t nv;
	struct lw_rule rules[MAX_RULES];
	size_t nrules;
	FILE *log;
	char self[PATH_MAX];		/* this binary */
	unsigned runs_made, judgements;
	json_t *evidence;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

/* ------------------------------------------------------------ parameters */

static int parse(struct params *p, int argc, char **argv)
{
	enum { O_DEPLOY = 256, O_RUNCMD, O_JSON, O_LAVA_JOB, O_URL, O_TOKEN_FILE, O_LAB,
	       O_LAB_TIMEOUT, O_LAB_INTERVAL };
	static const struct option opts[] = {
		{ "output",     required_argument, NULL, 'o' },
		{ "good",       required_argument, NULL, 'g' },
		{ "bad",        required_argument, NULL, 'B' },
		{ "versions",   required_argument, NULL, 'V' },
		{ "metric",     required_argument, NULL, 'm' },
		{ "repeat",     required_argument, NULL, 'r' },
		{ "max-repeat", required_argument, NULL, 'M' },
		{ "board",      required_argument, NULL, 'b' },
		{ "deploy",     required_argument, NULL, O_DEPLOY },
		{ "ssh",        required_argument, NULL, 's' },
		{ "port",       required_argument, NULL, 'p' },
		{ "identity",   required_argument, NULL, 'i' },
		{ "run-cmd",    required_argument, NULL, O_RUNCMD },
		{ "lava-job",   required_argument, NULL, O_LAVA_JOB },
		{ "url",        required_argument, NULL, O_URL },
		{ "token-file", required_argument, NULL, O_TOKEN_FILE },
		{ "lab",        required_argument, NULL, O_LAB },
		{ "lab-timeout", required_argument, NULL, O_LAB_TIMEOUT },
		{ "lab-interval", required_argument, NULL, O_LAB_INTERVAL },
		{ "alpha",      required_argument, NULL, 'a' },
		{ "json",       no_argument,       NULL, O_JSON },
		{ "quiet",      no_argument,       NULL, 'q' },
		{ "help",       no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t u;
	int c, runners = 0;

	p->repeat = 3;
	p->max_repeat = 12;
	p->alpha = 0.05;
	p->lab_timeout_ns = 30 * 60 * 1000000000ULL;
	p->lab_interval_ns = 5 * 1000000000ULL;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:g:B:V:m:r:M:b:s:p:i:a:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': p->out = optarg; break;
		case 'g': p->good = optarg; break;
		case 'B': p->bad = optarg; break;
		case 'V': p->versions_arg = optarg; break;
		case 'm':
			if (p->nrules == MAX_RULES)
				return error("--metric: at most %d rules", MAX_RULES);
			p->rule_text[p->nrules++] = optarg;
			break;
		case 'r':
			if (lw_parse_uint("--repeat", optarg, 1, 100, &u) < 0)
				return -1;
			p->repeat = (unsigned)u;
			break;
		case 'M':
			if (lw_parse_uint("--max-repeat", optarg, 1, 1000, &u) < 0)
				return -1;
			p->max_repeat = (unsigned)u;
			break;
		case 'b': p->board = optarg; p->runner = RUNNER_QEMU; runners++; break;
		case O_DEPLOY: p->deploy = optarg; p->runner = RUNNER_DEPLOY; runners++; break;
		case O_RUNCMD: p->run_cmd = optarg; p->runner = RUNNER_CMD; runners++; break;
		case O_LAVA_JOB: p->lava_job = optarg; p->runner = RUNNER_LAVA; runners++; break;
		case O_URL: p->url = optarg; break;
		case O_TOKEN_FILE: p->token_file = optarg; break;
		case O_LAB: p->lab = optarg; break;
		case O_LAB_TIMEOUT:
			if (lw_parse_duration("--lab-timeout", optarg, &p->lab_timeout_ns) < 0)
				return -1;
			break;
		case O_LAB_INTERVAL:
			if (lw_parse_duration("--lab-interval", optarg, &p->lab_interval_ns) < 0)
				return -1;
			break;
		case 's': p->ssh = optarg; break;
		case 'p': p->port = optarg; break;
		case 'i': p->identity = optarg; break;
		case 'a':
			if (lw_parse_double("--alpha", optarg, 1e-6, 0.5, &p->alpha) < 0)
				return -1;
			break;
		case O_JSON: p->json = 1; break;
		case 'q': p->quiet = 1; break;
		case 'h': return 1;
		default: return lw_opt_error(c, argv, "bisect");
		}
	}
	/* after "--" (or the first word that is not an option): latwatt run's */
	p->run_args = argv + optind;
	p->nrun_args = argc - optind;
	if (!p->out)
		return error("-o DIR is required (see 'latwatt bisect --help')");
	if (runners > 1)
		return error("--board, --deploy, --run-cmd and --lava-job are different ways to run: "
			     "give one");
	if (p->runner != RUNNER_LAVA && (p->url || p->token_file || p->lab))
		return error("--url, --token-file and --lab are for --lava-job");
	if (p->runner == RUNNER_DEPLOY && !p->ssh)
		return error("--deploy needs --ssh: the board that 'latwatt target' runs on");
	if (p->max_repeat < p->repeat)
		return error("--max-repeat %u is below --repeat %u", p->max_repeat, p->repeat);
	return 0;
}

static const char *runner_name(enum runner r)
{
	return r == RUNNER_QEMU ? "qemu" : r == RUNNER_DEPLOY ? "deploy" :
	       r == RUNNER_LAVA ? "lava" : "run-cmd";
}

static json_t *params_json(const struct params *p, char **versions, size_t nv)
{
	json_t *o = json_object(), *v = json_array(), *r = json_array(), *a = json_array();

	for (size_t i = 0; i < nv; i++)
		json_array_append_new(v, json_string(versions[i]));
	for (size_t i = 0; i < p->nrules; i++)
		json_array_append_new(r, json_string(p->rule_text[i]));
	for (int i = 0; i < p->nrun_args; i++)
		json_array_append_new(a, json_string(p->run_args[i]));
	json_object_set_new(o, "schema", json_string("latwatt-bisect-params"));
	json_object_set_new(o, "version", json_integer(1));
	json_object_set_new(o, "good", json_string(p->good));
	json_object_set_new(o, "bad", json_string(p->bad));
	json_object_set_new(o, "versions", v);
	json_object_set_new(o, "rules", r);
	json_object_set_new(o, "repeat", json_integer(p->repeat));
	json_object_set_new(o, "max_repeat", json_integer(p->max_repeat));
	json_object_set_new(o, "alpha", json_real(p->alpha));
	json_object_set_new(o, "runner", json_string(runner_name(p->runner)));
	json_object_set_new(o, "board", p->board ? json_string(p->board) : json_null());
	json_object_set_new(o, "deploy", p->deploy ? json_string(p->deploy) : json_null());
	json_object_set_new(o, "ssh", p->ssh ? json_string(p->ssh) : json_null());
	json_object_set_new(o, "port", p->port ? json_string(p->port) : json_null());
	json_object_set_new(o, "identity", p->identity ? json_string(p->identity) : json_null());
	json_object_set_new(o, "run_cmd", p->run_cmd ? json_string(p->run_cmd) : json_null());
	json_object_set_new(o, "run_args", a);
	if (p->runner == RUNNER_LAVA) {
		/* the token's file, never the token */
		json_object_set_new(o, "lava_job", json_string(p->lava_job));
		json_object_set_new(o, "url", p->url ? json_string(p->url) : json_null());
		json_object_set_new(o, "token_file", p->token_file ? json_string(p->token_file) :
				    json_null());
		json_object_set_new(o, "lab", p->lab ? json_string(p->lab) : json_null());
		json_object_set_new(o, "lab_timeout_ns", json_integer((json_int_t)p->lab_timeout_ns));
		json_object_set_new(o, "lab_interval_ns",
				    json_integer((json_int_t)p->lab_interval_ns));
	}
	return o;
}

/* Take the parameters of a bisect saved in DIR/bisect.json. */
static int params_from_json(struct params *p, const json_t *o, const char *path)
{
	const json_t *r = json_object_get(o, "rules"), *a = json_object_get(o, "run_args");
	const char *runner = lw_jstr(o, "runner", NULL);
	size_t i;

	if (!json_is_object(o) || !lw_jstr(o, "good", NULL) || !lw_jstr(o, "bad", NULL) || !runner ||
	    !json_is_array(json_object_get(o, "versions")) || !json_is_array(r) || !json_is_array(a) ||
	    json_array_size(r) > MAX_RULES || !json_is_integer(json_object_get(o, "repeat")) ||
	    !json_is_integer(json_object_get(o, "max_repeat")))
		return error("%s: not a bisect parameter file (latwatt-bisect-params)", path);
	p->good = lw_jstr(o, "good", NULL);
	p->bad = lw_jstr(o, "bad", NULL);
	p->nrules = json_array_size(r);
	for (i = 0; i < p->nrules; i++)
		if (!(p->rule_text[i] = json_string_value(json_array_get(r, i))))
			return error("%s: rules[%zu] is not a string", path, i);
	p->repeat = (unsigned)json_integer_value(json_object_get(o, "repeat"));
	p->max_repeat = (unsigned)json_integer_value(json_object_get(o, "max_repeat"));
	if (!p->repeat || p->repeat > 100 || p->max_repeat < p->repeat || p->max_repeat > 1000)
		return error("%s: repeat %u, max_repeat %u out of range", path, p->repeat, p->max_repeat);
	if (json_is_number(json_object_get(o, "alpha")))
		p->alpha = json_number_value(json_object_get(o, "alpha"));
	if (!(p->alpha > 0 && p->alpha <= 0.5))
		return error("%s: alpha out of range", path);
	p->runner = !strcmp(runner, "deploy") ? RUNNER_DEPLOY :
		    !strcmp(runner, "run-cmd") ? RUNNER_CMD :
		    !strcmp(runner, "lava") ? RUNNER_LAVA : RUNNER_QEMU;
	p->lava_job = lw_jstr(o, "lava_job", NULL);
	p->url = lw_jstr(o, "url", NULL);
	p->token_file = lw_jstr(o, "token_file", NULL);
	p->lab = lw_jstr(o, "lab", NULL);
	if (json_is_integer(json_object_get(o, "lab_timeout_ns")))
		p->lab_timeout_ns = (uint64_t)json_integer_value(json_object_get(o, "lab_timeout_ns"));
	if (json_is_integer(json_object_get(o, "lab_interval_ns")))
		p->lab_interval_ns = (uint64_t)json_integer_value(json_object_get(o, "lab_interval_ns"));
	p->board = lw_jstr(o, "board", NULL);
	p->deploy = lw_jstr(o, "deploy", NULL);
	p->ssh = lw_jstr(o, "ssh", NULL);
	p->port = lw_jstr(o, "port", NULL);
	p->identity = lw_jstr(o, "identity", NULL);
	p->run_cmd = lw_jstr(o, "run_cmd", NULL);
	if ((p->runner == RUNNER_DEPLOY && (!p->deploy || !p->ssh)) ||
	    (p->runner == RUNNER_CMD && !p->run_cmd) || (p->runner == RUNNER_LAVA && !p->lava_job))
		return error("%s: runner '%s' without its command", path, runner);
	p->nrun_args = (int)json_array_size(a);
	p->run_args = calloc((size_t)p->nrun_args + 1, sizeof(char *));
	if (!p->run_args)
		return error("out of memory");
	p->own_run_args = 1;
	for (i = 0; i < json_array_size(a); i++)
		if (!(p->run_args[i] = (char *)json_string_value(json_array_get(a, i))))
			return error("%s: run_args[%zu] is not a string", path, i);
	return 0;
}

/* The versions: "a,b,c" or @FILE with one a line. */
static int load_versions(const char *arg, char ***out, size_t *n)
{
	char **v = calloc(MAX_VERSIONS, sizeof(char *));
	char *buf = NULL, *save = NULL, *tok;
	const char *sep = ",";
	size_t k = 0;

	if (!v)
		return error("out of memory");
	if (arg[0] == '@') {
		FILE *f = lw_in_fopen(arg + 1, 0, LW_CAP_MANIFEST);
		size_t len = 0;

		if (!f) {
			free(v);
			return error("--versions: cannot read %s (see above)", arg + 1);
		}
		if (getdelim(&buf, &len, '\0', f) < 0) {
			buf = strdup("");
		}
		fclose(f);
		sep = "\n";
		/* comments out */
		for (char *h = buf ? strchr(buf, '#') : NULL; h; h = strchr(h, '#'))
			while (*h && *h != '\n')
				*h++ = ' ';
	} else {
		buf = strdup(arg);
	}
	if (!buf) {
		free(v);
		return error("out of memory");
	}
	for (tok = strtok_r(buf, sep, &save); tok; tok = strtok_r(NULL, sep, &save)) {
		char *e;

		while (*tok == ' ' || *tok == '\t' || *tok == '\r')
			tok++;
		e = tok + strlen(tok);
		while (e > tok && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			*--e = '\0';
		if (!*tok)
			continue;
		if (k == MAX_VERSIONS) {
			free(buf);
			free(v);
			return error("--versions: more than %d versions", MAX_VERSIONS);
		}
		for (size_t i = 0; i < k; i++)
			if (!strcmp(v[i], tok)) {
				error("--versions: '%s' is listed twice", tok);
				free(buf);
				free(v);
				return -1;
			}
		v[k++] = strdup(tok);
	}
	free(buf);
	*out = v;
	*n = k;
	return 0;
}

static int index_of(char **v, size_t n, const char *what, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], name))
			return (int)i;
	return error("--%s '%s' is not among the versions", what, name);
}

/* ------------------------------------------------------------ the log */

__attribute__((format(printf, 2, 3)))
static void blog(struct bisect *b, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (fwrite(line, 1, (size_t)n, b->log) != (size_t)n || fflush(b->log))
		warning("bisect.log: %s", strerror(errno));
	if (!b->p->quiet && !b->p->json)
		fprintf(stderr, "bisect: %.*s", n, line);
}

/* A version as a directory name: its characters, anything odd as '_'. */
static void version_dir(const struct bisect *b, size_t v, char *buf, size_t len)
{
	char name[96];
	size_t i;

	for (i = 0; i < sizeof(name) - 1 && b->versions[v][i]; i++) {
		char c = b->versions[v][i];

		name[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '.' || c == '-' || c == '+' || c == '_' ? c : '_';
	}
	name[i] = '\0';
	snprintf(buf, len, "%s/runs/%03zu-%s", b->p->out, v, name);
}

/* ------------------------------------------------------------ runs */

static int is_complete_run(const char *path)
{
	char m[PATH_MAX];
	json_t *doc;
	int ok;

	snprintf(m, sizeof(m), "%s/manifest.json", path);
	if (access(m, F_OK))
		return 0;
	doc = lw_json_load(m);
	ok = doc && lw_manifest_is_complete(doc);
	json_decref(doc);
	return ok;
}

/*
 * The runs of version @v: the complete ones, in order, into @paths (each
 * allocated; NULL to only count); *next = the number the next run gets.
 */
static int list_runs(const struct bisect *b, size_t v, char **paths, size_t max, unsigned *next)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	int n = 0;

	version_dir(b, v, dir, sizeof(dir));
	*next = 1;
	for (unsigned k = 1; k <= 1000; k++) {
		snprintf(path, sizeof(path), "%s/run-%02u", dir, k);
		if (access(path, F_OK)) {
			char failed[PATH_MAX + 32];

			snprintf(failed, sizeof(failed), "%s/failed-%02u", dir, k);
			if (access(failed, F_OK))
				break;
			*next = k + 1;
			continue;
		}
		*next = k + 1;
		if (!is_complete_run(path))
			continue;
		if (paths && (size_t)n < max)
			paths[n] = strdup(path);
		n++;
	}
	return n;
}

/* @word with '{version}' and '{out}' (when @out) replaced. */
static char *expand(const char *word, const char *version, const char *out)
{
	const struct lw_word_sub subs[] = { { "{version}", version }, { "{out}", out } };

	return lw_word_expand(word, subs, 2);
}

/* Split a hook's command into words (spaces; no shell, no quotes). */
static int split_words(const char *cmd, const char *version, const char *out,
		       char **argv, int max)
{
	const struct lw_word_sub subs[] = { { "{version}", version }, { "{out}", out } };

	return lw_words_split(cmd, subs, 2, argv, max);
}

/* While a run goes on: the run stops and keeps what it has. */
static void pass_interrupt(struct lw_child *c, void *arg)
{
	(void)arg;
	if (interrupted)
		kill(c->pid, SIGINT);
}

/* Run @argv with stdout and stderr into @logpath (ours, new); its status
 * (127 when it is not there, said in the log). */
static int spawn(char *const argv[], const char *logpath)
{
	struct lw_child c = { .argv = (const char *const *)argv, .err = LW_CHILD_TO_OUT,
			      .sig_default = LW_SIG_BIT(SIGINT) | LW_SIG_BIT(SIGTERM),
			      .on_signal = pass_interrupt, .quiet = 1 };
	int st, fd;

	fd = lw_create(logpath, 0644);
	if (fd < 0)
		return -1;
	c.out = fd;
	st = lw_child_run(&c);
	if (st < 0 && c.fail_step == LW_CHILD_EXEC) {
		dprintf(fd, "cannot run %s: %s\n", argv[0], strerror(c.fail_errno));
		st = 127;
	} else if (st < 0) {
		st = error("cannot run %s: %s", argv[0], strerror(c.fail_errno));
	}
	close(fd);
	return st;
}

/* The directory this binary is in (scripts/ and boards/ are beside it). */
static const char *topdir(const struct bisect *b, char *buf, size_t len)
{
	const char *slash = strrchr(b->self, '/');

	snprintf(buf, len, "%.*s", slash ? (int)(slash - b->self) : 1, slash ? b->self : ".");
	return buf;
}

/* One run of version @v into @out (which must not exist yet). */
static int make_run(struct bisect *b, size_t v, const char *out, const char *logpath)
{
	const struct params *p = b->p;
	const char *ver = b->versions[v];
	char *argv[MAX_WORDS + 32];
	char top[PATH_MAX], tool[PATH_MAX + 32], board[PATH_MAX + 64];
	int n = 0, rc;

	if (p->runner == RUNNER_CMD) {
		if ((n = split_words(p->run_cmd, ver, out, argv, MAX_WORDS)) < 0)
			return -1;
		rc = spawn(argv, logpath);
		lw_words_free(argv);
		return rc;
	}
	if (p->runner == RUNNER_DEPLOY) {
		if ((n = split_words(p->deploy, ver, NULL, argv, MAX_WORDS)) < 0)
			return -1;
		rc = spawn(argv, logpath);
		lw_words_free(argv);
		if (rc) {
			error("deploy of %s exited %d (see %s)", ver, rc, logpath);
			return rc;
		}
		n = 0;
		argv[n++] = b->self;
		argv[n++] = "target";
		argv[n++] = "--ssh";
		argv[n++] = (char *)p->ssh;
		if (p->port) {
			argv[n++] = "--port";
			argv[n++] = (char *)p->port;
		}
		if (p->identity) {
			argv[n++] = "--identity";
			argv[n++] = (char *)p->identity;
		}
		argv[n++] = "-o";
		argv[n++] = (char *)out;
	} else {
		const char *bn = p->board ? p->board : "qemu-x86_64";

		topdir(b, top, sizeof(top));
		snprintf(tool, sizeof(tool), "%s/scripts/qemu-board", top);
		if (strchr(bn, '/'))
			snprintf(board, sizeof(board), "%s", bn);
		else
			snprintf(board, sizeof(board), "%s/boards/%s.yaml", top, bn);
		argv[n++] = tool;
		argv[n++] = "--board";
		argv[n++] = board;
		argv[n++] = "--latwatt";
		argv[n++] = b->self;
		argv[n++] = "run";
		argv[n++] = (char *)ver;
		argv[n++] = "-o";
		argv[n++] = (char *)out;
	}
	if (p->nrun_args > MAX_WORDS)
		return error("more than %d arguments for latwatt run", MAX_WORDS);
	argv[n++] = "--";
	for (int i = 0; i < p->nrun_args; i++)
		argv[n++] = p->run_args[i];
	argv[n] = NULL;
	return spawn(argv, logpath);
}

/*
 * Version @v's runs made in a LAVA lab: the missing ones submitted at once
 * (repeats numbered from @next, spread over the lab's devices as 'latwatt
 * lab submit' spreads them), waited for and fetched into its directory
 * @dir.  Their jobs file is @dir/jobs-pending.json until they are fetched,
 * then jobs-NN.json: started again, the bisect waits for pending jobs
 * rather than submitting them again.  A job that gave no run (boot
 * failure, timeout, infrastructure error) or a run that is not complete
 * skips the version: @dir/skipped holds why, and it stays skipped.
 */
static int lava_runs(struct bisect *b, size_t v, const char *dir, int have, unsigned next,
		     unsigned want)
{
	const struct params *p = b->p;
	const char *ver = b->versions[v], *base = strrchr(dir, '/') + 1;
	char pending[PATH_MAX + 32], path[PATH_MAX + 32], runs[PATH_MAX];
	struct lw_lab_kernel k[1];
	size_t nk = 0;
	int rc;

	snprintf(pending, sizeof(pending), "%s/jobs-pending.json", dir);
	if (access(pending, F_OK)) {
		struct lw_lab_job job = { .name = base };
		struct lw_lava l;
		char *file;

		if ((unsigned)have >= want)
			return have;
		if (!(file = expand(p->lava_job, ver, NULL)))
			return error("out of memory");
		job.file = file;
		if (!(job.def = lw_lab_job_read(file, "{version}", ver)) ||
		    lw_lava_init(&l, p->url, p->token_file, p->lab) < 0) {
			free(job.def);
			free(file);
			return -1;
		}
		if (!p->quiet && !p->json)
			fprintf(stderr, "bisect: %s: %u jobs in lab %s ...\n", ver, want - (unsigned)have,
				l.lab);
		rc = lw_lab_submit(&l, &job, 1, next, want - (unsigned)have, pending);
		lw_lava_free(&l);
		free(job.def);
		free(file);
		if (rc < 0)
			return -1;
		blog(b, "lava %s: %u jobs submitted (%s)", ver, want - (unsigned)have, pending);
	}
	rc = lw_lab_wait(pending, p->token_file, p->lab_timeout_ns, p->lab_interval_ns,
			 &interrupted);
	if (rc == LW_EXIT_ERROR)
		return -1;
	snprintf(runs, sizeof(runs), "%s/runs", p->out);
	if (lw_lab_fetch_runs(pending, runs, p->token_file, k, 1, &nk) < 0)
		return -1;
	for (unsigned i = 1;; i++) {
		snprintf(path, sizeof(path), "%s/jobs-%02u.json", dir, i);
		if (access(path, F_OK))
			break;
	}
	if (rename(pending, path) < 0)
		return error_errno("cannot rename %s", pending);
	b->runs_made += nk ? (unsigned)k[0].runs : 0;
	have = list_runs(b, v, NULL, 0, &next);
	if (!nk || k[0].runs < k[0].jobs || (unsigned)have < want) {
		char why[600];
		FILE *f;

		if (nk && k[0].runs < k[0].jobs)
			snprintf(why, sizeof(why), "%zu of %zu jobs gave no run: %s",
				 k[0].jobs - k[0].runs, k[0].jobs, k[0].why);
		else
			snprintf(why, sizeof(why), "%u runs fetched, %d complete", want, have);
		snprintf(path, sizeof(path), "%s/skipped", dir);
		if (!(f = lw_fcreate(path, 0644)))
			return -1;
		fprintf(f, "%s\n", why);
		if (fclose(f) == EOF)
			return error_errno("cannot write %s", path);
		blog(b, "skip %s: no result (%s): neither good nor bad", ver, why);
		return LW_BISECT_CANNOT_RUN;
	}
	blog(b, "lava %s: %zu runs fetched (%s)", ver, k[0].runs, path);
	return have;
}

static int ensure_runs(void *ctx, size_t v, unsigned want)
{
	struct bisect *b = ctx;
	char dir[PATH_MAX], out[PATH_MAX + 16], logpath[PATH_MAX + 32];
	unsigned next, fails = 0;
	int have, dfd;

	version_dir(b, v, dir, sizeof(dir));
	dfd = lw_mkdir_at(LW_AT_PATH, dir, 0755);
	if (dfd < 0)
		return -1;
	have = list_runs(b, v, NULL, 0, &next);
	if (b->p->runner == RUNNER_LAVA) {
		snprintf(out, sizeof(out), "%s/skipped", dir);
		have = access(out, F_OK) ? lava_runs(b, v, dir, have, next, want) :
		       LW_BISECT_CANNOT_RUN;
		close(dfd);
		return have;
	}
	while ((unsigned)have < want) {
		time_t t0 = time(NULL);
		int rc;

		if (interrupted) {
			have = error("interrupted by %s", strsignal(interrupted));
			break;
		}
		snprintf(out, sizeof(out), "%s/run-%02u", dir, next);
		snprintf(logpath, sizeof(logpath), "%s/run-%02u.log", dir, next);
		if (!b->p->quiet && !b->p->json)
			fprintf(stderr, "bisect: %s: run %d of %u ...\n", b->versions[v], have + 1, want);
		rc = make_run(b, v, out, logpath);
		b->runs_made++;
		if (rc == 0 && is_complete_run(out)) {
			blog(b, "run %s %s complete %lds", b->versions[v], out, (long)(time(NULL) - t0));
			have++;
		} else {
			char name[32], failed[32];

			/* kept for whoever looks, out of the way of the next run (in
			 * the version's directory as it was opened) */
			snprintf(name, sizeof(name), "run-%02u", next);
			snprintf(failed, sizeof(failed), "failed-%02u", next);
			if (renameat(dfd, name, dfd, failed) < 0 && errno != ENOENT) {
				have = error_errno("cannot move %s aside", out);
				break;
			}
			blog(b, "run %s %s failed (exit %d, see %s)", b->versions[v], out, rc, logpath);
			if (interrupted) {
				have = error("interrupted by %s", strsignal(interrupted));
				break;
			}
			if (++fails == 3) {
				have = error("three runs of %s failed in a row (see %s)",
					     b->versions[v], logpath);
				break;
			}
		}
		next++;
	}
	close(dfd);
	return have;
}

/* ------------------------------------------------------------ judging */

static void free_runs(struct lw_crun *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		lw_crun_free(&r[i]);
	free(r);
}

/* Load the runs of @base then @v; the comparison of @v against @base. */
static json_t *compare_versions(struct bisect *b, size_t base, size_t v)
{
	char *paths[2][LW_CMP_MAX_GROUP_RUNS];
	int n[2];
	unsigned next;
	size_t total = 0, k = 0;
	struct lw_crun *runs;
	struct lw_cgroup groups[2];
	struct lw_cmp_opts o;
	json_t *doc = NULL;

	n[0] = list_runs(b, base, paths[0], LW_CMP_MAX_GROUP_RUNS, &next);
	n[1] = list_runs(b, v, paths[1], LW_CMP_MAX_GROUP_RUNS, &next);
	for (int g = 0; g < 2; g++) {
		if (n[g] > LW_CMP_MAX_GROUP_RUNS)
			n[g] = LW_CMP_MAX_GROUP_RUNS;
		total += (size_t)n[g];
	}
	runs = calloc(total ? total : 1, sizeof(*runs));
	if (!runs) {
		error("out of memory");
		goto out;
	}
	for (int g = 0; g < 2; g++) {
		groups[g].name = b->versions[g ? v : base];
		groups[g].first = k;
		groups[g].n = (size_t)n[g];
		for (int i = 0; i < n[g]; i++, k++)
			if (lw_crun_load_dir(&runs[k], paths[g][i]) < 0) {
				free_runs(runs, k);
				goto out;
			}
	}
	lw_cmp_opts_default(&o);
	o.alpha = b->p->alpha;
	doc = lw_compare_groups(runs, groups, 2, 0, &o);
	free_runs(runs, k);
out:
	for (int g = 0; g < 2; g++)
		for (int i = 0; i < n[g] && i < LW_CMP_MAX_GROUP_RUNS; i++)
			free(paths[g][i]);
	return doc;
}

static int judge(void *ctx, size_t base, size_t v, int *worse)
{
	struct bisect *b = ctx;
	json_t *doc = compare_versions(b, base, v);
	int failed;

	if (!doc)
		return -1;
	failed = lw_rules_eval(b->rules, b->nrules, doc);
	b->judgements++;
	if (failed < 0) {
		json_decref(doc);
		return -1;
	}
	*worse = failed > 0;
	blog(b, "judge %s against %s: %s", b->versions[v], b->versions[base],
	     *worse ? "worse" : "not worse");
	json_decref(doc);
	return 0;
}

/* ------------------------------------------------------------ result */

static json_t *result_json(struct bisect *b, const struct lw_bisect_result *r, double secs)
{
	json_t *o = json_object(), *steps = json_array();

	json_object_set_new(o, "schema", json_string("latwatt-bisect"));
	json_object_set_new(o, "version", json_integer(1));
	json_object_set_new(o, "status", json_string(lw_bisect_status_name(r->status)));
	json_object_set_new(o, "good", json_string(b->p->good));
	json_object_set_new(o, "bad", json_string(b->p->bad));
	json_object_set_new(o, "last_good", json_string(b->versions[r->last_good]));
	json_object_set_new(o, "first_bad", r->status == LW_BISECT_FOUND ||
			    r->status == LW_BISECT_ONLY_SKIPPED ?
			    json_string(b->versions[r->first_bad]) : json_null());
	json_object_set_new(o, "undecided", r->status == LW_BISECT_UNDECIDED ?
			    json_string(b->versions[r->undecided]) : json_null());
	{
		/* the versions that gave no result; with only those left, the
		 * first bad is one of them or first_bad */
		json_t *sk = json_array(), *cand = json_array();

		for (size_t i = 0; i < r->nsteps; i++)
			if (r->steps[i].cls == LW_BISECT_SKIPPED)
				json_array_append_new(sk, json_string(b->versions[r->steps[i].version]));
		if (r->status == LW_BISECT_ONLY_SKIPPED)
			for (size_t v = r->last_good + 1; v <= r->first_bad; v++)
				json_array_append_new(cand, json_string(b->versions[v]));
		json_object_set_new(o, "skipped", sk);
		json_object_set_new(o, "first_bad_among", cand);
	}
	json_object_set_new(o, "endpoint_runs", json_integer(r->endpoint_runs));
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct lw_bisect_step *s = &r->steps[i];

		json_array_append_new(steps, json_pack("{s:s, s:s, s:i, s:b, s:b}",
			"version", b->versions[s->version],
			"class", lw_bisect_class_name(s->cls),
			"runs", (int)s->runs,
			"worse_than_good", s->worse_than_good,
			"bad_worse", s->bad_worse));
	}
	json_object_set_new(o, "steps", steps);
	json_object_set_new(o, "runs_made", json_integer(b->runs_made));
	json_object_set_new(o, "runs_total", json_integer(0));
	json_object_set_new(o, "judgements", json_integer(b->judgements));
	json_object_set_new(o, "seconds", json_real(secs));
	{
		unsigned next, total = 0;

		for (size_t v = 0; v < b->nv; v++)
			total += (unsigned)list_runs(b, v, NULL, 0, &next);
		json_object_set_new(o, "runs_total", json_integer(total));
	}
	return o;
}

static void print_result(const struct bisect *b, const json_t *res, FILE *f)
{
	const json_t *steps = json_object_get(res, "steps");
	const char *st = json_string_value(json_object_get(res, "status"));
	size_t i;
	json_t *s;

	fprintf(f, "bisect %s .. %s over %zu versions, rules:", b->p->good, b->p->bad, b->nv);
	for (i = 0; i < b->p->nrules; i++)
		fprintf(f, " %s", b->p->rule_text[i]);
	fprintf(f, "\n  endpoints: %s worse than %s with %lld runs each\n", b->p->bad, b->p->good,
		(long long)json_integer_value(json_object_get(res, "endpoint_runs")));
	json_array_foreach(steps, i, s)
		if (json_integer_value(json_object_get(s, "runs")))
			fprintf(f, "  step %zu: %-32s %s (%lld runs)\n", i + 1,
				json_string_value(json_object_get(s, "version")),
				json_string_value(json_object_get(s, "class")),
				(long long)json_integer_value(json_object_get(s, "runs")));
		else
			fprintf(f, "  step %zu: %-32s %s: its jobs failed, neither good nor bad\n",
				i + 1, json_string_value(json_object_get(s, "version")),
				json_string_value(json_object_get(s, "class")));
	if (!strcmp(st, "found"))
		fprintf(f, "first bad version: %s (last good: %s)\n",
			json_string_value(json_object_get(res, "first_bad")),
			json_string_value(json_object_get(res, "last_good")));
	else if (!strcmp(st, "only skipped left")) {
		fprintf(f, "cannot tell which is first: between %s (good) and %s (bad) only versions "
			"that gave no result are left; the first bad version is one of:",
			json_string_value(json_object_get(res, "last_good")),
			json_string_value(json_object_get(res, "first_bad")));
		json_array_foreach(json_object_get(res, "first_bad_among"), i, s)
			fprintf(f, " %s", json_string_value(s));
		fprintf(f, "\n");
	} else if (!strcmp(st, "no difference"))
		fprintf(f, "%s is not worse than %s by the rules with %lld runs each: nothing to bisect\n",
			b->p->bad, b->p->good,
			(long long)json_integer_value(json_object_get(res, "endpoint_runs")));
	else
		fprintf(f, "cannot tell at %s with %u runs: more runs (--max-repeat), or the change is "
			"smaller than these runs can show, or there is more than one\n",
			json_string_value(json_object_get(res, "undecided")), b->p->max_repeat);
	fprintf(f, "%lld runs in all (%lld made now), %.0f s\n",
		(long long)json_integer_value(json_object_get(res, "runs_total")),
		(long long)json_integer_value(json_object_get(res, "runs_made")),
		json_number_value(json_object_get(res, "seconds")));
}

/* ------------------------------------------------------------ command */

/* Good and bad among the versions and in order, the rules well formed. */
static int check(const struct params *p, char **versions, size_t nv)
{
	struct lw_rule r;
	int good, bad;

	if ((good = index_of(versions, nv, "good", p->good)) < 0 ||
	    (bad = index_of(versions, nv, "bad", p->bad)) < 0)
		return -1;
	if (good >= bad)
		return error("--good %s must come before --bad %s in the versions", p->good, p->bad);
	for (size_t i = 0; i < p->nrules; i++)
		if (lw_rule_parse(p->rule_text[i], &r) < 0)
			return -1;
	return 0;
}

static int setup_dir(struct params *p, char ***versions, size_t *nv, json_t **saved)
{
	char path[PATH_MAX];
	json_t *want;

	snprintf(path, sizeof(path), "%s/bisect.json", p->out);
	if (!access(path, F_OK)) {
		*saved = lw_json_load(path);
		if (!*saved)
			return -1;
		if (!p->good && !p->bad && !p->versions_arg && !p->nrules) {
			/* resume with what the directory says */
			if (params_from_json(p, *saved, path) < 0)
				return -1;
			*nv = json_array_size(json_object_get(*saved, "versions"));
			if (!*nv || *nv > MAX_VERSIONS)
				return error("%s: versions: 1 to %d", path, MAX_VERSIONS);
			*versions = calloc(*nv, sizeof(char *));
			if (!*versions)
				return error("out of memory");
			for (size_t i = 0; i < *nv; i++) {
				const char *s = json_string_value(
					json_array_get(json_object_get(*saved, "versions"), i));

				if (!s)
					return error("%s: versions[%zu] is not a string", path, i);
				(*versions)[i] = strdup(s);
			}
			return check(p, *versions, *nv);
		}
	}
	if (!p->good || !p->bad || !p->versions_arg)
		return error("--good, --bad and --versions are required for a new bisect");
	if (!p->nrules)
		p->rule_text[p->nrules++] = DEFAULT_RULE;
	if (load_versions(p->versions_arg, versions, nv) < 0 || check(p, *versions, *nv) < 0)
		return -1;
	want = params_json(p, *versions, *nv);
	if (*saved) {
		/* the same bisect again: go on; another one: refuse */
		if (!json_equal(want, *saved)) {
			json_decref(want);
			return error("%s holds a bisect with other parameters: use another -o, or "
				     "'latwatt bisect -o %s' alone to resume it", p->out, p->out);
		}
		json_decref(want);
		return 0;
	}
	if (lw_mkdir(p->out, 0755) < 0) {
		json_decref(want);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/runs", p->out);
	if (lw_mkdir(path, 0755) < 0 ||
	    lw_json_save(want, (snprintf(path, sizeof(path), "%s/bisect.json", p->out), path)) < 0) {
		json_decref(want);
		return -1;
	}
	json_decref(want);
	return 0;
}

int cmd_bisect(int argc, char **argv)
{
	struct params p = { 0 };
	struct bisect b = { .p = &p };
	struct lw_bisect_result res;
	static const struct lw_bisect_ops ops = { ensure_runs, judge };
	struct sigaction sa = { .sa_handler = on_signal };
	json_t *saved = NULL, *result = NULL;
	char path[PATH_MAX];
	int rc = LW_EXIT_ERROR, r, good, bad;
	struct timespec t0, t1;
	ssize_t sl;

	r = parse(&p, argc, argv);
	if (r > 0) {
		fputs(usage, stdout);
		return LW_EXIT_OK;
	}
	if (r < 0)
		return LW_EXIT_ERROR;
	if (setup_dir(&p, &b.versions, &b.nv, &saved) < 0)
		goto out;
	for (size_t i = 0; i < p.nrules; i++) {
		if (lw_rule_parse(p.rule_text[i], &b.rules[i]) < 0)
			goto out;
		b.nrules++;
	}
	good = index_of(b.versions, b.nv, "good", p.good);	/* checked by setup_dir */
	bad = index_of(b.versions, b.nv, "bad", p.bad);
	sl = readlink("/proc/self/exe", b.self, sizeof(b.self) - 1);
	if (sl <= 0) {
		error_errno("cannot find this binary (/proc/self/exe)");
		goto out;
	}
	b.self[sl] = '\0';
	snprintf(path, sizeof(path), "%s/bisect.log", p.out);
	b.log = lw_fappend(path, 0644, &r);
	if (!b.log)
		goto out;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	blog(&b, "start %s .. %s, %zu versions between, %s", p.good, p.bad, (size_t)(bad - good - 1),
	     saved ? "resumed" : "new");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (lw_bisect(b.nv, (size_t)good, (size_t)bad, p.repeat, p.max_repeat, &ops, &b, &res) < 0) {
		if (interrupted) {
			blog(&b, "interrupted by %s: run it again to go on", strsignal(interrupted));
			rc = 128 + interrupted;
		}
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	result = result_json(&b, &res, (double)(t1.tv_sec - t0.tv_sec) +
			     (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	/* The evidence: last good against first bad, with the rules judged. */
	if (res.status == LW_BISECT_FOUND || res.status == LW_BISECT_UNDECIDED) {
		size_t lo = res.last_good, hi = res.status == LW_BISECT_FOUND ? res.first_bad : res.undecided;

		b.evidence = compare_versions(&b, lo, hi);
		if (b.evidence) {
			lw_rules_eval(b.rules, b.nrules, b.evidence);
			snprintf(path, sizeof(path), "%s/comparison.json", p.out);
			if (lw_json_save(b.evidence, path) < 0)
				goto out;
			json_object_set_new(result, "evidence", json_string("comparison.json"));
		}
	}
	snprintf(path, sizeof(path), "%s/result.json", p.out);
	if (lw_json_save(result, path) < 0)
		goto out;
	blog(&b, "result %s: %s", lw_bisect_status_name(res.status),
	     res.status == LW_BISECT_FOUND ? b.versions[res.first_bad] :
	     res.status == LW_BISECT_UNDECIDED ? b.versions[res.undecided] : "-");
	if (p.json) {
		json_dumpf(result, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
		fputc('\n', stdout);
	} else {
		if (b.evidence) {
			printf("evidence (%s against %s):\n", b.versions[res.status == LW_BISECT_FOUND ?
				res.first_bad : res.undecided], b.versions[res.last_good]);
			lw_compare_print(b.evidence, stdout);
		}
		print_result(&b, result, stdout);
	}
	rc = res.status == LW_BISECT_FOUND ? LW_EXIT_OK : LW_EXIT_FAIL;
out:
	if (b.log)
		fclose(b.log);
	json_decref(b.evidence);
	json_decref(result);
	json_decref(saved);
	if (b.versions)
		for (size_t i = 0; i < b.nv; i++)
			free(b.versions[i]);
	free(b.versions);
	if (p.own_run_args)
		free(p.run_args);
	return rc;
}

// SPDX-License-Identifier: GPL-2.0-only
/* latwatt run --repeat auto: a look after each run (cmd/runauto.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/runauto.h"
#include "lib/error.h"
#include "lib/json.h"
#include "lib/parse.h"
#include "lib/rundir.h"

int lw_auto_prepare(struct lw_auto *a, const struct lw_run_opts *o)
{
	char **refs = NULL;
	size_t nref = 0;
	int ret = -1;

	memset(a, 0, sizeof(*a));
	lw_seq_design_default(&a->d);
	a->d.spend = (enum lw_seq_spend)o->spending;
	a->d.alpha = o->alpha;
	a->d.practical = o->practical;
	a->d.min_runs = o->min_runs;
	a->d.max_runs = o->max_runs;
	a->d.metrics = o->decide_on;
	a->d.nmetrics = (size_t)o->ndecide;
	if (lw_seq_design_check(&a->d) < 0)
		return -1;
	/* compare's defaults: samples above 50 and 100 us counted */
	lw_cmp_opts_default(&a->co);
	lw_cmp_add_threshold(&a->co, 50 * LW_NSEC_PER_USEC);
	lw_cmp_add_threshold(&a->co, 100 * LW_NSEC_PER_USEC);
	a->co.alpha = a->d.alpha;
	a->co.practical = a->d.practical;

	if (lw_repeat_list(o->against, &refs, &nref) < 0)
		return -1;
	a->nbase = nref ? nref : 1;
	if (a->nbase > LW_CMP_MAX_GROUP_RUNS || o->max_runs > LW_CMP_MAX_GROUP_RUNS) {
		error("--against %s: at most %d runs a side", o->against, LW_CMP_MAX_GROUP_RUNS);
		goto out;
	}
	a->runs = calloc(a->nbase + o->max_runs, sizeof(*a->runs));
	if (!a->runs) {
		error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < a->nbase; i++)
		if (lw_crun_load_dir(&a->runs[i], nref ? refs[i] : o->against) < 0) {
			a->nbase = i;
			goto out;
		}
	a->seq = json_pack("{s:s, s:s, s:f, s:f, s:I, s:I, s:s, s:I, s:[], s:s, s:n}",
		"method", "group-sequential: the alpha of each look spent from --alpha (Lan-DeMets "
			  "spending function), a false verdict at any look at most their sum (union "
			  "bound); no change that matters: two one-sided tests at the look's alpha",
		"spending", lw_seq_spend_name(a->d.spend), "alpha", a->d.alpha,
		"practical", a->d.practical, "min_runs", (json_int_t)a->d.min_runs,
		"max_runs", (json_int_t)a->d.max_runs, "against", o->against,
		"baseline_runs", (json_int_t)a->nbase, "looks", "decision", "running", "reason");
	if (a->d.nmetrics) {
		json_t *m = json_array();

		for (size_t i = 0; i < a->d.nmetrics; i++)
			json_array_append_new(m, json_string(a->d.metrics[i]));
		json_object_set_new(a->seq, "decide_on", m);
	} else {
		json_object_set_new(a->seq, "decide_on", json_null());
	}
	note("--repeat auto: against %zu run%s of %s, %u to %u runs, alpha %g spent over the "
	     "looks (%s)", a->nbase, a->nbase == 1 ? "" : "s", o->against, a->d.min_runs,
	     a->d.max_runs, a->d.alpha, lw_seq_spend_name(a->d.spend));
	ret = 0;
out:
	for (size_t i = 0; i < nref; i++)
		free(refs[i]);
	free(refs);
	return ret;
}

int lw_auto_look(struct lw_auto *a, const char *path)
{
	json_t *doc = NULL;
	char line[512];

	if (a->n == a->d.max_runs)
		return error("--repeat auto: more runs than --max-runs");
	if (lw_crun_load_dir(&a->runs[a->nbase + a->n], path) < 0)
		return -1;
	a->n++;
	if (a->n < a->d.min_runs)
		return 0;
	if (lw_seq_look(&a->d, a->runs, a->nbase, a->n, &a->co, &a->last, &doc) < 0)
		return -1;
	if (a->n == a->d.min_runs && lw_seq_check_metrics(&a->d, doc) < 0) {
		json_decref(doc);
		return error("--decide-on: %s", lw_last_error());
	}
	json_decref(doc);
	json_array_append_new(json_object_get(a->seq, "looks"), lw_seq_look_json(&a->last));
	lw_seq_line(&a->last, line, sizeof(line));
	note("look after %u run%s (alpha %.2g): %s", a->last.runs, a->last.runs == 1 ? "" : "s",
	     a->last.alpha_k, line);
	if (a->last.decision == LW_SEQ_DIFFERENT && !a->last.worse && !a->st.have_better)
		note("found better and nothing worse: the runs go on, looking for worse");
	return lw_seq_next(&a->d, &a->st, &a->last);
}

int lw_auto_finish(struct lw_auto *a, int ret)
{
	char line[512];
	int status;

	const struct lw_seq_look *f = &a->st.final;

	if (ret == LW_EXIT_OK && a->st.stopped) {
		lw_seq_line(f, line, sizeof(line));
		if (f->runs < a->n) {	/* better, and the runs went on looking for worse */
			size_t l = strlen(line);

			snprintf(line + l, sizeof(line) - l, "; nothing worse in %zu runs", a->n);
		}
		json_object_set_new(a->seq, "decision", json_string(lw_seq_decision_name(f->decision)));
		json_object_set_new(a->seq, "worse", json_boolean(f->decision == LW_SEQ_DIFFERENT &&
								  f->worse));
		status = f->decision == LW_SEQ_DIFFERENT && f->worse ? LW_EXIT_FAIL : LW_EXIT_OK;
	} else {
		/* stopped before the design ended: what was measured stays */
		int l = snprintf(line, sizeof(line), "not decided: %s after %zu complete run%s",
				 ret >= 128 ? "interrupted" : "stopped by an error", a->n,
				 a->n == 1 ? "" : "s");

		if (a->last.runs && l > 0 && (size_t)l + 20 < sizeof(line)) {
			l += snprintf(line + l, sizeof(line) - (size_t)l, " (the last look: ");
			lw_seq_line(&a->last, line + l, sizeof(line) - (size_t)l - 1);
			strcat(line, ")");
		}
		json_object_set_new(a->seq, "decision", json_string(ret >= 128 ? "interrupted" :
								       "error"));
		status = ret == LW_EXIT_OK ? LW_EXIT_ERROR : ret;
	}
	json_object_set_new(a->seq, "reason", json_string(line));
	json_object_set_new(a->seq, "runs", json_integer((json_int_t)a->n));
	json_object_set_new(a->seq, "exit_status", json_integer(status));
	printf("%s\n", line);
	fflush(stdout);
	return status;
}

void lw_auto_free(struct lw_auto *a)
{
	for (size_t i = 0; a->runs && i < a->nbase + a->n; i++)
		lw_crun_free(&a->runs[i]);
	free(a->runs);
	json_decref(a->seq);
	memset(a, 0, sizeof(*a));
}

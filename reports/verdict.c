// SPDX-License-Identifier: GPL-2.0-only
/*
 * The verdict block: at most five lines that open every view of a run (the
 * text of `analyze`, the HTML report, the Markdown summary), worded once
 * here from the verdict of analysis/verdict.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "reports/report.h"

static const char *const result_words[] = { [LW_PASS] = "PASS", [LW_FAIL] = "FAIL",
					     [LW_SKIP] = "" };

/* "2224.0 us", "12.3 ms", "7.0 s": a latency people read at a glance. */
static const char *human_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns < 10000000)
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	else if (ns < 10000000000ULL)
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", (double)ns / 1e9);
	return buf;
}

/* " (pid 57, not this run)", " (pid 4242, load hackbench)", "" */
static void task_note(const struct lw_worst *w, char *buf, size_t len)
{
	buf[0] = 0;
	if (w->pid < 0 && w->ours < 0)
		return;
	snprintf(buf, len, " (%s%.0d%s%s)", w->pid >= 0 ? "pid " : "", w->pid >= 0 ? w->pid : 0,
		 w->pid >= 0 && w->ours >= 0 ? ", " : "",
		 w->ours == 0 ? "not this run" : w->ours == 1 ? (w->task_role[0] ? w->task_role :
								 "this run") : "");
}

static void deadline_line(const struct lw_deadline *d, struct lw_vline *l)
{
	char cause[256] = "";

	snprintf(l->label, sizeof(l->label), "%s", d->workload);
	snprintf(l->result, sizeof(l->result), "%s", result_words[d->result]);
	if (d->misses > 0 && d->cause[0])
		snprintf(cause, sizeof(cause), "; main cause %s (%" PRId64 " of %" PRId64 ")",
			 d->cause, d->cause_misses, d->misses);
	else if (d->misses > 0 && d->explained == 0)
		snprintf(cause, sizeof(cause), "; no spike in the trace explains them");
	if (d->misses < 0)
		snprintf(l->text, sizeof(l->text), "%s unknown", d->noun);
	else if (d->total >= 0)
		snprintf(l->text, sizeof(l->text), "%" PRId64 " %s in %" PRId64 " %s%s%s%s%s",
			 d->misses, d->noun, d->total, d->unit, d->check[0] ? " (" : "",
			 d->check, d->check[0] ? ")" : " (no budget)", cause);
	else
		snprintf(l->text, sizeof(l->text), "%" PRId64 " %s%s%s%s%s", d->misses, d->noun,
			 d->check[0] ? " (" : "", d->check, d->check[0] ? ")" : " (no budget)", cause);
}

static void worst_line(const struct lw_worst *w, struct lw_vline *l)
{
	char lat[32], where[96], task[96];

	snprintf(l->label, sizeof(l->label), "worst");
	human_ns(w->latency_ns, lat, sizeof(lat));
	snprintf(where, sizeof(where), "%s", w->probe);
	if (w->cpu >= 0)
		snprintf(where + strlen(where), sizeof(where) - strlen(where), ", CPU %d", w->cpu);
	if (w->at_ns >= 0)
		snprintf(where + strlen(where), sizeof(where) - strlen(where), ", at %.2f s",
			 (double)w->at_ns / 1e9);
	task_note(w, task, sizeof(task));
	snprintf(l->text, sizeof(l->text), "%s (%s): %s%s", lat, where,
		 w->cause[0] ? w->cause : w->why[0] ? w->why : "cause unknown", task);
}

size_t lw_verdict_lines(const struct lw_run_verdict *v, struct lw_vline *out)
{
	size_t n = 0, room, shown = 0, listed = 0;
	char *t;

	memset(out, 0, LW_VERDICT_LINES * sizeof(*out));
	snprintf(out[0].label, sizeof(out[0].label), "verdict");
	snprintf(out[0].result, sizeof(out[0].result), "%s", lw_outcome_word(v->outcome));
	t = out[0].text;
	switch (v->outcome) {
	case LW_OUTCOME_FAIL:
		snprintf(t, sizeof(out[0].text), "%zu of %zu checks broken%s%s", v->nbroken,
			 v->nchecks, v->reason[0] ? "; and " : "", v->reason);
		break;
	case LW_OUTCOME_INCOMPLETE:
		snprintf(t, sizeof(out[0].text), "%s", v->reason);
		break;
	case LW_OUTCOME_PASS:
		snprintf(t, sizeof(out[0].text), "%zu of %zu checks met%s", v->nchecks - v->nskipped,
			 v->nchecks, v->nskipped ? ", the others not measured in this run" : "");
		break;
	case LW_OUTCOME_NONE:
		snprintf(t, sizeof(out[0].text), v->nchecks ?
			 "no check could be judged: what they name was not measured in this run" :
			 "nothing was asked: no budget or threshold applies (give --budget or "
			 "--threshold, a scenario or a board with budgets)");
		break;
	}
	n = 1;
	/* the broken checks not shown on a workload's line */
	for (size_t i = 0; i < v->nbroken && i < LW_VERDICT_BROKEN; i++) {
		int on_line = 0;

		for (size_t k = 0; k < v->ndl; k++)
			if (v->dl[k].result == LW_FAIL && v->dl[k].check[0] &&
			    !strncmp(v->broken[i], v->dl[k].check, strcspn(v->dl[k].check, ",")))
				on_line = 1;
		listed += !on_line;
	}
	room = LW_VERDICT_LINES - 1 - (v->worst.have ? 1 : 0) - (listed ? 1 : 0);
	for (size_t k = 0; k < v->ndl; k++) {
		if (n == 1 + room - 1 && v->ndl_total > room) {
			int64_t misses = 0;

			for (size_t j = k; j < v->ndl; j++)
				misses += v->dl[j].misses > 0 ? v->dl[j].misses : 0;
			snprintf(out[n].label, sizeof(out[n].label), "others");
			snprintf(out[n].text, sizeof(out[n].text), "%zu more workloads with deadlines "
				 "(%" PRId64 " misses among the first %zu shown in the details)",
				 v->ndl_total - shown, misses, v->ndl - shown);
			n++;
			break;
		}
		deadline_line(&v->dl[k], &out[n++]);
		shown++;
	}
	if (v->worst.have)
		worst_line(&v->worst, &out[n++]);
	if (listed) {
		size_t len = sizeof(out[n].text), used = 0, k = 0;

		snprintf(out[n].label, sizeof(out[n].label), "broken");
		snprintf(out[n].result, sizeof(out[n].result), "FAIL");
		for (size_t i = 0; i < v->nbroken && i < LW_VERDICT_BROKEN; i++) {
			int on_line = 0;

			for (size_t d = 0; d < v->ndl; d++)
				if (v->dl[d].result == LW_FAIL && v->dl[d].check[0] &&
				    !strncmp(v->broken[i], v->dl[d].check,
					     strcspn(v->dl[d].check, ",")))
					on_line = 1;
			if (on_line)
				continue;
			used += (size_t)snprintf(out[n].text + used, used < len ? len - used : 0,
						 "%s%s", k++ ? "; " : "", v->broken[i]);
		}
		if (v->nbroken > LW_VERDICT_BROKEN && used < len)
			snprintf(out[n].text + used, len - used, "; and %zu more",
				 v->nbroken - LW_VERDICT_BROKEN);
		n++;
	}
	return n;
}

void lw_verdict_print(FILE *f, const struct lw_run_verdict *v)
{
	struct lw_vline l[LW_VERDICT_LINES];
	size_t n = lw_verdict_lines(v, l);

	fprintf(f, "%s: %s", l[0].result, l[0].text);
	fputc('\n', f);
	for (size_t i = 1; i < n; i++)
		fprintf(f, "  %-8s %-4s %s\n", l[i].label, l[i].result, l[i].text);
}

int lw_verdict_check(const struct lw_run_verdict *v, struct lw_checks *out)
{
	struct lw_check c = { .suite = "verdict", .name = "verdict", .unit = "count" };
	struct lw_vline l[LW_VERDICT_LINES];
	size_t n = lw_verdict_lines(v, l), used;

	c.result = v->outcome == LW_OUTCOME_PASS ? LW_PASS : v->outcome == LW_OUTCOME_NONE ?
		   LW_SKIP : LW_FAIL;
	c.measured = (double)v->nbroken;
	c.limit = 0;
	snprintf(c.rule, sizeof(c.rule), "%s", l[0].result);
	used = (size_t)snprintf(c.message, sizeof(c.message), "%s: %s", l[0].result, l[0].text);
	for (size_t i = 1; i < n && used < sizeof(c.message); i++)
		used += (size_t)snprintf(c.message + used, sizeof(c.message) - used, "; %s %s%s%s",
					 l[i].label, l[i].result, l[i].result[0] ? " " : "",
					 l[i].text);
	return lw_checks_add(out, &c);
}

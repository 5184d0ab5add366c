// SPDX-License-Identifier: GPL-2.0-only
/* latwatt tune: front, recommendation, script (analysis/tune.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/tune.h"
#include "lib/error.h"

void lw_tune_cand_name(const int level[LW_TK_N], char *buf, size_t len)
{
	size_t l = 0;

	buf[0] = 0;
	for (int i = 0; i < LW_TK_N && l < len; i++) {
		if (!level[i])
			continue;
		if (lw_tunables[i].costs_power && i != LW_TK_GOVERNOR)
			l += (size_t)snprintf(buf + l, len - l, "%s%s %d", l ? " + " : "",
					      lw_tunables[i].name, level[i]);
		else
			l += (size_t)snprintf(buf + l, len - l, "%s%s", l ? " + " : "",
					      lw_tunables[i].name);
	}
	if (!buf[0])
		snprintf(buf, len, "as found");
}

static int dominates(const struct lw_tune_cand *a, const struct lw_tune_cand *b)
{
	return a->lat <= b->lat && a->power_w <= b->power_w &&
	       (a->lat < b->lat || a->power_w < b->power_w);
}

static int nknobs(const struct lw_tune_cand *c)
{
	int n = 0;

	for (int k = 0; k < LW_TK_N; k++)
		n += c->level[k] != 0;
	return n;
}

/* Is @a's power lower than @b's, told apart (analysis/tune.h)? */
static int power_below(const struct lw_tune_cand *a, const struct lw_tune_cand *b)
{
	if (b->power_w - a->power_w <= LW_TUNE_POWER_TIE * fmax(a->power_w, b->power_w))
		return 0;
	return !isnan(a->power_hi) && !isnan(b->power_lo) && a->power_hi < b->power_lo;
}

/* @a before @b as the recommendation. */
static int less_power(const struct lw_tune_cand *a, const struct lw_tune_cand *b)
{
	if (isnan(a->power_w) || isnan(b->power_w))
		return !isnan(a->power_w) && isnan(b->power_w);
	if (power_below(a, b))
		return 1;
	if (power_below(b, a))
		return 0;
	return nknobs(a) < nknobs(b);
}

void lw_tune_finish(struct lw_tune_result *r)
{
	r->recommended = r->best = -1;
	r->undecided = 0;
	for (int i = 0; i < r->n; i++) {
		struct lw_tune_cand *c = &r->c[i];

		r->undecided += c->dec != LW_BSEQ_FAIL && c->dec != LW_BSEQ_PASS &&
				!c->worse_than_best;

		c->front = !isnan(c->lat) && !isnan(c->power_w);
		for (int j = 0; c->front && j < r->n; j++)
			if (j != i && !isnan(r->c[j].lat) && !isnan(r->c[j].power_w) &&
			    dominates(&r->c[j], c))
				c->front = 0;
	}
	for (int i = 0; i < r->n; i++) {
		const struct lw_tune_cand *c = &r->c[i];
		int k = r->recommended;

		if (c->dec == LW_BSEQ_PASS && (k < 0 || less_power(c, &r->c[k])))
			r->recommended = i;
		k = r->best;
		if (!isnan(c->lat) &&
		    (k < 0 || isnan(r->c[k].lat) ||
		     (!isnan(c->lat_hi) && (isnan(r->c[k].lat_hi) || c->lat_hi < r->c[k].lat_hi)) ||
		     (isnan(c->lat_hi) && isnan(r->c[k].lat_hi) && c->lat < r->c[k].lat)))
			r->best = i;
	}
}

int lw_tune_script(const struct lw_tune_sys *s, const int level[LW_TK_N], const char *title,
		   struct lw_sb *b)
{
	char what[256];
	int none = 1;

	lw_sb_add(b, "#!/bin/sh\n# ");
	for (const char *p = title; *p; p++) {	/* one comment line, whatever it holds */
		char ch[2] = { *p == '\n' || *p == '\r' ? ' ' : *p, 0 };

		lw_sb_add(b, ch);
	}
	lw_sb_add(b, "\n# written by latwatt tune; run as root.  The kernel command line that\n"
		  "# sets the same at boot is in cmdline.txt beside this script.\nset -e\n");
	for (int i = 0; i < LW_TK_N; i++) {
		if (!level[i])
			continue;
		none = 0;
		lw_tunables[i].describe(s, level[i], what, sizeof(what));
		lw_sb_add(b, "\n# ");
		lw_sb_add(b, lw_tunables[i].name);
		lw_sb_add(b, ": ");
		lw_sb_add(b, what);
		lw_sb_add(b, "\n");
		lw_tunables[i].script(s, level[i], b);
	}
	if (none)
		lw_sb_add(b, "\n# nothing to change: the system as found meets the budgets\n");
	return lw_sb_str(b) ? 0 : -1;
}

int lw_tune_cmdline(const struct lw_tune_sys *s, const int level[LW_TK_N], struct lw_sb *b)
{
	lw_sb_add(b, "");
	for (int i = 0; i < LW_TK_N; i++)
		if (level[i])
			lw_tunables[i].cmdline(s, level[i], b);
	return lw_sb_str(b) ? 0 : -1;
}

int lw_tune_boot_line(const struct lw_tune_sys *s, const int level[LW_TK_N], struct lw_sb *b)
{
	struct lw_sb w = { 0 };
	int ret = 0;

	if (lw_tune_cmdline(s, level, &w) < 0 || !lw_sb_str(&w)) {
		ret = error("out of memory");
	} else {
		lw_sb_add(b, s->boot_base);
		/* the candidate's words come with a space each: none first */
		lw_sb_add(b, s->boot_base[0] ? w.s : w.s + (w.s[0] == ' '));
		if (!lw_sb_str(b))
			ret = error("out of memory");
	}
	lw_sb_free(&w);
	return ret;
}

static json_t *num(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

json_t *lw_tune_json(const struct lw_tune_result *r, const struct lw_tune_sys *s,
		     const char *verdict)
{
	json_t *cands = json_array(), *front = json_array();

	for (int i = 0; i < r->n; i++) {
		const struct lw_tune_cand *c = &r->c[i];
		json_t *knobs = json_object();

		for (int k = 0; k < LW_TK_N; k++) {
			char what[256];

			if (!c->level[k])
				continue;
			lw_tunables[k].describe(s, c->level[k], what, sizeof(what));
			json_object_set_new(knobs, lw_tunables[k].name,
					    json_pack("{s:i, s:s, s:s}", "level", c->level[k],
						      "what", what, "done", c->done[k]));
		}
		json_array_append_new(cands, json_pack(
			"{s:i, s:s, s:s, s:s, s:o, s:s, s:s, s:s, s:I, s:s, s:s, s:o, s:o, s:o, "
			"s:o, s:o, s:o, s:s, s:b}",
			"index", i, "name", c->name, "dir", c->dir, "why", c->why, "knobs", knobs,
			"decision", lw_bseq_decision_name(c->dec), "reason", c->line,
			"against_best", c->vs_best, "runs", (json_int_t)c->runs,
			"latency_figure", c->lat_name, "latency_unit", c->lat_unit, "latency_us", num(c->lat),
			"latency_lower_us", num(c->lat_lo), "latency_upper_us", num(c->lat_hi),
			"power_w", num(c->power_w), "power_lower_w", num(c->power_lo),
			"power_upper_w", num(c->power_hi), "power_kind", c->power_kind,
			"front", c->front));
		if (s->boots) {	/* the command line its runs booted with */
			struct lw_sb line = { 0 };

			if (lw_tune_boot_line(s, c->level, &line) == 0)
				json_object_set_new(json_array_get(cands, json_array_size(cands) - 1),
						    "cmdline", json_string(line.s));
			lw_sb_free(&line);
		}
		if (c->front)
			json_array_append_new(front, json_integer(i));
	}
	return json_pack("{s:s, s:i, s:o, s:o, s:o, s:o, s:i, s:s}", "format", "latwatt-tune",
			 "version", 1, "candidates", cands, "front", front,
			 "recommended", r->recommended >= 0 ? json_integer(r->recommended) :
			 json_null(), "best", r->best >= 0 ? json_integer(r->best) : json_null(),
			 "undecided", r->undecided, "verdict", verdict);
}

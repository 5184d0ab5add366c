// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/input.h"
#include "lib/parse.h"
#include "lib/run.h"
#include "lib/safefile.h"
#include "lib/steal.h"
#include "lib/thread.h"
#include "lib/timeutil.h"

int lw_steal_parse(const char *text, uint64_t *ns, int max)
{
	long hz = sysconf(_SC_CLK_TCK);
	int top = 0;

	if (hz <= 0)
		hz = 100;
	for (int i = 0; i < max; i++)
		ns[i] = UINT64_MAX;
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		unsigned long long v[8];
		int cpu;

		/* cpuN user nice system idle iowait irq softirq steal ("cpu " is the sum) */
		if (strncmp(l, "cpu", 3) || l[3] < '0' || l[3] > '9' ||
		    sscanf(l, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9 || cpu < 0 || cpu >= max)
			continue;
		ns[cpu] = v[7] * (1000000000ULL / (unsigned long long)hz);
		if (cpu + 1 > top)
			top = cpu + 1;
	}
	return top;
}

/* ---- the sampler -------------------------------------------------------- */

struct sampler {
	struct lw_part part;
	char path[PATH_MAX];
	uint64_t period_ns;
	cpu_set_t cpus;
	int has_cpus;
	int fd;			/* /proc/stat, read again from 0 each time */
	FILE *out;
	int ncpu;
	int col[LW_STEAL_MAX_CPUS];	/* the CPUs written, in order */
	int ncol;
	uint64_t cur[LW_STEAL_MAX_CPUS], last[LW_STEAL_MAX_CPUS];
	uint64_t last_t;
	int last_written;
	pthread_t tid;
	int running;
	struct lw_stopper stop;
	uint64_t rows, reads, failed_reads, cpu_ns;
	int write_failed;
	char buf[65536];
};

static int sample(struct sampler *s, uint64_t *ns)
{
	ssize_t n = pread(s->fd, s->buf, sizeof(s->buf) - 1, 0);

	s->reads++;
	if (n <= 0) {
		s->failed_reads++;
		return -1;
	}
	s->buf[n] = 0;
	lw_steal_parse(s->buf, ns, LW_STEAL_MAX_CPUS);
	return 0;
}

static void write_row(struct sampler *s, uint64_t t, const uint64_t *ns)
{
	if (fprintf(s->out, "%llu", (unsigned long long)t) < 0)
		s->write_failed = 1;
	for (int i = 0; i < s->ncol; i++) {
		uint64_t v = ns[s->col[i]];

		if ((v == UINT64_MAX ? fputs(" -", s->out) :
		     fprintf(s->out, " %llu", (unsigned long long)v)) < 0)
			s->write_failed = 1;
	}
	if (fputc('\n', s->out) == EOF)
		s->write_failed = 1;
	s->rows++;
}

/* Take a sample at @t: written when a counter moved (with the one before
 * it, when that was not written) or when @force. */
static void take(struct sampler *s, int force)
{
	uint64_t t = lw_mono_ns();
	int moved = 0;

	if (sample(s, s->cur) < 0)
		return;
	for (int i = 0; i < s->ncol; i++)
		moved |= s->cur[s->col[i]] != s->last[s->col[i]];
	if (moved && !s->last_written)
		write_row(s, s->last_t, s->last);
	if (moved || force)
		write_row(s, t, s->cur);
	s->last_written = moved || force;
	memcpy(s->last, s->cur, sizeof(s->cur));
	s->last_t = t;
}

static void *sampler_main(void *arg)
{
	struct sampler *s = arg;
	uint64_t next = lw_mono_ns(), last_flush = next, cpu0;

	pthread_setname_np(pthread_self(), "lw-steal");
	cpu0 = lw_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	for (;;) {
		uint64_t now;

		next += s->period_ns;
		now = lw_mono_ns();
		if (next < now)		/* fell behind: skip, do not burst */
			next += ((now - next) / s->period_ns + 1) * s->period_ns;
		if (lw_stopper_sleep_until(&s->stop, next))
			break;
		take(s, 0);
		now = lw_mono_ns();
		if (now - last_flush >= LW_NSEC_PER_SEC) {
			if (fflush(s->out) == EOF)
				s->write_failed = 1;
			last_flush = now;
		}
	}
	take(s, 1);	/* the end of the run */
	s->cpu_ns = lw_clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	return NULL;
}

static int steal_start(struct lw_run *run, struct lw_part *p)
{
	struct sampler *s = p->priv;
	struct lw_sched sch = { .policy = SCHED_OTHER, .cpu = -1,
				.cpus = s->has_cpus ? &s->cpus : NULL };
	char name[4096];

	s->fd = open(s->path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0)
		return error("cannot open %s: %s", s->path, strerror(errno));
	if (sample(s, s->cur) < 0)
		return error("cannot read %s", s->path);
	for (int c = 0; c < LW_STEAL_MAX_CPUS; c++)
		if (s->cur[c] != UINT64_MAX)
			s->col[s->ncol++] = c;
	s->out = lw_fcreate_at(run->dir.dfd, lw_rundir_file(&run->dir, LW_STEAL_FILE, name,
							      sizeof(name)), 0644);
	if (!s->out)
		return -1;
	fprintf(s->out, "# %s %d period_ns %llu user_hz %ld\n# cpus", LW_STEAL_MAGIC,
		LW_STEAL_VERSION, (unsigned long long)s->period_ns, sysconf(_SC_CLK_TCK));
	for (int i = 0; i < s->ncol; i++)
		fprintf(s->out, " %d", s->col[i]);
	fputc('\n', s->out);
	s->last_t = lw_mono_ns();
	write_row(s, s->last_t, s->cur);
	s->last_written = 1;
	memcpy(s->last, s->cur, sizeof(s->cur));
	if (fflush(s->out) == EOF)
		return error("cannot write %s", name);
	if (lw_thread_start(&s->tid, sampler_main, s, &sch, "the steal sampler") < 0)
		return -1;
	s->running = 1;
	return 0;
}

static void steal_stop(struct lw_run *run, struct lw_part *p)
{
	struct sampler *s = p->priv;

	if (s->running) {
		lw_stopper_stop(&s->stop);
		pthread_join(s->tid, NULL);
		s->running = 0;
	}
}

static int steal_finish(struct lw_run *run, struct lw_part *p)
{
	struct sampler *s = p->priv;
	int ret = 0;

	if (s->out && fclose(s->out) == EOF)
		s->write_failed = 1;
	s->out = NULL;
	json_object_set_new(run->dir.manifest, "steal_samples", json_pack(
		"{s:s, s:s, s:i, s:I, s:I, s:I, s:I, s:I}", "file", LW_STEAL_FILE,
		"format", LW_STEAL_MAGIC, "version", LW_STEAL_VERSION,
		"period_ns", (json_int_t)s->period_ns, "reads", (json_int_t)s->reads,
		"failed_reads", (json_int_t)s->failed_reads, "rows", (json_int_t)s->rows,
		"cpu_ns", (json_int_t)s->cpu_ns));
	if (s->write_failed)
		ret = error("steal: cannot write RUN/%s", LW_STEAL_FILE);
	return ret;
}

static void steal_destroy(struct lw_part *p)
{
	struct sampler *s = p->priv;

	if (s->out)
		fclose(s->out);
	if (s->fd >= 0)
		close(s->fd);
	lw_stopper_destroy(&s->stop);
	free(s);
}

struct lw_part *lw_steal_sampler_new(const char *root, uint64_t period_ns, const cpu_set_t *cpus)
{
	struct sampler *s = calloc(1, sizeof(*s));

	if (!s) {
		error("out of memory");
		return NULL;
	}
	snprintf(s->path, sizeof(s->path), "%s/proc/stat", root ? root : "");
	s->period_ns = period_ns ? period_ns : LW_STEAL_PERIOD_NS;
	s->fd = -1;
	if (cpus) {
		s->cpus = *cpus;
		s->has_cpus = 1;
	}
	lw_stopper_init(&s->stop);
	s->part = (struct lw_part){
		.name = "steal",
		.start = steal_start,
		.stop = steal_stop,
		.finish = steal_finish,
		.destroy = steal_destroy,
		.priv = s,
	};
	return &s->part;
}

/* ---- reading it back ----------------------------------------------------- */

void lw_steal_free(struct lw_steal *st)
{
	free(st->cpu);
	free(st->t);
	free(st->v);
	memset(st, 0, sizeof(*st));
}

static int bad(const char *path, size_t line, const char *what)
{
	return error("%s:%zu: %s", path, line, what);
}

int lw_steal_load(const char *path, struct lw_steal *st)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0, lno = 0, rows_cap = 0;
	ssize_t len;
	int ret = -1, ver = 0;
	unsigned long long period = 0;

	memset(st, 0, sizeof(*st));
	f = lw_in_fopen(path, LW_IN_NOFOLLOW | LW_IN_OPTIONAL, LW_CAP_TEXT);
	if (!f)
		return errno == ENOENT ? 0 : -1;
	while ((len = getline(&line, &cap, f)) > 0) {
		char *p, *end;

		lno++;
		if (line[len - 1] != '\n')
			break;	/* a partial last row: the run was killed writing it */
		line[len - 1] = 0;
		if (lno == 1) {
			char magic[32];

			if (sscanf(line, "# %31s %d period_ns %llu", magic, &ver, &period) != 3 ||
			    strcmp(magic, LW_STEAL_MAGIC))
				goto malformed_hdr;
			if (ver != LW_STEAL_VERSION) {
				bad(path, lno, "unknown version (this latwatt reads version 1)");
				goto out;
			}
			st->period_ns = period;
			continue;
		}
		if (lno == 2) {
			if (strncmp(line, "# cpus", 6))
				goto malformed_hdr;
			st->cpu = calloc(LW_STEAL_MAX_CPUS, sizeof(*st->cpu));
			if (!st->cpu)
				goto oom;
			for (p = line + 6; *p;) {
				long c = strtol(p, &end, 10);

				if (end == p || c < 0 || c >= LW_STEAL_MAX_CPUS ||
				    st->ncpu == LW_STEAL_MAX_CPUS) {
					bad(path, lno, "a CPU number that is not one");
					goto out;
				}
				st->cpu[st->ncpu++] = (int)c;
				p = end + strspn(end, " ");
			}
			continue;
		}
		if (st->n == rows_cap) {
			size_t nc = rows_cap ? rows_cap * 2 : 256;
			uint64_t *t = realloc(st->t, nc * sizeof(*t));

			if (!t)
				goto oom;
			st->t = t;
			t = realloc(st->v, nc * (size_t)(st->ncpu ? st->ncpu : 1) * sizeof(*t));
			if (!t)
				goto oom;
			st->v = t;
			rows_cap = nc;
		}
		errno = 0;
		st->t[st->n] = strtoull(line, &end, 10);
		if (end == line || errno || (st->n && st->t[st->n] < st->t[st->n - 1])) {
			bad(path, lno, "a row's time is not a number past the row before");
			goto out;
		}
		p = end;
		for (int i = 0; i < st->ncpu; i++) {
			uint64_t *v = &st->v[st->n * (size_t)st->ncpu + (size_t)i];

			p += strspn(p, " ");
			if (*p == '-') {
				*v = UINT64_MAX;
				p++;
				continue;
			}
			errno = 0;
			*v = strtoull(p, &end, 10);
			if (end == p || errno) {
				bad(path, lno, "a steal figure is not a number");
				goto out;
			}
			p = end;
		}
		if (*p) {
			bad(path, lno, "more figures than CPUs");
			goto out;
		}
		st->n++;
	}
	if (lno < 2 && !ferror(f)) {
		bad(path, lno + 1, "no header (\"# latwatt-steal 1 ...\" and \"# cpus ...\")");
		goto out;
	}
	ret = 1;
	goto out;
malformed_hdr:
	bad(path, lno, lno == 1 ? "not a latwatt-steal file" : "no \"# cpus\" line");
	goto out;
oom:
	error("out of memory reading %s", path);
out:
	free(line);
	fclose(f);
	if (ret < 0)
		lw_steal_free(st);
	return ret;
}

/* The counter of column @c at @t, interpolated; UINT64_MAX: not known. */
static uint64_t at(const struct lw_steal *st, int c, uint64_t t)
{
	size_t lo = 0, hi = st->n;
	uint64_t a, b, ta, tb;

	if (!st->n || t <= st->t[0])
		return st->n ? st->v[c] : UINT64_MAX;
	if (t >= st->t[st->n - 1])
		return st->v[(st->n - 1) * (size_t)st->ncpu + (size_t)c];
	while (hi - lo > 1) {	/* the last row at or before t */
		size_t mid = (lo + hi) / 2;

		if (st->t[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	a = st->v[lo * (size_t)st->ncpu + (size_t)c];
	b = st->v[(lo + 1) * (size_t)st->ncpu + (size_t)c];
	ta = st->t[lo];
	tb = st->t[lo + 1];
	if (a == UINT64_MAX || b == UINT64_MAX || b < a || tb <= ta)
		return UINT64_MAX;
	return a + (uint64_t)((double)(b - a) * (double)(t - ta) / (double)(tb - ta));
}

uint64_t lw_steal_between(const struct lw_steal *st, int cpu, uint64_t from, uint64_t to)
{
	uint64_t a, b;
	int c;

	for (c = 0; c < st->ncpu && st->cpu[c] != cpu; c++)
		;
	if (c == st->ncpu || to <= from)
		return 0;
	a = at(st, c, from);
	b = at(st, c, to);
	return a == UINT64_MAX || b == UINT64_MAX || b < a ? 0 : b - a;
}

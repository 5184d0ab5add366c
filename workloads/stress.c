// SPDX-License-Identifier: GPL-2.0-only
/*
 * Background stress: the interference a realtime system meets in the field.
 *
 *   cpu        arithmetic loops
 *   memory     memcpy between two large buffers (memory bandwidth)
 *   cache      random read-modify-write over twice the last-level cache
 *   io         write + fsync storms on a file in the run directory (the
 *              journal-commit stalls databases suffer from); removed at stop
 *   messaging  hackbench-like groups: each sender writes small messages to
 *              every receiver of its group over UNIX stream sockets
 *   timer      short hrtimer sleeps back to back (a timer interrupt storm)
 *   network    TCP stream over 127.0.0.1 only, at most `rate` bytes/s
 *
 * Each worker works `intensity` of every `window` and sleeps the rest (a
 * duty cycle, as stress-ng's --cpu-load does), SCHED_OTHER by default,
 * pinned to one CPU of `cpus` (`workers` per CPU).  All of it is threads of
 * latwatt: nothing can outlive the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/safefile.h"
#include "lib/parse.h"
#include "lib/run.h"
#include "lib/sysfs.h"
#include "lib/timeutil.h"
#include "workloads/common.h"
#include "workloads/workload.h"

enum kind { K_CPU, K_MEMORY, K_CACHE, K_IO, K_MESSAGING, K_TIMER, K_NETWORK };
static const char *const kinds[] = {
	"cpu", "memory", "cache", "io", "messaging", "timer", "network", NULL,
};
static const char *const units[] = {
	"loops", "bytes", "accesses", "fsyncs", "messages", "expirations", "bytes",
};
static const char *const policies[] = { "other", "batch", "idle", NULL };

#define GROUP          4		/* messaging: senders and receivers per worker */
#define IO_FILE_MAX    (64ULL << 20)
#define TIMER_SLEEP_NS (50 * LW_NSEC_PER_USEC)
#define MEM_CHUNK      (1u << 20)
#define CACHE_CHUNK    8192

struct stress_conf {
	int kind;
	double intensity;
	cpu_set_t cpus;
	uint64_t workers;
	uint64_t size;
	uint64_t window;
	int policy;
	uint64_t rate;
};

#define P(field) offsetof(struct stress_conf, field)
static const struct lw_wparam stress_params[] = {
	{ "kind",      LW_WP_ENUM,   P(kind),      "cpu",   0, 0, kinds,
	  "what to stress" },
	{ "intensity", LW_WP_DOUBLE, P(intensity), "0.5",   0.01, 1, NULL,
	  "fraction of each window a worker works (duty cycle)" },
	{ "cpus",      LW_WP_CPUS,   P(cpus),      "all",   0, 0, NULL,
	  "CPUs the workers are pinned to" },
	{ "workers",   LW_WP_UINT,   P(workers),   "1",     1, 64, NULL,
	  "workers per CPU" },
	{ "size",      LW_WP_SIZE,   P(size),      "0",     0, 1ULL << 32, NULL,
	  "buffer (memory, cache), write (io), message (messaging, network) size; 0: auto" },
	{ "window",    LW_WP_TIME,   P(window),    "10ms",  100 * LW_NSEC_PER_USEC, LW_NSEC_PER_SEC, NULL,
	  "duty cycle window" },
	{ "policy",    LW_WP_ENUM,   P(policy),    "other", 0, 0, policies,
	  "scheduling policy of the workers" },
	{ "rate",      LW_WP_SIZE,   P(rate),      "100M",  1024, 1ULL << 34, NULL,
	  "network: at most this many bytes/s per worker" },
	{ NULL },
};
#undef P

struct stress;

struct worker {
	struct stress *s;
	int idx, cpu;
	pthread_t tid;
	int created;
	uint64_t ops;			/* in units[kind] */
	_Atomic uint64_t live_ops;
	int err;			/* errno of a failed operation */
	const char *errop;
	/* per kind */
	unsigned char *a, *b;		/* memory, cache */
	int fd;				/* io file; network sender */
	int peer;			/* network receiver end */
	int sock[GROUP][2];		/* messaging: [0] sender end, [1] receiver end */
	pthread_t rx[GROUP];
	int rx_created[GROUP];
	uint64_t rx_ops;
	uint64_t rng;
	double sink;
};

struct stress {
	struct lw_part part;
	struct stress_conf c;
	char name[32];
	struct lw_run *run;
	uint64_t size;			/* resolved */
	struct worker *w;
	int nworkers;
	_Atomic int quit;
	uint64_t start_ns, stop_ns;
};

static inline int quitting(struct stress *s)
{
	return lw_run_stopping(s->run) || atomic_load_explicit(&s->quit, memory_order_relaxed);
}

static uint64_t llc_bytes(void)
{
	char path[128], buf[64];

	for (int idx = 4; idx >= 0; idx--) {
		uint64_t v;
		int q;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
		if (lw_read_file(path, buf, sizeof(buf)) < 0)
			continue;
		q = lw_set_quiet(1);
		if (lw_parse_size(path, buf, &v) == 0 && v) {
			lw_set_quiet(q);
			return v;
		}
		lw_set_quiet(q);
	}
	return 8ULL << 20;
}

static uint64_t default_size(int kind)
{
	switch (kind) {
	case K_MEMORY:    return 64ULL << 20;
	case K_CACHE:     return 2 * llc_bytes();
	case K_IO:        return 64 << 10;
	case K_MESSAGING: return 100;
	case K_NETWORK:   return 64 << 10;
	default:          return 0;
	}
}

/* One short unit of work; returns the units done, or -1 with w->err. */
static long chunk(struct worker *w)
{
	struct stress *s = w->s;

	switch (s->c.kind) {
	case K_CPU: {
		double x = w->sink + 1.0;
		uint64_t h = w->rng;

		for (int i = 0; i < 20000; i++) {
			x = sqrt(x * 1.000001 + (double)(h & 1023));
			h ^= h << 13;
			h ^= h >> 7;
			h ^= h << 17;
		}
		w->sink = x;
		w->rng = h;
		return 20000;
	}
	case K_MEMORY: {
		size_t half = s->size / 2, off = (size_t)((w->ops / MEM_CHUNK) * MEM_CHUNK) % half;
		size_t n = half - off < MEM_CHUNK ? half - off : MEM_CHUNK;

		memcpy(w->a + half + off, w->a + off, n);
		return (long)n;
	}
	case K_CACHE: {
		uint64_t h = w->rng, mask = s->size / 64 - 1;

		for (int i = 0; i < CACHE_CHUNK; i++) {
			h ^= h << 13;
			h ^= h >> 7;
			h ^= h << 17;
			w->a[(h & mask) * 64]++;
		}
		w->rng = h;
		return CACHE_CHUNK;
	}
	case K_IO: {
		off_t off = (off_t)((w->ops * s->size) % IO_FILE_MAX);

		if (pwrite(w->fd, w->b, s->size, off) != (ssize_t)s->size) {
			w->err = errno ? errno : EIO;
			w->errop = "write";
			return -1;
		}
		if (fsync(w->fd) < 0) {
			w->err = errno;
			w->errop = "fsync";
			return -1;
		}
		return 1;
	}
	case K_MESSAGING:
		for (int r = 0; r < GROUP; r++)
			if (send(w->sock[r][0], w->b, s->size, MSG_NOSIGNAL) < 0) {
				if (quitting(s))
					return 0;
				w->err = errno;
				w->errop = "send";
				return -1;
			}
		return GROUP;
	case K_TIMER: {
		struct timespec ts = lw_ns_to_ts(TIMER_SLEEP_NS);

		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		return 1;
	}
	case K_NETWORK: {
		ssize_t n = send(w->fd, w->b, s->size, MSG_NOSIGNAL);

		if (n < 0) {
			if (quitting(s))
				return 0;
			w->err = errno;
			w->errop = "send";
			return -1;
		}
		return (long)n;
	}
	}
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct stress *s = w->s;
	const uint64_t window = s->c.window;
	const uint64_t on = (uint64_t)(s->c.intensity * (double)window);
	uint64_t start = lw_mono_ns(), sent_start = start;
	char name[16];

	snprintf(name, sizeof(name), "lw-%s/%d", kinds[s->c.kind], w->idx);
	pthread_setname_np(pthread_self(), name);
	if (s->c.kind == K_TIMER)	/* every sleep its own expiry, not merged by the slack */
		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	while (!quitting(s)) {
		uint64_t now;
		struct timespec ts;

		while (!quitting(s) && (now = lw_mono_ns()) - start < on) {
			long n = chunk(w);

			if (n < 0) {
				char why[128];

				snprintf(why, sizeof(why), "%s: %s failed: %s", s->name, w->errop,
					 strerror(w->err));
				lw_run_request_stop(s->run, LW_STOP_ERROR, why);
				return NULL;
			}
			w->ops += (uint64_t)n;
			atomic_store_explicit(&w->live_ops, w->ops, memory_order_relaxed);
			if (s->c.kind == K_NETWORK) {
				/* bounded: no more than rate bytes/s since the start */
				uint64_t allowed_at = sent_start + w->ops * LW_NSEC_PER_SEC / s->c.rate;

				if (allowed_at > lw_mono_ns() + 100 * LW_NSEC_PER_USEC) {
					ts = lw_ns_to_ts(allowed_at);
					clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
				}
			}
		}
		start += window;
		now = lw_mono_ns();
		if (start < now)		/* fell behind: no catching up */
			start = now;
		if (on < window) {
			ts = lw_ns_to_ts(start);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
	}
	return NULL;
}

/* Receivers (messaging, network) read and drop until the socket closes. */
struct rx_arg {
	struct worker *w;
	int fd;
};

static void *rx_main(void *arg)
{
	struct worker *w = ((struct rx_arg *)arg)->w;
	int fd = ((struct rx_arg *)arg)->fd;
	char buf[65536];

	free(arg);
	pthread_setname_np(pthread_self(), "lw-stress-rx");
	while (!quitting(w->s)) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n <= 0)
			break;
		w->rx_ops++;
	}
	return NULL;
}

static int start_rx(struct stress *s, struct worker *w, int slot, int fd, const struct lw_sched *sch)
{
	struct rx_arg *a = malloc(sizeof(*a));
	char what[64];

	if (!a)
		return error("out of memory");
	a->w = w;
	a->fd = fd;
	snprintf(what, sizeof(what), "%s receiver %d.%d", s->name, w->idx, slot);
	if (lw_thread_start(&w->rx[slot], rx_main, a, sch, what) < 0) {
		free(a);
		return -1;
	}
	w->rx_created[slot] = 1;
	return 0;
}

static int tcp_pair(struct stress *s, int fds[2])
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int l, one = 1;

	fds[0] = fds[1] = -1;
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		return error_errno("%s: cannot create a TCP socket", s->name);
	if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&sa, &len) < 0) {
		error_errno("%s: cannot listen on 127.0.0.1", s->name);
		close(l);
		return -1;
	}
	fds[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fds[0] < 0 || connect(fds[0], (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (fds[1] = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0) {
		error_errno("%s: cannot connect to 127.0.0.1:%u", s->name, ntohs(sa.sin_port));
		close(l);
		if (fds[0] >= 0)
			close(fds[0]);
		fds[0] = -1;
		return -1;
	}
	setsockopt(fds[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	close(l);
	return 0;
}

static int worker_prepare(struct stress *s, struct worker *w)
{
	const struct lw_sched rx_sched = {
		.policy = s->c.policy == 1 ? SCHED_BATCH : s->c.policy == 2 ? SCHED_IDLE : SCHED_OTHER,
		.cpu = -1, .cpus = &s->c.cpus,
		.stack = LW_WL_STACK_SIZE,
	};
	char path[4096], file[64];

	w->fd = w->peer = -1;
	for (int r = 0; r < GROUP; r++)
		w->sock[r][0] = w->sock[r][1] = -1;
	w->rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(w->idx + 1);
	switch (s->c.kind) {
	case K_MEMORY:
	case K_CACHE:
		w->a = malloc(s->size);
		if (!w->a)
			return error("%s: out of memory for %llu bytes", s->name,
				     (unsigned long long)s->size);
		memset(w->a, 1, s->size);
		return 0;
	case K_IO:
		snprintf(file, sizeof(file), "%s-io-%d.tmp", s->name, w->idx);
		if (!*lw_rundir_file(&s->run->dir, file, path, sizeof(path)))
			return -1;
		w->fd = lw_create_at(s->run->dir.dfd, path, 0600, O_RDWR);
		if (w->fd < 0)
			return -1;
		/* gone whatever happens; the space is freed at close */
		unlinkat(s->run->dir.dfd, file, 0);
		break;
	case K_MESSAGING:
		for (int r = 0; r < GROUP; r++) {
			if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, w->sock[r]) < 0)
				return error_errno("%s: cannot create a socket pair", s->name);
			if (start_rx(s, w, r, w->sock[r][1], &rx_sched) < 0)
				return -1;
		}
		break;
	case K_NETWORK: {
		int fds[2];

		if (tcp_pair(s, fds) < 0)
			return -1;
		w->fd = fds[0];
		w->peer = fds[1];
		if (start_rx(s, w, 0, w->peer, &rx_sched) < 0)
			return -1;
		break;
	}
	default:
		return 0;
	}
	w->b = malloc(s->size);
	if (!w->b)
		return error("out of memory");
	memset(w->b, 0x5a, s->size);
	return 0;
}

static void stress_stop(struct lw_run *run, struct lw_part *p)
{
	struct stress *s = p->priv;

	atomic_store(&s->quit, 1);
	for (int i = 0; i < s->nworkers; i++) {
		struct worker *w = &s->w[i];

		/* wake senders blocked on full sockets and receivers on empty ones */
		for (int r = 0; r < GROUP; r++)
			for (int e = 0; e < 2; e++)
				if (w->sock[r][e] >= 0)
					shutdown(w->sock[r][e], SHUT_RDWR);
		if (s->c.kind == K_NETWORK) {
			if (w->fd >= 0)
				shutdown(w->fd, SHUT_RDWR);
			if (w->peer >= 0)
				shutdown(w->peer, SHUT_RDWR);
		}
	}
	for (int i = 0; i < s->nworkers; i++) {
		struct worker *w = &s->w[i];

		if (w->created)
			pthread_join(w->tid, NULL);
		w->created = 0;
		for (int r = 0; r < GROUP; r++)
			if (w->rx_created[r]) {
				pthread_join(w->rx[r], NULL);
				w->rx_created[r] = 0;
			}
		for (int r = 0; r < GROUP; r++)
			for (int e = 0; e < 2; e++)
				if (w->sock[r][e] >= 0) {
					close(w->sock[r][e]);
					w->sock[r][e] = -1;
				}
		if (w->fd >= 0)
			close(w->fd);
		if (w->peer >= 0)
			close(w->peer);
		w->fd = w->peer = -1;
	}
	s->stop_ns = lw_mono_ns();
}

static int stress_start(struct lw_run *run, struct lw_part *p)
{
	struct stress *s = p->priv;
	int ncpus = CPU_COUNT(&s->c.cpus);

	s->run = run;
	s->size = s->c.size ? s->c.size : default_size(s->c.kind);
	if (s->c.kind == K_CACHE) {	/* a power of two of at least 64 lines */
		uint64_t sz = 4096;

		while (sz < s->size)
			sz <<= 1;
		s->size = sz;
	}
	if (s->c.kind == K_MEMORY && s->size < 2 * 4096)
		s->size = 2 * 4096;
	s->nworkers = ncpus * (int)s->c.workers;
	s->w = calloc((size_t)s->nworkers, sizeof(*s->w));
	if (!s->w)
		return error("out of memory");
	for (int i = 0; i < s->nworkers; i++) {
		s->w[i].fd = s->w[i].peer = -1;
		for (int r = 0; r < GROUP; r++)
			s->w[i].sock[r][0] = s->w[i].sock[r][1] = -1;
	}
	s->start_ns = lw_mono_ns();
	for (int i = 0; i < s->nworkers; i++) {
		struct worker *w = &s->w[i];
		struct lw_sched sch = {
			.policy = s->c.policy == 1 ? SCHED_BATCH :
				  s->c.policy == 2 ? SCHED_IDLE : SCHED_OTHER,
			.cpu = lw_wl_cpu_nth(&s->c.cpus, i),
			.stack = LW_WL_STACK_SIZE,
		};
		char what[64];

		w->s = s;
		w->idx = i;
		w->cpu = sch.cpu;
		if (worker_prepare(s, w) < 0)
			goto fail;
		snprintf(what, sizeof(what), "%s worker %d on cpu %d", s->name, i, w->cpu);
		if (lw_thread_start(&w->tid, worker_main, w, &sch, what) < 0)
			goto fail;
		w->created = 1;
	}
	return 0;
fail:
	stress_stop(run, p);
	return -1;
}

static int stress_finish(struct lw_run *run, struct lw_part *p)
{
	struct stress *s = p->priv;
	json_t *m = lw_wl_manifest_entry(run, s->name), *workers = json_array();
	double secs = (double)(s->stop_ns - s->start_ns) / 1e9;
	uint64_t total = 0;
	char cpus[256];

	for (int i = 0; i < s->nworkers; i++) {
		struct worker *w = &s->w[i];

		total += w->ops;
		json_array_append_new(workers, json_pack("{s:i, s:I, s:f}", "cpu", w->cpu,
			"ops", (json_int_t)w->ops, "ops_per_s", secs > 0 ? (double)w->ops / secs : 0));
		if (w->err)
			json_object_set_new(json_array_get(workers, (size_t)i), "error",
				json_sprintf("%s: %s", w->errop, strerror(w->err)));
	}
	json_object_set_new(m, "kind", json_string("stress"));
	json_object_set_new(m, "params", lw_wconfig_json(&lw_workload_stress, &s->c));
	json_object_set_new(m, "stressor", json_string(kinds[s->c.kind]));
	json_object_set_new(m, "unit", json_string(units[s->c.kind]));
	json_object_set_new(m, "intensity", json_real(s->c.intensity));
	json_object_set_new(m, "cpus", json_string(lw_format_cpulist(&s->c.cpus, cpus, sizeof(cpus))));
	json_object_set_new(m, "size", json_integer((json_int_t)s->size));
	json_object_set_new(m, "policy", json_string(lw_wl_policy_name(
		s->c.policy == 1 ? SCHED_BATCH : s->c.policy == 2 ? SCHED_IDLE : SCHED_OTHER)));
	json_object_set_new(m, "started_ns", json_integer((json_int_t)s->start_ns));
	json_object_set_new(m, "stopped_ns", json_integer((json_int_t)s->stop_ns));
	json_object_set_new(m, "ops", json_integer((json_int_t)total));
	json_object_set_new(m, "ops_per_s", json_real(secs > 0 ? (double)total / secs : 0));
	json_object_set_new(m, "workers", workers);
	return 0;
}

static void stress_progress(struct lw_run *run, struct lw_part *p, char *buf, size_t len)
{
	struct stress *s = p->priv;
	uint64_t t = 0;

	for (int i = 0; i < s->nworkers; i++)
		t += atomic_load(&s->w[i].live_ops);
	snprintf(buf, len, "%s %s %.3g", s->name, units[s->c.kind], (double)t);
}

static void stress_destroy(struct lw_part *p)
{
	struct stress *s = p->priv;

	for (int i = 0; s->w && i < s->nworkers; i++) {
		free(s->w[i].a);
		free(s->w[i].b);
	}
	free(s->w);
	free(s);
}

static struct lw_part *stress_create(const void *config, const struct lw_workload_env *env)
{
	struct stress *s = calloc(1, sizeof(*s));

	if (!s) {
		error("out of memory");
		return NULL;
	}
	memcpy(&s->c, config, sizeof(s->c));
	lw_wl_instance_name(s->name, sizeof(s->name), "stress", env->instance);
	s->part = (struct lw_part){
		.name = "stress", .start = stress_start, .stop = stress_stop,
		.finish = stress_finish, .progress = stress_progress, .destroy = stress_destroy,
		.priv = s,
	};
	return &s->part;
}

static int stress_check(const void *config, const char *where)
{
	const struct stress_conf *c = config;

	if (c->kind == K_MESSAGING && c->size > 65536)
		return error("%s: size %llu is too large for messaging (at most 65536)", where,
			     (unsigned long long)c->size);
	if ((c->kind == K_MEMORY || c->kind == K_CACHE) && c->size > (1ULL << 30))
		return error("%s: size %llu is too large for %s (at most 1G per worker; the "
			     "memory is locked)", where, (unsigned long long)c->size, kinds[c->kind]);
	if ((c->kind == K_IO || c->kind == K_NETWORK) && c->size > (16ULL << 20))
		return error("%s: size %llu is too large for %s (at most 16M)", where,
			     (unsigned long long)c->size, kinds[c->kind]);
	return 0;
}

const struct lw_workload lw_workload_stress = {
	.name = "stress",
	.help = "background stress: cpu, memory, cache, io (fsync), messaging, timer, network",
	.params = stress_params,
	.config_size = sizeof(struct stress_conf),
	.check = stress_check,
	.create = stress_create,
};

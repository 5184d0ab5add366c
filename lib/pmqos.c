// SPDX-License-Identifier: GPL-2.0-only
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/pmqos.h"
#include "lib/run.h"
#include "lib/sysfs.h"

struct pmqos {
	struct lw_part part;
	int64_t want;		/* < 0: leave the system's value */
	int64_t system;		/* value found at start */
	int fd;
};

static int pmqos_start(struct lw_run *run, struct lw_part *p)
{
	struct pmqos *q = p->priv;
	int32_t v = (int32_t)q->want;

	q->system = lw_pmqos_read(LW_PMQOS_DEV);
	if (q->want < 0)
		return 0;
	q->fd = open(LW_PMQOS_DEV, O_RDWR | O_CLOEXEC);
	if (q->fd < 0)
		return error_errno("cannot open %s to hold PM QoS at %lldus", LW_PMQOS_DEV,
				   (long long)q->want);
	if (write(q->fd, &v, sizeof(v)) != sizeof(v)) {
		error_errno("cannot write PM QoS %lldus to %s", (long long)q->want, LW_PMQOS_DEV);
		close(q->fd);
		q->fd = -1;
		return -1;
	}
	return 0;
}

static void pmqos_stop(struct lw_run *run, struct lw_part *p)
{
	struct pmqos *q = p->priv;

	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
}

static int pmqos_finish(struct lw_run *run, struct lw_part *p)
{
	struct pmqos *q = p->priv;
	json_t *o = json_pack("{s:s, s:I}", "mode", q->want < 0 ? "system" : "held",
			      "system_value_us", (json_int_t)q->system);

	if (q->want >= 0)
		json_object_set_new(o, "held_value_us", json_integer(q->want));
	json_object_set_new(run->dir.manifest, "pm_qos", o);
	return 0;
}

static void pmqos_destroy(struct lw_part *p)
{
	free(p->priv);
}

struct lw_part *lw_pmqos_new(int64_t value_us)
{
	struct pmqos *q = calloc(1, sizeof(*q));

	if (!q) {
		error("out of memory");
		return NULL;
	}
	q->want = value_us;
	q->fd = -1;
	q->part = (struct lw_part){
		.name = "pm-qos",
		.start = pmqos_start,
		.stop = pmqos_stop,
		.finish = pmqos_finish,
		.destroy = pmqos_destroy,
		.priv = q,
	};
	return &q->part;
}

// SPDX-License-Identifier: GPL-2.0-only
/* Power sources on fixture sysfs trees (hwmon INA219/INA3221, IIO INA226,
 * RAPL with wrap-around, batteries, the cpuidle model), missing files and
 * read errors, the RUN/power file and its summary, and meter CSV import. */
#include <math.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "lib/safefile.h"
#include "boards/board.h"
#include "lib/rundir.h"
#include "power/idle.h"
#include "power/import.h"
#include "power/power.h"
#include "power/sampler.h"
#include "lib/run.h"
#include "lib/timeutil.h"
#include "power/sources.h"

#define FIXTURE "tests/data/sysfs/board1"
#define near(a, b) (fabs((a) - (b)) < 1e-6)

/* A writable copy of the fixture. */
static char *copy_fixture(void)
{
	char *d = lw_test_tmpdir(), cmd[512];

	snprintf(cmd, sizeof(cmd), "cp -a %s/sys '%s/'", FIXTURE, d);
	assert_int_equal(system(cmd), 0);
	return d;
}

static void put(const char *root, const char *rel, const char *value)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	lw_test_write(path, value, strlen(value));
}

static struct lw_chan *find(struct lw_chans *cs, const char *name)
{
	for (int i = 0; i < cs->n; i++)
		if (!strcmp(lw_chan_name(cs->c[i]), name))
			return cs->c[i];
	fail_msg("no rail %s", name);
	return NULL;
}

static void test_parse_sources(void **st)
{
	unsigned m;
	int a;

	assert_int_equal(lw_power_parse_sources("--power", "auto", &m, &a), 0);
	assert_true(a);
	assert_int_equal(m, LW_SRC_SENSORS);
	assert_int_equal(lw_power_parse_sources("--power", "hwmon,rapl", &m, &a), 0);
	assert_false(a);
	assert_int_equal(m, LW_SRC_HWMON | LW_SRC_RAPL);
	assert_int_equal(lw_power_parse_sources("--power", "off", &m, &a), 0);
	assert_int_equal(m, 0);
	assert_error(lw_power_parse_sources("--power", "hwmon,thermo", &m, &a) < 0,
		     "--power: unknown power source 'thermo'");
	assert_error(lw_power_parse_sources("--power", "", &m, &a) < 0, "--power: empty value");
}

static char *slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

/* One descriptor per LW_POWER_SOURCES() entry, each named in --power, in the
 * man page's --power entry and, for sensors, in boards/README.md. */
static void test_source_table(void **st)
{
	static char page[1 << 20], readme[1 << 16];
	static const char *const names[] = {
#define NAME(n, N, sensor) #n,
		LW_POWER_SOURCES(NAME)
#undef NAME
	};
	char list[256], want[64], *sec, *end, *bline;
	unsigned m;
	int a;

	assert_int_equal(sizeof(names) / sizeof(names[0]), LW_SRC_NTYPES);
	assert_int_equal(LW_SRC_SENSORS, LW_SRC_HWMON | LW_SRC_IIO | LW_SRC_RAPL | LW_SRC_BATTERY);
	assert_int_equal(lw_power_parse_sources("--power", lw_power_sources_str(LW_SRC_ALL, list,
							 sizeof(list)), &m, &a), 0);
	assert_int_equal(m, LW_SRC_ALL);
	assert_string_equal(lw_power_sources_list(LW_SRC_SENSORS, 1, ", ", list, sizeof(list)),
			    "hwmon, IIO, RAPL powercap, battery");
	sec = strstr(slurp("doc/latwatt.1", page, sizeof(page)), ".BI \\-\\-power \" SOURCES\"\n");
	assert_non_null(sec);
	end = strstr(sec, "\n.TP\n");
	assert_non_null(end);
	*end = 0;
	bline = strstr(slurp("boards/README.md", readme, sizeof(readme)), "\n  - {type: ");
	assert_non_null(bline);
	bline = strstr(bline, "# ");
	assert_non_null(bline);
	*strchrnul(bline, '\n') = 0;
	for (int i = 0; i < LW_SRC_NTYPES; i++) {
		const struct lw_power_source_type *t = lw_power_source_types[i];

		assert_non_null(t);
		assert_string_equal(t->name, names[i]);
		assert_true(t->label && *t->label && t->help && *t->help && t->discover);
		assert_int_equal(lw_power_parse_sources("--power", t->name, &m, &a), 0);
		assert_int_equal(m, 1u << i);
		snprintf(want, sizeof(want), "\n.BR %s ", t->name);
		if (!strstr(sec, want))
			fail_msg("doc/latwatt.1 --power does not name %s", t->name);
		if ((LW_SRC_SENSORS & (1u << i)) && !strstr(bline, t->name))
			fail_msg("boards/README.md power_sources: does not name %s", t->name);
	}
}

static void test_discover_and_read(void **st)
{
	struct lw_power_opts o = { .root = FIXTURE, .mask = LW_SRC_SENSORS };
	struct lw_chans cs;
	double w, e, v, a;
	char why[256];

	assert_int_equal(lw_power_discover(&o, &cs), 0);
	/* ina219 power1, ina3221 x3, ina226 power2, RAPL x3, BAT0, BAT1; no coretemp, no AC */
	assert_int_equal(cs.n, 10);
	assert_int_equal(lw_chan_read(find(&cs, "ina219/power1"), 1, &w, &e, &v, &a, why, sizeof(why)), 0);
	assert_true(near(w, 2.5) && near(v, 5.0) && near(a, 0.5) && isnan(e));
	assert_int_equal(lw_chan_read(find(&cs, "ina3221/VDD_IN"), 1, &w, &e, &v, &a, why, sizeof(why)), 0);
	assert_true(near(v, 4.9) && near(a, 0.2) && near(w, 0.98));
	assert_int_equal(lw_chan_read(find(&cs, "ina3221/VDD_SOC"), 1, &w, &e, &v, &a, why, sizeof(why)), 0);
	assert_true(near(w, 4.7 * 0.6));
	/* IIO: raw 120 * scale 25 = 3000 mW */
	assert_int_equal(lw_chan_read(find(&cs, "ina226/power2"), 1, &w, &e, &v, &a, why, sizeof(why)), 0);
	assert_true(near(w, 3.0));
	assert_int_equal(lw_chan_read(find(&cs, "battery/BAT0"), 1, &w, &e, &v, &a, why, sizeof(why)), 0);
	assert_true(near(w, 7.5) && near(v, 12.0));
	/* current_now is negative while discharging on this driver: the magnitude */
	assert_int_equal(lw_chan_read(find(&cs, "battery/BAT1"), 1, &w, &e, &v, &a, why, sizeof(why)), 0);
	assert_true(near(w, 0.95) && near(a, 0.25));
	/* RAPL: package-0 counts to the total, the core subzone and psys do not */
	assert_true(lw_chan_flags(find(&cs, "rapl/package-0")) & LW_RAIL_TOTAL);
	assert_false(lw_chan_flags(find(&cs, "rapl/package-0/core")) & LW_RAIL_TOTAL);
	assert_false(lw_chan_flags(find(&cs, "rapl/psys")) & LW_RAIL_TOTAL);
	assert_true(lw_chan_flags(find(&cs, "rapl/psys")) & LW_RAIL_ENERGY);
	lw_power_chans_free(&cs);

	/* only what was asked for */
	o.mask = LW_SRC_BATTERY;
	assert_int_equal(lw_power_discover(&o, &cs), 0);
	assert_int_equal(cs.n, 2);
	lw_power_chans_free(&cs);
	/* nothing under an empty root */
	o.root = "/nonexistent";
	o.mask = LW_SRC_SENSORS;
	assert_int_equal(lw_power_discover(&o, &cs), 0);
	assert_int_equal(cs.n, 0);
	lw_power_chans_free(&cs);
}

static void test_rapl_wrap(void **st)
{
	char *root = copy_fixture();
	struct lw_power_opts o = { .root = root, .mask = LW_SRC_RAPL };
	struct lw_chans cs;
	struct lw_chan *c;
	double w, e, v, a;
	char why[256];

	assert_int_equal(lw_power_discover(&o, &cs), 0);
	c = find(&cs, "rapl/package-0");
	/* 1 J before the end of the range (262143328850 uJ), then past the wrap */
	put(root, "sys/class/powercap/intel-rapl:0/energy_uj", "262142328850\n");
	assert_int_equal(lw_chan_read(c, 1000000000, &w, &e, &v, &a, why, sizeof(why)), 0);
	assert_true(isnan(w) && near(e, 0));
	put(root, "sys/class/powercap/intel-rapl:0/energy_uj", "2000000\n");
	assert_int_equal(lw_chan_read(c, 2000000000, &w, &e, &v, &a, why, sizeof(why)), 0);
	assert_true(near(e, 3.0));		/* 1 J to the wrap + 2 J after it */
	assert_true(near(w, 3.0));		/* over one second */
	put(root, "sys/class/powercap/intel-rapl:0/energy_uj", "2500000\n");
	assert_int_equal(lw_chan_read(c, 2500000000, &w, &e, &v, &a, why, sizeof(why)), 0);
	assert_true(near(e, 3.5) && near(w, 1.0));
	/* a value beyond the range is a read error, not energy */
	put(root, "sys/class/powercap/intel-rapl:0/energy_uj", "262143328851\n");
	assert_int_equal(lw_chan_read(c, 3000000000, &w, &e, &v, &a, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "beyond max_energy_range_uj"));
	assert_true(lw_counter_delta(10, 5, 0) == 0);		/* no range: a reset */
	assert_true(lw_counter_delta(90, 10, 100) == 20);
	lw_power_chans_free(&cs);
	lw_test_rmdir(root);
}

static void test_missing_and_bad_values(void **st)
{
	char *root = copy_fixture(), path[1024];
	struct lw_power_opts o = { .root = root, .mask = LW_SRC_SENSORS };
	struct lw_chans cs;
	double w, e, v, a;
	char why[512];

	assert_int_equal(lw_power_discover(&o, &cs), 0);
	/* the file disappears mid-run (sensor unbound): a failed read with a reason */
	snprintf(path, sizeof(path), "%s/sys/class/power_supply/BAT0/power_now", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(lw_chan_read(find(&cs, "battery/BAT0"), 1, &w, &e, &v, &a, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "power_now"));
	assert_non_null(strstr(why, "No such file"));
	/* and comes back */
	put(root, "sys/class/power_supply/BAT0/power_now", "5000000\n");
	assert_int_equal(lw_chan_read(find(&cs, "battery/BAT0"), 2, &w, &e, &v, &a, why, sizeof(why)), 0);
	assert_true(near(w, 5.0));
	/* a driver returning garbage */
	put(root, "sys/class/hwmon/hwmon0/power1_input", "EIO\n");
	assert_int_equal(lw_chan_read(find(&cs, "ina219/power1"), 3, &w, &e, &v, &a, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "is not a number"));
	/* a read error (a directory where the value was) */
	snprintf(path, sizeof(path), "%s/sys/class/hwmon/hwmon1/curr2_input", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(lw_chan_read(find(&cs, "ina3221/VDD_CPU_GPU_CV"), 4, &w, &e, &v, &a, why,
				      sizeof(why)), -1);
	assert_non_null(strstr(why, "Is a directory"));
	lw_power_chans_free(&cs);
	lw_test_rmdir(root);
}

static void test_model_source(void **st)
{
	char *root = copy_fixture();
	struct lw_board *b = lw_board_find("imx8mp-evk", NULL);
	struct lw_power_opts o = { .root = root, .mask = LW_SRC_MODEL, .board = b };
	struct lw_chans cs;
	struct lw_chan *c;
	double w, e, v, a;
	char why[256];

	assert_non_null(b);
	assert_int_equal(lw_power_discover(&o, &cs), 0);
	assert_int_equal(cs.n, 1);
	c = cs.c[0];
	assert_true(lw_chan_flags(c) & LW_RAIL_ESTIMATED);
	assert_int_equal(lw_chan_read(c, 1000000000, &w, &e, &v, &a, why, sizeof(why)), 0);
	/* one second later: cpu0 spent 0.5 s in cpu-pd-wait (5 mW), cpu1 0.25 s in WFI (40 mW) */
	put(root, "sys/devices/system/cpu/cpu0/cpuidle/state1/time", "550000\n");
	put(root, "sys/devices/system/cpu/cpu1/cpuidle/state0/time", "251000\n");
	put(root, "sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "1200000\n");
	assert_int_equal(lw_chan_read(c, 2000000000, &w, &e, &v, &a, why, sizeof(why)), 0);
	/* cpu0 at 1.6 GHz (250 mW): 0.5*5 + 0.5*250 = 127.5 mJ
	 * cpu1 at 1.2 GHz (150 mW): 0.25*40 + 0.75*150 = 122.5 mJ; static 1500 mJ */
	assert_true(near(e, 1.75));
	assert_true(near(w, 1.75));
	/* auto: the model only when no sensor is there */
	lw_power_chans_free(&cs);
	o.mask = LW_SRC_SENSORS;
	o.is_auto = 1;
	assert_int_equal(lw_power_discover(&o, &cs), 0);
	assert_int_equal(cs.n, 10);
	lw_power_chans_free(&cs);
	o.root = "/nonexistent";
	assert_error(lw_power_discover(&o, &cs) < 0, "power model: cannot read the online CPUs");
	lw_board_free(b);
	lw_test_rmdir(root);
}

/* No cpuidle driver (this kind of VM, the QEMU guests): the counters would
 * call every CPU active, so auto leaves the power to the trace's cpu_idle
 * events, and an explicit model says why it cannot. */
static void test_model_without_cpuidle(void **st)
{
	char *root = copy_fixture(), cmd[1024];
	struct lw_board *b = lw_board_find("imx8mp-evk", NULL);
	struct lw_power_opts o = { .root = root, .mask = LW_SRC_MODEL, .board = b };
	struct lw_chans cs;
	json_t *snap, *snap2, *d;

	assert_non_null(b);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/sys/devices/system/cpu/cpu*/cpuidle", root);
	assert_int_equal(system(cmd), 0);
	assert_error(lw_power_discover(&o, &cs) < 0, "no cpuidle counters");
	o.is_auto = 1;
	o.mask = 0;
	assert_int_equal(lw_power_discover(&o, &cs), 0);
	for (int i = 0; i < cs.n; i++)
		assert_null(strstr(lw_chan_name(cs.c[i]), "model/"));
	lw_power_chans_free(&cs);
	/* and the counters' residency says it has none, not "100 % active" */
	snap = lw_idle_snapshot(root);
	snap2 = lw_idle_snapshot(root);
	d = lw_idle_delta(snap, snap2, 1000000000);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(d, "cpus"), 0),
						 "active")));
	json_decref(snap);
	json_decref(snap2);
	json_decref(d);
	lw_board_free(b);
	lw_test_rmdir(root);
}

static void test_file_roundtrip(void **st)
{
	char *dir = lw_test_tmpdir(), path[512];
	struct lw_power_writer *w;
	struct lw_power_data *d;
	json_t *s, *r, *sf;

	snprintf(path, sizeof(path), "%s/power", dir);
	w = lw_power_create(LW_AT_PATH, path, 0, 0);
	assert_non_null(w);
	assert_int_equal(lw_power_rail(w, 0, "hw/a", "hwmon", LW_RAIL_TOTAL, "tab\tin detail"), 0);
	assert_int_equal(lw_power_rail(w, 1, "rapl/pkg", "rapl", LW_RAIL_ENERGY, "x"), 0);
	for (int i = 0; i <= 2; i++)
		lw_power_sample(w, 0, (uint64_t)i * 1000000000, 1.0, NAN, 5.0, 0.2);
	lw_power_gap(w, 0, 2500000000, "cannot read x: No such device");
	lw_power_gap(w, 0, 2600000000, "again");
	lw_power_sample(w, 0, 4000000000, 2.0, NAN, NAN, NAN);
	lw_power_sample(w, 0, 5000000000, 2.0, NAN, NAN, NAN);
	lw_power_sample(w, 1, 0, NAN, 0, NAN, NAN);
	lw_power_sample(w, 1, 1000000000, 1.0, 1.0, NAN, NAN);
	lw_power_sample(w, 1, 2000000000, 2.0, 3.0, NAN, NAN);
	assert_int_equal(lw_power_close(w, 5000000000), 0);

	d = lw_power_read(path);
	assert_non_null(d);
	assert_int_equal(d->nrail, 2);
	assert_int_equal(d->rail[0].n, 5);
	assert_int_equal(d->rail[0].gaps, 2);
	assert_true(d->rail[0].pt[3].after_gap);
	assert_string_equal(d->rail[0].first_gap, "cannot read x: No such device");
	assert_int_equal(d->end_ns, 5000000000);
	s = lw_power_summarize(d);
	r = json_array_get(json_object_get(s, "rails"), 0);
	/* 1 J + 1 J + (gap: 2 s to 4 s left out) + 2 J over 3 s */
	assert_true(near(json_real_value(json_object_get(r, "energy_j")), 4.0));
	assert_true(near(json_real_value(json_object_get(r, "average_w")), 4.0 / 3));
	assert_true(near(json_real_value(json_object_get(r, "max_w")), 2.0));
	r = json_array_get(json_object_get(s, "rails"), 1);
	assert_true(near(json_real_value(json_object_get(r, "energy_j")), 3.0));
	assert_true(near(json_real_value(json_object_get(r, "average_w")), 1.5));
	/* the total is the hwmon rail alone (the RAPL rail is not flagged total) */
	assert_true(near(json_real_value(json_object_get(json_object_get(s, "total"), "average_w")), 4.0 / 3));
	assert_string_equal(json_string_value(json_object_get(s, "kind")), "measured");
	/* the one-pass summary of the file is the same */
	sf = lw_power_summarize_file(path);
	assert_non_null(sf);
	assert_true(json_equal(s, sf));
	json_decref(sf);
	json_decref(s);
	lw_power_data_free(d);

	/* appending (import) keeps the header once */
	w = lw_power_create(LW_AT_PATH, path, 0, 1);
	assert_int_equal(lw_power_rail(w, 2, "meter/P", "meter", LW_RAIL_TOTAL, "csv"), 0);
	lw_power_sample(w, 2, 0, 10.0, NAN, NAN, NAN);
	lw_power_sample(w, 2, 1000000000, 10.0, NAN, NAN, NAN);
	assert_int_equal(lw_power_close(w, 0), 0);
	d = lw_power_read(path);
	assert_non_null(d);
	s = lw_power_summarize(d);
	/* a board-level meter is the total on its own */
	assert_true(near(json_real_value(json_object_get(json_object_get(s, "total"), "average_w")), 10.0));
	json_decref(s);
	lw_power_data_free(d);

	/* samples out of time order (not written by latwatt): sorted, as a
	 * whole read does, not integrated backwards */
	w = lw_power_create(LW_AT_PATH, path, 0, 1);
	assert_int_equal(lw_power_rail(w, 3, "meter/Q", "meter", 0, "csv"), 0);
	lw_power_sample(w, 3, 2000000000, 4.0, NAN, NAN, NAN);
	lw_power_sample(w, 3, 0, 2.0, NAN, NAN, NAN);
	lw_power_sample(w, 3, 1000000000, 2.0, NAN, NAN, NAN);
	assert_int_equal(lw_power_close(w, 0), 0);
	d = lw_power_read(path);
	s = lw_power_summarize(d);
	sf = lw_power_summarize_file(path);
	assert_non_null(sf);
	assert_true(json_equal(s, sf));
	r = json_array_get(json_object_get(sf, "rails"), 3);
	assert_true(near(json_real_value(json_object_get(r, "energy_j")), 5.0));	/* 2 J + 3 J */
	json_decref(s);
	json_decref(sf);
	lw_power_data_free(d);

	/* malformed files name the line */
	const char *bad1 = "latwatt-power\t1\ns\t0\t1\t1\t-\t-\t-\n";

	lw_test_write(path, bad1, strlen(bad1));
	assert_error(lw_power_read(path) == NULL, ":2: sample for a rail that was not declared");
	lw_test_write(path, "latwatt-power\t9\n", strlen("latwatt-power\t9\n"));
	assert_error(lw_power_read(path) == NULL, ":1: a power file version this latwatt does not read");
	lw_test_write(path, "hello\n", strlen("hello\n"));
	assert_error(lw_power_read(path) == NULL, ":1: not a latwatt power file");
	lw_test_rmdir(dir);
}

static char *mk_run(uint64_t start, uint64_t end)
{
	char *dir = lw_test_tmpdir(), run[512];
	struct lw_rundir rd;

	snprintf(run, sizeof(run), "%s/run", dir);
	assert_int_equal(lw_rundir_create(&rd, run, 0), 0);
	json_object_set_new(rd.manifest, "start", json_pack("{s:I}", "monotonic_ns", (json_int_t)start));
	json_object_set_new(rd.manifest, "end", json_pack("{s:I}", "monotonic_ns", (json_int_t)end));
	lw_manifest_set_status(rd.manifest, "complete", NULL);
	assert_int_equal(lw_rundir_save(&rd), 0);
	lw_rundir_close(&rd);
	return dir;
}

static void test_import_csv(void **st)
{
	char *dir = mk_run(100000000000ULL, 103000000000ULL), run[512], csv[512], path[600];
	const char *text =
		"# exported by a bench meter\n"
		"Time (s),GPIO,Power (W),Current (A)\n"
		"9.0,0,1.0,0.2\n"
		"10.0,1,2.0,0.4\n"
		"11.0,1,4.0,0.8\n"
		"12.0,0,,0.8\n"
		"13.0,0,4.0,0.8\n"
		"20.0,0,9.0,0.1\n";
	struct lw_import_opts o = { .offset_s = NAN, .marker = "GPIO" };
	struct lw_power_data *d;
	int r;

	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(csv, sizeof(csv), "%s/meter.csv", dir);
	snprintf(path, sizeof(path), "%s/power", run);
	lw_test_write(csv, text, strlen(text));
	assert_int_equal(lw_power_import_csv(run, csv, &o), 0);
	d = lw_power_read(path);
	assert_non_null(d);
	r = lw_power_find_rail(d, "meter/Power_(W)");
	assert_true(r >= 0);
	/* marker at meter time 10 s = run start; rows from 10 to 13 s (the 9 s row is before
	 * the run, the 20 s row after it), the empty reading a gap */
	assert_int_equal(d->rail[r].n, 3);
	assert_int_equal(d->rail[r].gaps, 1);
	assert_int_equal(d->rail[r].pt[0].ts, 100000000000ULL);
	assert_int_equal(d->rail[r].pt[2].ts, 103000000000ULL);
	assert_true(near(d->rail[r].pt[1].w, 4.0));
	lw_power_data_free(d);

	/* --offset, a column named by hand in mW */
	unlink(path);
	const char *cols[] = { "Current (A):mW" };
	struct lw_import_opts o2 = { .offset_s = 9.0, .columns = cols, .ncolumns = 1 };

	assert_int_equal(lw_power_import_csv(run, csv, &o2), 0);
	d = lw_power_read(path);
	assert_non_null(d);
	r = lw_power_find_rail(d, "meter/Current_(A)");
	assert_true(r >= 0);
	assert_int_equal(d->rail[r].pt[0].ts, 100000000000ULL);	/* the 9 s row */
	assert_true(near(d->rail[r].pt[0].w, 0.2e-3));
	lw_power_data_free(d);

	/* errors */
	struct lw_import_opts none = { .offset_s = NAN };

	assert_error(lw_power_import_csv(run, csv, &none) < 0, "give --offset S");
	struct lw_import_opts far = { .offset_s = 1000 };

	assert_error(lw_power_import_csv(run, csv, &far) < 0, "no row falls within the run");
	lw_test_write(csv, "t,P_w\n0,1\n1,x\n", strlen("t,P_w\n0,1\n1,x\n"));
	struct lw_import_opts z = { .offset_s = 0 };

	assert_error(lw_power_import_csv(run, csv, &z) < 0, "meter.csv:3: P_w 'x' is not a number");
	lw_test_write(csv, "t,volts\n0,1\n", strlen("t,volts\n0,1\n"));
	assert_error(lw_power_import_csv(run, csv, &z) < 0, "no power column found");
	lw_test_rmdir(dir);
}

static double total_w(const char *path)
{
	json_t *s = lw_power_summarize_file(path);
	double w;

	assert_non_null(s);
	w = json_real_value(json_object_get(json_object_get(s, "total"), "average_w"));
	json_decref(s);
	return w;
}

/* The same log imported twice replaces the first import's rails (it added a
 * second set beside them: total 3.031 W for a 1.5 W board); the sampler's
 * rails and another meter's stay; a failed import leaves RUN/power as it
 * was. */
static void test_import_idempotent(void **st)
{
	char *dir = mk_run(100000000000ULL, 103000000000ULL), run[512], csv[512], csv2[512];
	char path[600], *before = malloc(1 << 16), *after = malloc(1 << 16);
	const char *text = "t,Power (W)\n0,1.5\n1,1.5\n2,1.5\n3,1.5\n";
	const char *text2 = "t,usb_mw\n0,500\n3,500\n";
	struct lw_import_opts o = { .offset_s = 0 };
	struct lw_power_writer *w;
	struct lw_power_data *d;

	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(csv, sizeof(csv), "%s/meter.csv", dir);
	snprintf(csv2, sizeof(csv2), "%s/usb.csv", dir);
	snprintf(path, sizeof(path), "%s/power", run);
	lw_test_write(csv, text, strlen(text));
	lw_test_write(csv2, text2, strlen(text2));
	/* what the run's sampler wrote: a sensor rail, not part of the total */
	w = lw_power_create(LW_AT_PATH, path, 100000000000ULL, 0);
	assert_int_equal(lw_power_rail(w, 0, "hwmon/in", "hwmon", 0, "x"), 0);
	lw_power_sample(w, 0, 100000000000ULL, 0.5, NAN, NAN, NAN);
	lw_power_sample(w, 0, 103000000000ULL, 0.5, NAN, NAN, NAN);
	assert_int_equal(lw_power_close(w, 103000000000ULL), 0);

	assert_int_equal(lw_power_import_csv(run, csv, &o), 0);
	assert_true(near(total_w(path), 1.5));
	assert_int_equal(lw_power_import_csv(run, csv, &o), 0);
	assert_true(near(total_w(path), 1.5));
	d = lw_power_read(path);
	assert_non_null(d);
	assert_int_equal(d->nrail, 2);
	assert_int_equal(d->rail[lw_power_find_rail(d, "meter/Power_(W)")].n, 4);
	assert_int_equal(d->rail[lw_power_find_rail(d, "hwmon/in")].n, 2);
	assert_int_equal(d->end_ns, 103000000000ULL);
	lw_power_data_free(d);
	/* another meter's columns are added beside */
	assert_int_equal(lw_power_import_csv(run, csv2, &o), 0);
	assert_true(near(total_w(path), 2.0));
	/* a new offset replaces the rows too */
	o.offset_s = 1;
	assert_int_equal(lw_power_import_csv(run, csv, &o), 0);
	d = lw_power_read(path);
	assert_int_equal(d->nrail, 3);
	assert_int_equal(d->rail[lw_power_find_rail(d, "meter/Power_(W)")].n, 3);
	lw_power_data_free(d);
	/* a failed import changes nothing */
	slurp(path, before, 1 << 16);
	lw_test_write(csv, "t,Power (W)\n0,1\n1,oops\n", strlen("t,Power (W)\n0,1\n1,oops\n"));
	assert_error(lw_power_import_csv(run, csv, &o) < 0, "meter.csv:3: Power (W) 'oops'");
	slurp(path, after, 1 << 16);
	assert_string_equal(before, after);
	free(before);
	free(after);
	lw_test_rmdir(dir);
}

/* A NUL byte is refused with the file, line and column (the line was cut
 * at it and read as something else). */
static void test_import_nul(void **st)
{
	char *dir = mk_run(100000000000ULL, 103000000000ULL), run[512], csv[512];
	const char text[] = "t,Power (W)\n0,1.5\n1,1\0\n2,1.5\n";
	struct lw_import_opts o = { .offset_s = 0 };

	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(csv, sizeof(csv), "%s/meter.csv", dir);
	lw_test_write(csv, text, sizeof(text) - 1);
	assert_error(lw_power_import_csv(run, csv, &o) < 0, "meter.csv:3:4: a NUL byte");
	lw_test_write(csv, "t,Power\0 (W)\n0,1.5\n", 20);
	assert_error(lw_power_import_csv(run, csv, &o) < 0, "meter.csv:1:8: a NUL byte");
	lw_test_rmdir(dir);
}

/* Memory does not grow with the log: 300000 rows, most outside the run
 * (each row was kept to the end, 520 bytes: 156 MB and more). */
static void test_import_memory(void **st)
{
	char *dir = mk_run(100000000000ULL, 103000000000ULL), run[512], csv[512], path[600];
	struct lw_import_opts o = { .offset_s = 1000 };
	struct rusage ru0, ru1;
	FILE *f;

	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(csv, sizeof(csv), "%s/meter.csv", dir);
	snprintf(path, sizeof(path), "%s/power", run);
	f = fopen(csv, "w");
	assert_non_null(f);
	fprintf(f, "Time (s),Power (W),Current (A)\n");
	for (int i = 0; i < 300000; i++)
		fprintf(f, "%.3f,%.3f,0.5\n", i * 0.01, 1.0 + (i % 7) * 0.1);
	assert_int_equal(fclose(f), 0);
	getrusage(RUSAGE_SELF, &ru0);
	assert_int_equal(lw_power_import_csv(run, csv, &o), 0);
	getrusage(RUSAGE_SELF, &ru1);
	/* ru_maxrss is in KB: less than 16 MB more at the peak */
	assert_true(ru1.ru_maxrss - ru0.ru_maxrss < 16 * 1024);
	{
		struct lw_power_data *d = lw_power_read(path);

		assert_non_null(d);
		assert_int_equal(d->rail[0].n, 301);	/* 1000.00 s .. 1003.00 s */
		lw_power_data_free(d);
	}
	lw_test_rmdir(dir);
}

/* The sampler at 1 Hz over a run of 2.5 s: a sample at the start, one a
 * second, and one when it is stopped, at once (it slept to its next tick
 * and took none: a run of 3 s at the model's 1 Hz lost its last second,
 * 3.786 J over 2.0 s).  The summary says the span its samples cover
 * against the run's. */
static void test_sampler_spans_the_run(void **st)
{
	char *dir = lw_test_tmpdir(), run_path[512], path[600];
	struct lw_power_sampler_opts po = { .root = FIXTURE, .mask = LW_SRC_HWMON, .rate_hz = 1 };
	struct timespec ts = { 2, 500000000 };
	struct lw_power_data *d;
	struct lw_rundir rd;
	struct lw_run run;
	struct lw_part *p;
	uint64_t t_stop, t_stopped;
	json_t *s, *tot;
	int r;

	snprintf(run_path, sizeof(run_path), "%s/run", dir);
	assert_int_equal(lw_rundir_create(&rd, run_path, 0), 0);
	lw_run_init(&run, &rd);
	run.start_mono = lw_mono_ns();
	p = lw_power_sampler_new(&po);
	assert_non_null(p);
	assert_int_equal(p->start(&run, p), 0);
	nanosleep(&ts, NULL);
	t_stop = lw_mono_ns();
	p->stop(&run, p);
	t_stopped = lw_mono_ns();
	assert_int_equal(p->finish(&run, p), 0);
	p->destroy(p);
	/* stopped at once, not at the next tick 0.5 s later */
	assert_true(t_stopped - t_stop < 200000000ULL);

	snprintf(path, sizeof(path), "%s/power", run_path);
	d = lw_power_read(path);
	assert_non_null(d);
	r = lw_power_find_rail(d, "ina219/power1");
	assert_true(r >= 0);
	assert_int_equal(d->rail[r].n, 4);	/* 0 s, 1 s, 2 s and the stop at 2.5 s */
	assert_true(d->rail[r].pt[3].ts >= t_stop);
	s = lw_power_summarize(d);
	tot = json_object_get(s, "total");
	assert_true(json_real_value(json_object_get(tot, "from_s")) < 0.1);
	assert_true(json_real_value(json_object_get(tot, "to_s")) >= 2.5);
	assert_true(json_real_value(json_object_get(tot, "duration_s")) >= 2.45);
	assert_true(json_real_value(json_object_get(tot, "run_s")) >=
		    json_real_value(json_object_get(tot, "to_s")));
	json_decref(s);
	lw_power_data_free(d);
	lw_run_destroy(&run);	/* its journal too */
	lw_test_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_sources),
		cmocka_unit_test(test_source_table),
		cmocka_unit_test(test_discover_and_read),
		cmocka_unit_test(test_rapl_wrap),
		cmocka_unit_test(test_missing_and_bad_values),
		cmocka_unit_test(test_model_source),
		cmocka_unit_test(test_model_without_cpuidle),
		cmocka_unit_test(test_file_roundtrip),
		cmocka_unit_test(test_import_csv),
		cmocka_unit_test(test_import_idempotent),
		cmocka_unit_test(test_import_nul),
		cmocka_unit_test(test_import_memory),
		cmocka_unit_test(test_sampler_spans_the_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/* Board files: the shipped boards, every key, bad files with their messages,
 * energy-model lookups, discovery and the check against a sysinfo. */
#include <dirent.h>
#include <math.h>

#include "tests/unit/lw_test.h"
#include "boards/board.h"
#include "lib/metrics.h"
#include "lib/yamltree.h"
#include "lib/parse.h"
#include "lib/sysinfo.h"

static void test_shipped_boards(void **st)
{
	static const char *const names[] = { "local", "qemu-x86_64", "qemu-aarch64", "rpi4", "beaglebone-black",
					     "imx8mp-evk" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct lw_board *b = lw_board_find(names[i], NULL);

		if (!b)
			fail_msg("board %s: %s", names[i], lw_last_error());
		assert_string_equal(b->name, names[i]);
		assert_true(lw_board_has_model(b));
		if (strcmp(names[i], "local") && strcmp(names[i], "qemu-x86_64"))
			assert_true(b->nsources >= 2);	/* every reference board names its sources */
		lw_board_free(b);
	}
}

static void test_full(void **st)
{
	struct lw_board *b = lw_board_load("tests/data/boards/good/full.yaml");
	char buf[64];

	assert_non_null(b);
	assert_int_equal(b->ncpus, 4);
	assert_string_equal(lw_format_cpulist(&b->realtime, buf, sizeof(buf)), "1-3");
	assert_string_equal(lw_format_cpulist(&b->housekeeping, buf, sizeof(buf)), "0");
	assert_int_equal(b->kernel.preempt_rt, 1);
	/* isolcpus flags are skipped, the CPU list kept */
	assert_true(b->kernel.has_isolated);
	assert_string_equal(lw_format_cpulist(&b->kernel.isolated, buf, sizeof(buf)), "1-3");
	assert_string_equal(lw_format_cpulist(&b->kernel.nohz_full, buf, sizeof(buf)), "1-3");
	assert_int_equal(b->kernel.ntracers, 1);
	assert_int_equal(b->nidle, 2);
	assert_true(b->idle[1].estimated);
	/* OPPs sorted by frequency */
	assert_int_equal(b->nopp, 2);
	assert_int_equal(b->opp[0].freq_khz, 1200000);
	assert_int_equal(b->nsrc, 2);
	assert_string_equal(b->src[0].device, "ina3221");
	/* budgets: p99, max, cyclic p99.9, cyclic mean, 5 scalars */
	assert_int_equal(b->nbudget, 9);
	for (int i = 0; i < b->nbudget; i++)
		if (b->budget[i].m == lw_metric_find("power"))
			assert_true(fabs(b->budget[i].limit - 3500) < 1e-9);	/* 3.5 W in mW */
	assert_int_equal(b->nsources, 1);
	lw_board_free(b);
}

static void test_model_lookups(void **st)
{
	struct lw_board *b = lw_board_load("tests/data/boards/good/full.yaml");

	assert_non_null(b);
	/* linear between 1.2 GHz (100 mW) and 1.8 GHz (300 mW), clamped outside */
	assert_true(fabs(lw_board_active_power(b, 1500000) - 200) < 1e-9);
	assert_true(fabs(lw_board_active_power(b, 1200000) - 100) < 1e-9);
	assert_true(fabs(lw_board_active_power(b, 600000) - 100) < 1e-9);
	assert_true(fabs(lw_board_active_power(b, 2400000) - 300) < 1e-9);
	assert_int_equal(lw_board_nominal_khz(b), 1800000);
	assert_true(fabs(lw_board_idle_power(b, "deep") - 5) < 1e-9);
	assert_true(fabs(lw_board_idle_power(b, "unlisted") - 20) < 1e-9);	/* model.idle_power_mw */
	assert_true(fabs(lw_board_idle_power(b, "POLL") - 190) < 1e-9);	/* model.poll_power_mw */
	lw_board_free(b);
}

/* Every file under tests/data/boards/bad fails with the message its first
 * line ("# expect: ...") gives, file:line:column and key included. */
static void test_bad_files(void **st)
{
	DIR *d = opendir("tests/data/boards/bad");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[512], line[512], *want;
		FILE *f;
		struct lw_board *b;

		if (!strstr(e->d_name, ".yaml"))
			continue;
		snprintf(path, sizeof(path), "tests/data/boards/bad/%s", e->d_name);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_non_null(fgets(line, sizeof(line), f));
		fclose(f);
		line[strcspn(line, "\n")] = 0;
		want = strstr(line, "# expect: ");
		if (!want)
			fail_msg("%s: no '# expect:' line", path);
		want += strlen("# expect: ");
		int q = lw_set_quiet(1);

		b = lw_board_load(path);
		lw_set_quiet(q);
		if (b)
			fail_msg("%s: loaded, expected '%s'", path, want);
		if (!strstr(lw_last_error(), want))
			fail_msg("%s: error '%s' does not contain '%s'", path, lw_last_error(), want);
		if (!strstr(lw_last_error(), path))
			fail_msg("%s: error '%s' does not name the file", path, lw_last_error());
		n++;
	}
	closedir(d);
	assert_true(n >= 15);
}

static void test_yaml_marks(void **st)
{
	const char *text = "a:\n  b: [1, 2]\n  c: 'x'\n";
	struct lw_ynode *n = lw_yaml_parse("mem", text, strlen(text));

	assert_non_null(n);
	assert_int_equal(n->type, LW_Y_MAP);
	struct lw_ynode *a = lw_ymap_get(n, "a"), *b = lw_ymap_get(a, "b");

	assert_int_equal(b->type, LW_Y_SEQ);
	assert_int_equal(b->n, 2);
	assert_int_equal(b->kid[1]->line, 2);
	assert_int_equal(b->kid[1]->col, 10);
	assert_true(lw_ymap_get(a, "c")->quoted);
	lw_yaml_free(n);
	assert_error(lw_yaml_parse("mem", "a: 1\n---\nb: 2\n", 14) == NULL, "more than one YAML document");
	/* empty file: an empty mapping, and the board says what is missing */
	assert_error(lw_board_parse("empty.yaml", "") == NULL, "empty.yaml: format: missing");
}

/* The limits every YAML file is held to (lib/yamltree.h), shared with
 * scenario files through lw_yaml_check(). */
static void test_yaml_limits(void **st)
{
	char deep[2 * (LW_YAML_MAX_DEPTH + 1) + 8], *wide;
	size_t n = 0, len;

	n += (size_t)sprintf(deep, "a: ");
	for (int i = 0; i < LW_YAML_MAX_DEPTH; i++)
		deep[n++] = '[';
	for (int i = 0; i < LW_YAML_MAX_DEPTH; i++)
		deep[n++] = ']';
	deep[n] = 0;
	/* the top mapping and 64 sequences: one level too many */
	assert_error(lw_yaml_parse("deep.yaml", deep, n) == NULL, "deep.yaml:1:");
	assert_error(lw_yaml_check("deep.yaml", deep, n) < 0, "nested more than 64 deep");
	/* one level less is fine */
	assert_int_equal(lw_yaml_check("ok.yaml", deep + 4, n - 8) == 0 ? 0 : -1, 0);

	len = 4 * (LW_YAML_MAX_NODES + 1) + 8;
	wide = malloc(len);
	assert_non_null(wide);
	n = (size_t)sprintf(wide, "[");
	for (int i = 0; i <= LW_YAML_MAX_NODES; i++)
		n += (size_t)sprintf(wide + n, "1,");
	wide[n - 1] = ']';
	assert_error(lw_yaml_check("wide.yaml", wide, n) < 0, "more than 100000 values");
	assert_error(lw_yaml_parse("wide.yaml", wide, n) == NULL, "more than 100000 values");
	free(wide);
	assert_error(lw_yaml_check("big.yaml", "", (size_t)LW_YAML_MAX_TEXT + 1) < 0,
		     "big.yaml: larger than");
}

static void test_unknown_board(void **st)
{
	assert_error(lw_board_find("no-such-board", NULL) == NULL, "board 'no-such-board' not found");
}

static void test_discover_fixture(void **st)
{
	struct lw_board *b = lw_board_find("local", "tests/data/sysfs/board1");

	assert_non_null(b);
	assert_int_equal(b->ncpus, 2);
	assert_int_equal(b->nidle, 3);
	assert_string_equal(b->idle[1].name, "cpu-pd-wait");
	assert_true(fabs(b->idle[1].exit_latency_us - 1500) < 1e-9);
	assert_int_equal(b->nopp, 3);
	assert_int_equal(b->opp[2].freq_khz, 1800000);
	/* local.yaml's model gives the figures */
	assert_true(fabs(lw_board_idle_power(b, "cpu-pd-wait") - 100) < 1e-9);
	lw_board_free(b);
}

static int has_diff(const json_t *d, const char *what, const char *text)
{
	size_t i;
	json_t *x;

	json_array_foreach(d, i, x)
		if (!strcmp(json_string_value(json_object_get(x, "what")), what) &&
		    strstr(json_string_value(json_object_get(x, "message")), text))
			return 1;
	return 0;
}

static void test_check(void **st)
{
	struct lw_board *b = lw_board_load("tests/data/boards/good/full.yaml");
	json_t *sys = lw_sysinfo_collect("tests/data/sysroot/rt-arm64"), *d;

	assert_non_null(b);
	json_object_set_new(sys, "power_sources", json_array());
	d = lw_board_check(b, sys);
	/* the fixture is PREEMPT_RT with nohz_full=3 isolcpus=3 on 4 CPUs */
	assert_false(has_diff(d, "preempt_rt", ""));
	assert_false(has_diff(d, "cpus.count", ""));
	assert_true(has_diff(d, "nohz_full", "nohz_full is 3, the board expects 1-3"));
	assert_true(has_diff(d, "isolated", "isolated is 3, the board expects 1-3"));
	assert_true(has_diff(d, "cmdline", "rcu_nocbs=1-3 is missing"));
	assert_true(has_diff(d, "power_sources", "power sensor hwmon ina3221 is missing"));
	assert_false(has_diff(d, "power_sources", "meter"));
	json_decref(d);

	/* a machine that is not PREEMPT_RT */
	json_object_set_new(json_object_get(sys, "preempt"), "rt", json_false());
	d = lw_board_check(b, sys);
	assert_true(has_diff(d, "preempt_rt", "kernel is not PREEMPT_RT"));
	json_decref(d);
	json_decref(sys);
	lw_board_free(b);

	/* a discovered board matches the machine it was discovered on */
	b = lw_board_find("local", "tests/data/sysroot/rt-arm64");
	sys = lw_sysinfo_collect("tests/data/sysroot/rt-arm64");
	d = lw_board_check(b, sys);
	if (json_array_size(d))
		fail_msg("local differs from itself: %s",
			 json_string_value(json_object_get(json_array_get(d, 0), "message")));
	json_decref(d);
	json_decref(sys);
	lw_board_free(b);
}

/* target.options: an allow-list, the key in any case, "Key=value" and
 * "Key value"; nothing that runs a command, loads a library or another
 * configuration, jumps, forwards or writes a file of ssh's choosing. */
static void test_ssh_options(void **st)
{
	static const char *const ok[] = {
		"Port=22", "port 22", "PORT = 2222", "StrictHostKeyChecking=accept-new",
		"UserKnownHostsFile=/dev/null", "userknownhostsfile none", "User=root",
		"IdentityFile=~/.ssh/id_ed25519", "ConnectTimeout=5", "IPQoS=lowdelay throughput",
		"HostKeyAlgorithms=+ssh-rsa", "Ciphers=aes128-ctr,aes256-ctr", "BatchMode=yes",
		"ServerAliveInterval\t10", "HostKeyAlias=rpi4.lab",
	};
	static const char *const refused[] = {
		"ProxyCommand=sh -c 'id > /tmp/x'", "proxycommand sh -c 'id'", "PROXYCOMMAND=x",
		"LocalCommand=id", "PermitLocalCommand=yes", "KnownHostsCommand=/bin/id",
		"RemoteCommand=id", "Include=/tmp/evil.conf", "include /tmp/evil.conf",
		"Match=exec \"id\"", "Match exec id", "Host=*", "ProxyJump=evil@host",
		"proxyjump evil", "PKCS11Provider=/tmp/x.so", "SecurityKeyProvider=/tmp/x.so",
		"LocalForward=8080 localhost:80", "RemoteForward 2222 localhost:22",
		"DynamicForward=1080", "ForwardAgent=yes", "ForwardX11=yes", "Tunnel=yes",
		"SetEnv=LD_PRELOAD=/x", "SendEnv=LANG", "ControlPath=/etc/x", "ControlMaster=yes",
		"IdentityAgent=/tmp/sock", "LogLevel=DEBUG3", " ProxyCommand=x",
		"\"ProxyCommand\"=x", "-oProxyCommand=x", "=x", "Port", "Port=",
		"Port=22\nProxyCommand x", "HostKeyAlias=x;id", "User=-oProxyCommand=x",
		"User=a b", "IdentityFile=\"/a b\"", "Ciphers=aes128-ctr;id",
	};
	const char *why;
	int known;

	(void)st;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		known = 0;
		if (lw_ssh_option_check(ok[i], &why, &known) < 0)
			fail_msg("'%s' refused: %s", ok[i], why);
		assert_int_equal(known, 0);
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		known = 0;
		if (lw_ssh_option_check(refused[i], &why, &known) == 0)
			fail_msg("'%s' allowed", refused[i]);
	}
	known = 0;
	assert_int_equal(lw_ssh_option_check("UserKnownHostsFile=/lab/known_hosts", &why, &known), 0);
	assert_int_equal(known, 1);
	assert_int_equal(lw_ssh_option_check("LocalCommand=id", &why, &known), -1);
	assert_string_equal(why, "runs a command");

	assert_true(lw_ssh_dest_ok("root@192.168.1.20"));
	assert_true(lw_ssh_dest_ok("rpi4.local"));
	assert_true(lw_ssh_dest_ok("root@fe80::1%eth0"));
	assert_false(lw_ssh_dest_ok("-oProxyCommand=id"));
	assert_false(lw_ssh_dest_ok("root@-oProxyCommand=id"));
	assert_false(lw_ssh_dest_ok("-l@host"));
	assert_false(lw_ssh_dest_ok("a$(id)@host"));
	assert_false(lw_ssh_dest_ok("root@host;id"));
	assert_false(lw_ssh_dest_ok("a@b@c"));
	assert_false(lw_ssh_dest_ok("root@"));
	assert_false(lw_ssh_dest_ok(""));
	assert_false(lw_ssh_dest_ok("ssh://root@host"));

	/* in a board file: the file, the line and column of the item */
	int q = lw_set_quiet(1);
	struct lw_board *b = lw_board_parse("evil.yaml", "format: 1\nname: evil\n"
		"target:\n  ssh: root@127.0.0.1\n  options:\n    - Port=22\n"
		"    - \"ProxyCommand=sh -c 'id > /tmp/x'\"\n");
	lw_set_quiet(q);
	assert_null(b);
	assert_non_null(strstr(lw_last_error(), "evil.yaml:7:7: target.options[1]: ssh option "
				 "ProxyCommand: runs a command"));
	b = lw_board_parse("lab.yaml", "format: 1\nname: lab\ntarget:\n  ssh: root@lab\n"
			   "  options: [UserKnownHostsFile=/lab/known_hosts]\n");
	assert_non_null(b);
	assert_int_equal(b->target.known_hosts, 1);
	lw_board_free(b);
}

static void test_idle_differences(void **st)
{
	struct lw_board *b = lw_board_find("imx8mp-evk", NULL);
	json_t *sys = lw_sysinfo_collect("tests/data/sysfs/board1"), *d;

	assert_non_null(b);
	d = lw_board_check(b, sys);
	/* the fixture has WFI, cpu-pd-wait and a state the board does not list */
	assert_true(has_diff(d, "cpu0.idle_states", "idle state extra-state is not in the board file"));
	assert_false(has_diff(d, "cpu0.idle_states", "cpu-pd-wait"));
	json_decref(d);
	/* change an exit latency: reported */
	json_t *st1 = json_array_get(json_object_get(json_array_get(json_object_get(
		json_object_get(sys, "cpuidle"), "cpus"), 0), "states"), 1);
	json_object_set_new(st1, "exit_latency_us", json_integer(700));
	d = lw_board_check(b, sys);
	assert_true(has_diff(d, "cpu0.idle_states", "cpu-pd-wait exit latency is 700us, the board says 1500us"));
	json_decref(d);
	json_decref(sys);
	lw_board_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_boards),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_model_lookups),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_yaml_marks),
		cmocka_unit_test(test_yaml_limits),
		cmocka_unit_test(test_unknown_board),
		cmocka_unit_test(test_discover_fixture),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_idle_differences),
		cmocka_unit_test(test_ssh_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/* latwatt target's building blocks: words quoted for the remote sh come out
 * of a real sh unchanged, and the board file's target: section. */
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "boards/board.h"
#include "lib/shquote.h"

/* Run "printf %s QUOTED" through /bin/sh -c and return what it printed. */
static char *through_sh(const char *word)
{
	struct lw_sb c = { 0 };
	static char out[4096];
	int p[2], st;
	size_t got = 0;
	ssize_t r;
	pid_t pid;

	lw_sb_add(&c, "printf %s ");
	lw_sb_quote(&c, word);
	assert_non_null(lw_sb_str(&c));
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		execl("/bin/sh", "sh", "-c", c.s, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while ((r = read(p[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += (size_t)r;
	out[got] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	lw_sb_free(&c);
	return out;
}

static void test_quote_words(void **st)
{
	static const char *const words[] = {
		"", "plain", "two words", "it's", "'", "''", "a'b'c", "$(touch /tmp/x)",
		"`id`", "; rm -rf /", "a\nb", "\\", "\"quoted\"", "$HOME", "*", "-d", "--x=y z",
		"tab\there", "!bang", "~root", "é ü",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		assert_string_equal(through_sh(words[i]), words[i]);
}

static void test_quote_form(void **st)
{
	struct lw_sb b = { 0 };

	lw_sb_add(&b, "cd ");
	lw_sb_quote(&b, "/tmp/a b'c");
	assert_string_equal(lw_sb_str(&b), "cd '/tmp/a b'\\''c'");
	lw_sb_free(&b);
	assert_string_equal(lw_sb_str(&b), "");
	lw_sb_free(&b);
}

static const char head[] =
	"format: 1\nname: t\narch: aarch64\n"
	"idle_states:\n  - name: WFI\n    exit_latency_us: 1\n    target_residency_us: 1\n";

static struct lw_board *parse(const char *tail)
{
	char text[2048];

	snprintf(text, sizeof(text), "%s%s", head, tail);
	return lw_board_parse("t.yaml", text);
}

static void test_board_target(void **st)
{
	struct lw_board *b = parse("target:\n  ssh: root@10.0.0.2\n  port: 2222\n"
				   "  identity: /k/id\n  dir: /data\n"
				   "  options: [StrictHostKeyChecking=accept-new, ConnectTimeout=5]\n");

	if (!b)
		fail_msg("%s", lw_last_error());
	assert_string_equal(b->target.ssh, "root@10.0.0.2");
	assert_int_equal(b->target.port, 2222);
	assert_string_equal(b->target.identity, "/k/id");
	assert_string_equal(b->target.dir, "/data");
	assert_int_equal(b->target.noptions, 2);
	assert_string_equal(b->target.options[1], "ConnectTimeout=5");
	lw_board_free(b);

	b = parse("");
	assert_non_null(b);
	assert_null(b->target.ssh);
	lw_board_free(b);
}

static void test_board_target_bad(void **st)
{
	static const struct { const char *yaml, *msg; } bad[] = {
		{ "target:\n  port: 22\n", "target.ssh" },
		{ "target:\n  ssh: -oProxyCommand=x\n", "target.ssh" },
		{ "target:\n  ssh: \"a b\"\n", "target.ssh" },
		{ "target:\n  ssh: h\n  port: 0\n", "target.port" },
		{ "target:\n  ssh: h\n  port: 70000\n", "target.port" },
		{ "target:\n  ssh: h\n  dir: tmp\n", "target.dir" },
		{ "target:\n  ssh: h\n  options: [-F/etc/x]\n", "target.options" },
		{ "target:\n  ssh: h\n  user: root\n", "t.yaml:10:3: target: unknown key" },
		{ "target: [a]\n", "target" },
	};
	int q = lw_set_quiet(1);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct lw_board *b = parse(bad[i].yaml);

		if (b)
			fail_msg("accepted: %s", bad[i].yaml);
		if (!strstr(lw_last_error(), bad[i].msg) || !strstr(lw_last_error(), "t.yaml"))
			fail_msg("'%s': message '%s' does not name %s", bad[i].yaml, lw_last_error(),
				 bad[i].msg);
	}
	lw_set_quiet(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote_words),
		cmocka_unit_test(test_quote_form),
		cmocka_unit_test(test_board_target),
		cmocka_unit_test(test_board_target_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * latwatt target: run latwatt on a board over ssh and bring the run home.
 *
 * Every step is one OpenSSH client process (ssh, never a shell on this
 * side): look at the board (uname -m, id -u, tracefs, a fresh directory),
 * copy latwatt for its architecture there (a bundle of 'make ARCH=...' with
 * its libraries and loader, or a static binary) and the board file, run
 * 'latwatt run' in a terminal (-tt) so that its progress shows here, stream
 * the run directory back through tar, and remove what was copied.  The
 * remote command lines are fixed text and words quoted for sh
 * (lib/shquote.h): nothing from the command line or the board becomes
 * remote shell syntax.  SIGINT/SIGTERM here send SIGINT to the remote run
 * (by the pid it wrote), which stops, restores the board's kernel state and
 * leaves an incomplete run; that run still comes home.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "boards/board.h"
#include "cmd/commands.h"
#include "lib/error.h"
#include "lib/input.h"
#include "lib/parse.h"
#include "lib/rundir.h"
#include "lib/safefile.h"
#include "lib/shquote.h"
#include "lib/spawn.h"

#ifndef LW_TARGET_LIBDIR
#define LW_TARGET_LIBDIR "/usr/local/lib/latwatt"
#endif

static const char usage[] =
"usage: latwatt target [OPTIONS] -o RUN [--] [LATWATT-RUN-ARGS...]\n"
"\n"
"Run 'latwatt run' on a board over ssh and bring the run directory home:\n"
"looks at the board (uname -m, root, tracefs, which it mounts if needed),\n"
"copies latwatt for the board's architecture into a fresh directory there\n"
"(with its libraries and loader, or a static binary) and the board file,\n"
"runs 'latwatt run -o DIR/run LATWATT-RUN-ARGS' showing its progress, copies\n"
"the run back to RUN (manifest.json gets a 'target' record: board, host,\n"
"binary) and removes what it copied.  Interrupted (Ctrl-C, SIGTERM), it\n"
"stops the remote run, which restores the board's kernel state, and still\n"
"brings the incomplete run home.  Uses the system's OpenSSH client with\n"
"BatchMode (keys or an agent, no password prompts).\n"
"\n"
"  -s, --ssh [USER@]HOST   the board (default: the board file's target.ssh)\n"
"  -p, --port PORT         ssh port (default: target.port, else ssh's)\n"
"  -i, --identity FILE     private key (default: target.identity)\n"
"  -O, --ssh-option OPT    an ssh -o option, e.g. StrictHostKeyChecking=accept-new\n"
"                          (repeatable; ahead of target.options, which a board\n"
"                          file may fill only from an allow-list: man latwatt,\n"
"                          SECURITY)\n"
"  -b, --board NAME|FILE   the board file: its target: section, and copied along\n"
"                          as the remote run's --board\n"
"  -o, --output RUN        local run directory to create (must not exist)\n"
"  -L, --latwatt FILE      what to copy: a bundle latwatt-MACHINE.tar.gz\n"
"                          ('make ARCH=arm64', 'make bundle') or a static\n"
"                          binary (default: latwatt-MACHINE.tar.gz next to this\n"
"                          latwatt, in its build-ARCH/ folders or in\n"
"                          " LW_TARGET_LIBDIR "; this latwatt itself when it is\n"
"                          static and the board's MACHINE is this one's)\n"
"  -d, --remote-dir DIR    where on the board (default: target.dir, else /tmp)\n"
"  -t, --connect-timeout S seconds for each ssh connection (default 15)\n"
"  -k, --keep              leave the copied files and run on the board\n"
"  -h, --help              this text\n"
"\n"
"exit status: that of the remote 'latwatt run' (0, 1 budget broken, 130\n"
"interrupted) once the run is home; 2 when the board cannot be reached or\n"
"the run cannot be brought back.\n";

struct target {
	const char *ssh, *identity, *dir, *output, *latwatt;
	unsigned port, timeout;
	const char **opt;		/* ssh -o options (optv) */
	int nopt;
	const char *optv[32];
	int keep;
	struct lw_board *board;
	const char *board_file;		/* local file copied to the board */
	char **run_args;
	int nrun_args;

	char machine[64];		/* uname -m there */
	char rdir[PATH_MAX];		/* fresh directory there */
	char tracefs[32];		/* "tracefs", "tracefs-mounted" */
	char bundle[PATH_MAX];		/* what was copied */
	int static_bin;
	char port_s[16], timeout_s[48];	/* ssh arguments */
	int odfd;			/* the folder of output, opened and checked */
	char obase[256];		/* output's name in it */
};

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t alarm_fired;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void on_alarm(int sig)
{
	(void)sig;
	alarm_fired = 1;
}

/* ------------------------------------------------------------ processes */

/* argv under construction (pointers into strings that outlive it). */
struct argv {
	const char *v[64];
	int n;
};

static int argv_add(struct argv *a, const char *s)
{
	if (a->n >= (int)(sizeof(a->v) / sizeof(a->v[0])) - 1)
		return error("too many ssh arguments");
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
	return 0;
}

/* ssh with the connection options, then the board and @cmd. */
static int ssh_argv(struct argv *a, const struct target *t, int tty, const char *cmd)
{
	int rc = 0;

	a->n = 0;
	rc |= argv_add(a, "ssh");
	rc |= argv_add(a, tty ? "-tt" : "-T");
	rc |= argv_add(a, "-o");
	rc |= argv_add(a, "BatchMode=yes");
	rc |= argv_add(a, "-o");
	rc |= argv_add(a, t->timeout_s);
	rc |= argv_add(a, "-o");
	rc |= argv_add(a, "ServerAliveInterval=10");
	rc |= argv_add(a, "-o");
	rc |= argv_add(a, "ServerAliveCountMax=6");
	rc |= argv_add(a, "-o");
	rc |= argv_add(a, "LogLevel=ERROR");
	if (t->board && t->board->target.known_hosts) {
		/* the board file's known-hosts file is only read (ssh takes the
		 * first value given: these come before every -o option) */
		rc |= argv_add(a, "-o");
		rc |= argv_add(a, "StrictHostKeyChecking=yes");
		rc |= argv_add(a, "-o");
		rc |= argv_add(a, "UpdateHostKeys=no");
		rc |= argv_add(a, "-o");
		rc |= argv_add(a, "CheckHostIP=no");
	}
	if (t->port) {
		rc |= argv_add(a, "-p");
		rc |= argv_add(a, t->port_s);
	}
	if (t->identity) {
		rc |= argv_add(a, "-i");
		rc |= argv_add(a, t->identity);
		rc |= argv_add(a, "-o");
		rc |= argv_add(a, "IdentitiesOnly=yes");
	}
	for (int i = 0; i < t->nopt; i++) {
		rc |= argv_add(a, "-o");
		rc |= argv_add(a, t->opt[i]);
	}
	rc |= argv_add(a, "--");
	rc |= argv_add(a, t->ssh);
	rc |= argv_add(a, cmd);
	return rc ? -1 : 0;
}

/*
 * argv with stdin/stdout from @in/@out (-1: /dev/null, or inherited
 * stdout), in a process group of its own so that a Ctrl-C at the terminal
 * reaches this process only, which then stops the remote side in order.
 * The program's path goes into @prog.
 */
static int child_of(struct lw_child *c, const struct argv *a, int in, int out, char *prog,
		    size_t len)
{
	/* ssh and tar from an absolute PATH entry that only root or this user
	 * control (lib/input.h) */
	switch (lw_in_which(a->v[0], prog, len)) {
	case 0:
		break;
	case 1:
		return error("%s not found in PATH", a->v[0]);
	default:
		return -1;
	}
	*c = (struct lw_child){ .argv = a->v, .path = prog, .in = in >= 0 ? in : LW_CHILD_NULL,
				.out = out >= 0 ? out : 0, .pgroup = 1,
				.sig_default = LW_SIG_STOPS };
	return 0;
}

static int spawn(struct lw_child *c, const struct argv *a, int in, int out)
{
	char prog[PATH_MAX];

	if (child_of(c, a, in, out, prog, sizeof(prog)) < 0)
		return -1;
	return lw_child_start(c);
}

/* ssh @cmd with stdin from @in (-1: none), stdout into @buf (NULL:
 * inherited).  The remote command's exit status (255: ssh failed). */
static int ssh_run(const struct target *t, const char *cmd, int in, char *buf, size_t len)
{
	struct lw_child c;
	struct argv a;
	char prog[PATH_MAX];

	if (ssh_argv(&a, t, 0, cmd) < 0 || child_of(&c, &a, in, -1, prog, sizeof(prog)) < 0)
		return -1;
	return buf ? lw_child_capture(&c, buf, len) : lw_child_run(&c);
}

/* ------------------------------------------------------------ the board */

/* "uname -m" of this machine's build directory name (build-ARCH). */
static const char *deb_arch(const char *machine)
{
	static const struct { const char *m, *a; } map[] = {
		{ "aarch64", "arm64" }, { "armv7l", "armhf" }, { "armv8l", "armhf" },
		{ "x86_64", "amd64" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(machine, map[i].m))
			return map[i].a;
	return NULL;
}

/* Is the ELF file @path statically linked (no program interpreter)?  p_type
 * is the first word of a program header in both ELF classes. */
static int elf_is_static(const char *path)
{
	union { Elf64_Ehdr e64; Elf32_Ehdr e32; } eh;
	int fd = open(path, O_RDONLY | O_CLOEXEC), res = 0;
	uint64_t off;
	unsigned n, size;
	uint32_t type;

	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) < (ssize_t)sizeof(eh.e32) ||
	    memcmp(eh.e64.e_ident, ELFMAG, SELFMAG))
		goto out;
	if (eh.e64.e_ident[EI_CLASS] == ELFCLASS64) {
		off = eh.e64.e_phoff, n = eh.e64.e_phnum, size = eh.e64.e_phentsize;
	} else if (eh.e64.e_ident[EI_CLASS] == ELFCLASS32) {
		off = eh.e32.e_phoff, n = eh.e32.e_phnum, size = eh.e32.e_phentsize;
	} else {
		goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		if (pread(fd, &type, sizeof(type), (off_t)(off + (uint64_t)i * size)) != sizeof(type))
			goto out;
		if (type == PT_INTERP)
			goto out;
	}
	res = 1;
out:
	close(fd);
	return res;
}

static int readable_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, R_OK) == 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Pick what to copy for t->machine into t->bundle (see the usage text). */
static int find_latwatt(struct target *t)
{
	char exe[PATH_MAX], dir[PATH_MAX], name[96], cand[PATH_MAX];
	const char *arch = deb_arch(t->machine);
	struct utsname u;
	ssize_t n;

	if (t->latwatt) {
		if (!readable_file(t->latwatt))
			return error("%s: not a readable file", t->latwatt);
		snprintf(t->bundle, sizeof(t->bundle), "%s", t->latwatt);
		t->static_bin = !ends_with(t->latwatt, ".tar.gz");
		if (t->static_bin && !elf_is_static(t->latwatt))
			return error("%s: neither a bundle (.tar.gz) nor a static binary: make ARCH=... "
				     "makes the bundle latwatt-%s.tar.gz", t->latwatt, t->machine);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return error_errno("cannot read /proc/self/exe");
	exe[n] = '\0';
	snprintf(dir, sizeof(dir), "%s", exe);
	*strrchr(dir, '/') = '\0';
	if (!*dir)
		strcpy(dir, "/");
	snprintf(name, sizeof(name), "latwatt-%s.tar.gz", t->machine);
	{
		const char *const sub[] = { "", "/..", "/build", arch ? "/build-" : NULL, NULL };
		for (int i = 0; sub[i]; i++) {
			if (!strcmp(sub[i], "/build-"))
				snprintf(cand, sizeof(cand), "%s/build-%s/%s", dir, arch, name);
			else
				snprintf(cand, sizeof(cand), "%s%s/%s", dir, sub[i], name);
			if (readable_file(cand))
				goto found;
		}
		snprintf(cand, sizeof(cand), "%s/../lib/latwatt/%s", dir, name);
		if (readable_file(cand))
			goto found;
		snprintf(cand, sizeof(cand), "%s/%s", LW_TARGET_LIBDIR, name);
		if (readable_file(cand))
			goto found;
	}
	if (uname(&u) == 0 && !strcmp(u.machine, t->machine) && elf_is_static(exe)) {
		snprintf(t->bundle, sizeof(t->bundle), "%s", exe);
		t->static_bin = 1;
		return 0;
	}
	return error("no latwatt for a %s board: build one with 'make ARCH=%s' (or 'make bundle' "
		     "on a %s machine), or pass --latwatt FILE", t->machine, arch ? arch : t->machine,
		     t->machine);
found:
	snprintf(t->bundle, sizeof(t->bundle), "%s", cand);
	t->static_bin = 0;
	return 0;
}

/* One line of @s into @out; advances @s. */
static int take_line(char **s, char *out, size_t len)
{
	char *nl = strchr(*s, '\n');
	size_t n;

	if (!nl)
		return -1;
	n = (size_t)(nl - *s);
	if (n && (*s)[n - 1] == '\r')
		n--;
	if (n >= len)
		return -1;
	memcpy(out, *s, n);
	out[n] = '\0';
	*s = nl + 1;
	return 0;
}

/* uname -m, uid, tracefs (mounted if missing) and a fresh directory. */
static int probe_board(struct target *t)
{
	struct lw_sb c = { 0 };
	char out[4096], uid[32], *p = out;
	const char *cmd;
	int rc;

	lw_sb_add(&c, "uname -m; id -u; "
		  "if [ -e /sys/kernel/tracing/trace_marker ]; then echo tracefs; "
		  "elif [ \"$(id -u)\" = 0 ] && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null && "
		  "[ -e /sys/kernel/tracing/trace_marker ]; then echo tracefs-mounted; "
		  "else echo no-tracefs; fi; mktemp -d ");
	lw_sb_quote(&c, t->dir);
	lw_sb_add(&c, "/latwatt-target.XXXXXX");
	if (!(cmd = lw_sb_str(&c)))
		return -1;
	rc = ssh_run(t, cmd, -1, out, sizeof(out));
	lw_sb_free(&c);
	if (rc == 255)
		return error("cannot reach %s over ssh (see ssh's message above)", t->ssh);
	if (rc < 0)
		return -1;
	if (take_line(&p, t->machine, sizeof(t->machine)) < 0 || take_line(&p, uid, sizeof(uid)) < 0 ||
	    take_line(&p, t->tracefs, sizeof(t->tracefs)) < 0)
		return error("%s: unexpected answer to uname/id (status %d): '%.200s'", t->ssh, rc, out);
	if (take_line(&p, t->rdir, sizeof(t->rdir)) < 0 || rc != 0) {
		t->rdir[0] = '\0';
		return error("%s: cannot create a directory in %s there (mktemp -d, status %d)",
			     t->ssh, t->dir, rc);
	}
	/* the directory must be the one asked for: it is removed at the end */
	if (strncmp(t->rdir, t->dir, strlen(t->dir)) || !strstr(t->rdir, "/latwatt-target.") ||
	    strstr(t->rdir, "/../")) {
		error("%s: mktemp gave an unexpected directory '%s'", t->ssh, t->rdir);
		t->rdir[0] = '\0';
		return -1;
	}
	if (!*t->machine || strspn(t->machine, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
	    strlen(t->machine))
		return error("%s: uname -m says '%s'", t->ssh, t->machine);
	if (strcmp(uid, "0"))
		return error("%s: latwatt run needs root there (uid %s): log in as root", t->ssh, uid);
	if (!strcmp(t->tracefs, "no-tracefs"))
		return error("%s: no tracefs at /sys/kernel/tracing, and mounting it failed "
			     "(a kernel without CONFIG_TRACING?)", t->ssh);
	return 0;
}

/* Copy the bundle (unpacked there) or static binary, and the board file. */
static int copy_to_board(struct target *t)
{
	struct lw_sb c = { 0 };
	const char *cmd;
	struct stat st;
	int fd, rc;

	fd = lw_in_open(t->bundle, 0, 0, &st);
	if (fd < 0)
		return -1;
	note("copying %s (%.1f MB) to %s:%s", t->bundle, st.st_size / 1e6, t->ssh, t->rdir);
	lw_sb_add(&c, "cd ");
	lw_sb_quote(&c, t->rdir);
	if (t->static_bin)
		lw_sb_add(&c, " && mkdir bin && cat >bin/latwatt && chmod 755 bin/latwatt");
	else
		lw_sb_add(&c, " && tar -xzf - && test -x bin/latwatt");
	cmd = lw_sb_str(&c);
	rc = cmd ? ssh_run(t, cmd, fd, NULL, 0) : -1;
	close(fd);
	lw_sb_free(&c);
	if (rc != 0)
		return rc < 0 ? -1 : error("%s: cannot unpack latwatt in %s (status %d)", t->ssh,
					   t->rdir, rc);
	if (!t->board_file || !t->board->text)
		return 0;
	/* the bytes that were checked, not the file read again */
	fd = lw_tmpfile();
	if (fd < 0)
		return -1;
	if (write(fd, t->board->text, t->board->text_len) != (ssize_t)t->board->text_len ||
	    lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return error_errno("cannot copy %s", t->board_file);
	}
	lw_sb_add(&c, "mkdir ");
	lw_sb_quote(&c, t->rdir);
	lw_sb_add(&c, "/boards && cat >");
	lw_sb_quote(&c, t->rdir);
	lw_sb_add(&c, "/boards/");
	lw_sb_quote(&c, t->board->name);
	lw_sb_add(&c, ".yaml");
	cmd = lw_sb_str(&c);
	rc = cmd ? ssh_run(t, cmd, fd, NULL, 0) : -1;
	close(fd);
	lw_sb_free(&c);
	if (rc != 0)
		return rc < 0 ? -1 : error("%s: cannot copy the board file (status %d)", t->ssh, rc);
	return 0;
}

/* SIGINT to the remote run, by the pid it wrote. */
static void remote_interrupt(const struct target *t)
{
	struct lw_sb c = { 0 };
	const char *cmd;

	lw_sb_add(&c, "p=$(cat ");
	lw_sb_quote(&c, t->rdir);
	lw_sb_add(&c, "/pid 2>/dev/null) && [ -n \"$p\" ] && kill -INT \"$p\"");
	if ((cmd = lw_sb_str(&c)))
		ssh_run(t, cmd, -1, NULL, 0);
	lw_sb_free(&c);
}

struct board_wait {
	struct target *t;
	int *interrupted;
	int sent, killed;
};

/* A signal while the run there goes on: ^C stops it in order, and if it
 * does not stop within 60 s, the connection is closed. */
static void board_signal(struct lw_child *ch, void *arg)
{
	struct board_wait *w = arg;

	if (stop_signal && !w->sent) {
		note("stopping the run on %s", w->t->ssh);
		remote_interrupt(w->t);
		w->sent = 1;
		*w->interrupted = 1;
		alarm_fired = 0;
		alarm(60);
	} else if (alarm_fired && !w->killed) {
		/* the run did not stop: closing the terminal sends it SIGHUP */
		note("the run on %s did not stop within 60 s: closing the connection", w->t->ssh);
		kill(ch->pid, SIGTERM);
		w->killed = 1;
	}
}

/*
 * latwatt run there, in a terminal so that its progress lines show here.
 * Returns its exit status (255: the connection failed), -1 on error.
 */
static int run_on_board(struct target *t, int *interrupted)
{
	struct lw_sb c = { 0 }, args = { 0 };
	struct board_wait w = { .t = t, .interrupted = interrupted };
	struct lw_child ch;
	const char *cmd;
	struct argv a;
	int rc = -1;

	lw_sb_add(&args, "run -o ");
	lw_sb_quote(&args, t->rdir);
	lw_sb_add(&args, "/run");
	if (t->board_file) {
		/* found first by name (LATWATT_BOARDS below): the manifest names it */
		lw_sb_add(&args, " --board ");
		lw_sb_quote(&args, t->board->name);
	}
	for (int i = 0; i < t->nrun_args; i++) {
		lw_sb_add(&args, " ");
		lw_sb_quote(&args, t->run_args[i]);
	}
	if (!lw_sb_str(&args))
		goto out;
	/* exec keeps the pid written for remote_interrupt() */
	lw_sb_add(&c, "cd ");
	lw_sb_quote(&c, t->rdir);
	lw_sb_add(&c, " || exit 2; echo $$ >pid; LATWATT_BOARDS=\"$PWD/boards\"; export LATWATT_BOARDS; if [ -s loader ]; then l=$(cat loader); "
		  "exec \"$PWD/lib/${l##*/}\" --library-path \"$PWD/lib\" \"$PWD/bin/latwatt\" ");
	lw_sb_add(&c, args.s);
	lw_sb_add(&c, "; else exec \"$PWD/bin/latwatt\" ");
	lw_sb_add(&c, args.s);
	lw_sb_add(&c, "; fi");
	if (!(cmd = lw_sb_str(&c)) || ssh_argv(&a, t, 1, cmd) < 0)
		goto out;
	if (spawn(&ch, &a, -1, -1) < 0)
		goto out;
	ch.on_signal = board_signal;
	ch.on_signal_arg = &w;
	rc = lw_child_wait(&ch);
	alarm(0);
out:
	lw_sb_free(&c);
	lw_sb_free(&args);
	return rc;
}

/* A fresh directory OUTPUT.partXXXXXX in the folder of the output (t->odfd,
 * checked when the command started); its path in @stage, its name in @name. */
static int make_stage(struct target *t, char *stage, size_t len, char *name, size_t nlen)
{
	const char *slash = strrchr(t->output, '/');
	int dlen = slash ? (int)(slash - t->output) + 1 : 0;

	for (int tries = 0; tries < 100; tries++) {
		uint32_t r;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint32_t)time(NULL) ^ (uint32_t)getpid() << 12 ^ (uint32_t)tries;
		if ((size_t)snprintf(name, nlen, "%.200s.part%06x", t->obase, r & 0xffffff) >= nlen ||
		    (size_t)snprintf(stage, len, "%.*s%s", dlen, t->output, name) >= len)
			return error("%s: path too long", t->output);
		if (mkdirat(t->odfd, name, 0700) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	return error_errno("cannot create %s", stage);
}

/* RUN there -> a staging directory beside @output -> @output. */
static int copy_home(struct target *t)
{
	char stage[PATH_MAX], name[256];
	struct lw_sb c = { 0 };
	struct argv ssh, tar = { .n = 0 };
	int p[2], rc1, rc2, sfd, ss, st;
	struct lw_child cs, ct;
	const char *cmd;

	if (make_stage(t, stage, sizeof(stage), name, sizeof(name)) < 0)
		return -1;
	lw_sb_add(&c, "cd ");
	lw_sb_quote(&c, t->rdir);
	lw_sb_add(&c, " && test -d run && tar -cf - run");
	if (!(cmd = lw_sb_str(&c)) || ssh_argv(&ssh, t, 0, cmd) < 0)
		goto fail;
	argv_add(&tar, "tar");
	argv_add(&tar, "-x");
	argv_add(&tar, "-f");
	argv_add(&tar, "-");
	argv_add(&tar, "--no-same-owner");
	argv_add(&tar, "--no-same-permissions");
	argv_add(&tar, "-C");
	argv_add(&tar, stage);
	if (pipe2(p, O_CLOEXEC) < 0) {
		error_errno("pipe");
		goto fail;
	}
	ss = spawn(&cs, &ssh, -1, p[1]);
	st = ss < 0 ? -1 : spawn(&ct, &tar, p[0], -1);
	close(p[0]);
	close(p[1]);
	rc1 = ss < 0 ? -1 : lw_child_wait(&cs);
	rc2 = st < 0 ? -1 : lw_child_wait(&ct);
	if (rc1 != 0 || rc2 != 0) {
		error("cannot copy the run back from %s:%s/run (ssh status %d, tar status %d)",
		      t->ssh, t->rdir, rc1, rc2);
		goto fail;
	}
	if (lw_tree_plain(stage) < 0)
		goto fail;
	sfd = lw_open_beneath(t->odfd, name, O_RDONLY | O_DIRECTORY, 0);
	if (sfd < 0 || renameat(sfd, "run", t->odfd, t->obase) < 0) {
		error_errno("cannot move the run to %s", t->output);
		if (sfd >= 0)
			close(sfd);
		goto fail;
	}
	close(sfd);
	unlinkat(t->odfd, name, AT_REMOVEDIR);
	lw_sb_free(&c);
	return 0;
fail:
	lw_tree_remove(stage);
	lw_sb_free(&c);
	return -1;
}

static void remove_from_board(struct target *t)
{
	struct lw_sb c = { 0 };
	const char *cmd;

	if (!*t->rdir)
		return;
	if (t->keep) {
		note("left on %s: %s", t->ssh, t->rdir);
		return;
	}
	lw_sb_add(&c, "rm -rf ");
	lw_sb_quote(&c, t->rdir);
	if ((cmd = lw_sb_str(&c)) && ssh_run(t, cmd, -1, NULL, 0) != 0)
		warning("cannot remove %s on %s", t->rdir, t->ssh);
	lw_sb_free(&c);
}

/* manifest.json: who ran it from where, on which board, with what. */
static int record_target(const struct target *t, int status, int interrupted)
{
	struct lw_rundir rd = { 0 };
	char host[256] = "";
	json_t *o, *args;

	if (lw_rundir_open(&rd, t->output) < 0)
		return -1;
	gethostname(host, sizeof(host) - 1);
	args = json_array();
	for (int i = 0; i < t->nrun_args; i++)
		json_array_append_new(args, json_string(t->run_args[i]));
	o = json_pack("{s:s, s:s*, s:s*, s:s, s:s, s:s, s:s, s:s, s:o, s:i, s:b}",
		      "ssh", t->ssh,
		      "board", t->board ? t->board->name : NULL,
		      "board_file", t->board_file,
		      "machine", t->machine,
		      "tracefs", t->tracefs,
		      "remote_dir", t->rdir,
		      "latwatt", t->bundle,
		      "collected_by", host,
		      "run_args", args,
		      "run_status", status,
		      "interrupted", interrupted);
	if (!o || json_object_set_new(rd.manifest, "target", o) < 0) {
		lw_rundir_close(&rd);
		return error("out of memory");
	}
	if (t->port)
		json_object_set_new(o, "port", json_integer(t->port));
	if (lw_rundir_save(&rd) < 0) {
		lw_rundir_close(&rd);
		return -1;
	}
	lw_rundir_close(&rd);
	return 0;
}

/* ------------------------------------------------------------- command */

/*
 * The options into @t (its ssh -o options in t->optv) and @board_name.
 * Returns 0, 1 after --help, or -1 after error().
 */
static int parse_target_options(struct target *t, const char **board_name, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ssh",             required_argument, NULL, 's' },
		{ "port",            required_argument, NULL, 'p' },
		{ "identity",        required_argument, NULL, 'i' },
		{ "ssh-option",      required_argument, NULL, 'O' },
		{ "board",           required_argument, NULL, 'b' },
		{ "output",          required_argument, NULL, 'o' },
		{ "latwatt",         required_argument, NULL, 'L' },
		{ "remote-dir",      required_argument, NULL, 'd' },
		{ "connect-timeout", required_argument, NULL, 't' },
		{ "keep",            no_argument,       NULL, 'k' },
		{ "help",            no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;
	unsigned long v;
	char *end;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+:s:p:i:O:b:o:L:d:t:kh", opts, NULL)) != -1) {
		switch (c) {
		case 's': t->ssh = optarg; break;
		case 'i': t->identity = optarg; break;
		case 'b': *board_name = optarg; break;
		case 'o': t->output = optarg; break;
		case 'L': t->latwatt = optarg; break;
		case 'd': t->dir = optarg; break;
		case 'k': t->keep = 1; break;
		case 'O':
			if (t->nopt >= (int)(sizeof(t->optv) / sizeof(t->optv[0])) - 8)
				return error("too many --ssh-option");
			if (!strchr(optarg, '=') || optarg[0] == '-')
				return error("--ssh-option '%s': give an ssh option as Key=value",
					     optarg);
			t->optv[t->nopt++] = optarg;
			break;
		case 'p':
		case 't':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (!*optarg || *end || errno || v == 0 || v > 65535)
				return error("--%s '%s': not a number from 1 to 65535",
					     c == 'p' ? "port" : "connect-timeout", optarg);
			if (c == 'p')
				t->port = (unsigned)v;
			else
				t->timeout = (unsigned)v;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		default:
			lw_opt_error(c, argv, "target");
			return -1;
		}
	}
	t->run_args = argv + optind;
	t->nrun_args = argc - optind;
	if (t->nrun_args && !strcmp(t->run_args[0], "--")) {
		t->run_args++;
		t->nrun_args--;
	}
	return 0;
}

/* The run's arguments leave -o (and -b with --board) to this side; the output
 * is new.  Opens the output's folder (t->odfd).  Returns 0 or -1 after error(). */
static int check_run_args(struct target *t, const char *board_name)
{
	struct stat st;

	for (int i = 0; i < t->nrun_args; i++) {
		const char *a = t->run_args[i];

		if (!strcmp(a, "-o") || !strncmp(a, "--output", 8) || (!strncmp(a, "-o", 2) && a[2]) ||
		    (board_name && (!strcmp(a, "-b") || !strncmp(a, "--board", 7))))
			return error("'%s' is for 'latwatt target' itself, not among the run's "
				     "arguments", a);
	}
	if (!t->output)
		return error("no output: give -o RUN (see 'latwatt target --help')");
	if (lstat(t->output, &st) == 0)
		return error("%s exists: pick another -o RUN", t->output);
	/* where the run is staged and put, before anything is done: its folder
	 * chain checked (lib/safefile.h), held open to the end */
	t->odfd = lw_dir_of(t->output, t->obase, sizeof(t->obase));
	return t->odfd < 0 ? -1 : 0;
}

/* The board file's target: section under the options, the defaults, and the
 * checks of where to go.  Returns 0 or -1 after error(). */
static int settle_target(struct target *t, const char *board_name)
{
	if (board_name) {
		t->board = lw_board_find(board_name, NULL);
		if (!t->board)
			return -1;
		if (t->board->discovered && !t->board->path)
			return error("board '%s' is this machine: give the board file of the target",
				     board_name);
		t->board_file = t->board->path;
		if (!t->ssh)
			t->ssh = t->board->target.ssh;
		if (!t->port)
			t->port = t->board->target.port;
		if (!t->identity)
			t->identity = t->board->target.identity;
		if (!t->dir)
			t->dir = t->board->target.dir;
		for (int i = 0; i < t->board->target.noptions &&
				t->nopt < (int)(sizeof(t->optv) / sizeof(t->optv[0])); i++)
			t->optv[t->nopt++] = t->board->target.options[i];
	}
	t->opt = t->optv;
	snprintf(t->port_s, sizeof(t->port_s), "%u", t->port);
	snprintf(t->timeout_s, sizeof(t->timeout_s), "ConnectTimeout=%u", t->timeout);
	if (!t->dir)
		t->dir = "/tmp";
	if (!t->ssh)
		return error("no board to reach: give --ssh [USER@]HOST, or a board file with a "
			     "target: section");
	if (!lw_ssh_dest_ok(t->ssh))
		return error("--ssh '%s' is not a [USER@]HOST (letters, digits, '.', '_', '-', not "
			     "starting with '-')", t->ssh);
	if (t->dir[0] != '/' || strchr(t->dir, '\n'))
		return error("--remote-dir '%s' is not an absolute path", t->dir);
	return 0;
}

/* Look at the board, copy latwatt there, run it and bring the run home.
 * Returns the exit status. */
static int run_target(struct target *t)
{
	int rc = LW_EXIT_ERROR, status = -1, interrupted = 0;

	note("looking at %s", t->ssh);
	if (probe_board(t) < 0)
		goto cleanup;
	if (find_latwatt(t) < 0)
		goto cleanup;
	if (t->board && t->board->arch && strcmp(t->board->arch, t->machine))
		warning("%s says arch %s, %s says %s: is it the right board file?",
			t->board_file ? t->board_file : t->board->name, t->board->arch, t->ssh,
			t->machine);
	note("%s: %s, root, %s", t->ssh, t->machine,
	     !strcmp(t->tracefs, "tracefs") ? "tracefs there" : "tracefs mounted now");
	if (stop_signal || copy_to_board(t) < 0)
		goto cleanup;
	if (stop_signal)
		goto cleanup;
	status = run_on_board(t, &interrupted);
	if (status < 0)
		goto cleanup;
	if (status == 255)
		warning("ssh to %s failed during the run: bringing home what is there", t->ssh);
	note("copying the run back to %s", t->output);
	if (copy_home(t) < 0)
		goto cleanup;
	if (record_target(t, status, interrupted) < 0)
		goto cleanup;
	note("run directory %s (remote latwatt run status %d)", t->output, status);
	if (interrupted || stop_signal)
		rc = LW_EXIT_INTERRUPTED;
	else if (status == 255)
		rc = LW_EXIT_ERROR;
	else
		rc = status;
cleanup:
	if (stop_signal && status < 0) {
		note("interrupted before the run started: nothing to bring home");
		rc = LW_EXIT_INTERRUPTED;
	}
	remove_from_board(t);
	return rc;
}

int cmd_target(int argc, char **argv)
{
	struct target t = { .timeout = 15, .odfd = -1 };
	const char *board_name = NULL;
	struct sigaction sa = { 0 }, old_int, old_term, old_alrm;
	int r, rc = LW_EXIT_ERROR;

	stop_signal = 0;
	alarm_fired = 0;
	r = parse_target_options(&t, &board_name, argc, argv);
	if (r)
		return r > 0 ? LW_EXIT_OK : LW_EXIT_ERROR;
	if (check_run_args(&t, board_name) < 0)
		return LW_EXIT_ERROR;
	if (settle_target(&t, board_name) < 0)
		goto out;

	/* a signal stops the remote run in order instead of killing this side */
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, &old_alrm);
	rc = run_target(&t);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGALRM, &old_alrm, NULL);
out:
	lw_board_free(t.board);
	close(t.odfd);
	return rc;
}

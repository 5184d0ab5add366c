// SPDX-License-Identifier: GPL-2.0-only
/*
 * A LAVA server's answers (api/v0.2) as 'latwatt lab' reads them: the input
 * is the server, in parts separated by "\n--8<--\n" lines:
 *
 *   0 jobs/ID/            a job's state (state, health, device, times)
 *   1 devices/            the devices (hostname, health, tags)
 *   2 tags/               the tags (id, name)
 *   3 jobs/ID/tests/      the test cases, page 1 (page 2: part 4; then none)
 *   4 jobs/ID/tests/      page 2
 *   5 jobs/ID/suites/     the suites
 *   6 jobs/ID/logs/       the job's log (LAVA's YAML records, a console
 *                         upload between latwatt-upload-begin/-end lines)
 *   7 jobs/ (POST)        the answer to a submission (job_ids)
 *   8 JOBS.json           the jobs file (empty: a valid one of two jobs)
 *
 * A part starting "HTTP NNN\n" is answered with that status.  Driven
 * through the commands: 'lab submit' (devices, tags, job ids), 'lab wait
 * --results' (states, the failure's reason from the log, test cases and
 * suites over pages), and the console upload decoded from the log as
 * 'lab fetch' decodes it (not unpacked: that is tar's).  No curl: the
 * answers come through lw_lava_answer.
 */
#include "cmd/commands.h"
#include "cmd/lava_api.h"
#include "fuzz/fuzz.h"

#define NPARTS 9

static const uint8_t *part[NPARTS];
static size_t plen[NPARTS];

static const char jobs_default[] =
	"{\"schema\": \"latwatt-lab-jobs\", \"version\": 1, \"lab\": \"fuzz\", "
	"\"url\": \"http://fuzz.invalid/\", \"jobs\": ["
	"{\"id\": 1, \"kernel\": \"a\", \"repeat\": 1}, {\"id\": 2, \"kernel\": \"b\", \"repeat\": 1}]}";
static const char job_yaml[] = "device_type: qemu\njob_name: fuzz\nactions:\n- boot: {}\n";
static const char no_more[] = "{\"count\": 0, \"next\": null, \"results\": []}";

/* @d (@n bytes) into @out, status 200, or the one of a first line
 * "HTTP NNN". */
static int answer_bytes(const uint8_t *d, size_t n, const char *out, long *status)
{
	FILE *f;

	*status = 200;
	if (n >= 9 && !memcmp(d, "HTTP ", 5)) {
		const uint8_t *nl = memchr(d, '\n', n);

		if (nl) {
			*status = strtol((const char *)d + 5, NULL, 10) % 1000;
			n -= (size_t)(nl + 1 - d);
			d = nl + 1;
		}
	}
	if (!(f = fopen(out, "we"))) {
		perror(out);
		abort();
	}
	if (n && fwrite(d, 1, n, f) != n) {
		perror(out);
		abort();
	}
	fclose(f);
	return 0;
}

static int answer_part(int i, const char *out, long *status)
{
	return answer_bytes(part[i], plen[i], out, status);
}

static int answer(const char *path, const char *body, const char *out, long *status)
{
	if (body)
		return answer_part(7, out, status);
	if (!strncmp(path, "devices/", 8))
		return answer_part(1, out, status);
	if (!strncmp(path, "tags/", 5))
		return answer_part(2, out, status);
	if (!strncmp(path, "jobs/", 5)) {
		const char *rest = path + 5 + strspn(path + 5, "0123456789");
		const char *pg = strstr(rest, "page=");
		long page = pg ? strtol(pg + 5, NULL, 10) : 1;

		if (!strncmp(rest, "/tests/", 7))
			return page > 2 ? answer_bytes((const uint8_t *)no_more, sizeof(no_more) - 1,
						       out, status) :
			       answer_part(page == 2 ? 4 : 3, out, status);
		if (!strncmp(rest, "/suites/", 8))
			return page > 1 ? answer_bytes((const uint8_t *)no_more, sizeof(no_more) - 1,
						       out, status) :
			       answer_part(5, out, status);
		if (!strncmp(rest, "/logs/", 6))
			return answer_part(6, out, status);
		return answer_part(0, out, status);
	}
	return answer_bytes((const uint8_t *)"HTTP 404\n{}", 11, out, status);
}

static void run(int argc, const char **argv)
{
	(void)cmd_lab(argc, (char **)argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int once;
	char jobs[512], def[512], out[512], up[512], name[256];
	FILE *log, *upf;

	fz_dir();
	if (!once) {
		/* the commands' lines on stdout are not looked at */
		if (!freopen("/dev/null", "w", stdout))
			abort();
		setenv("LAVA_TOKEN", "fuzz-token", 1);
		setenv("TMPDIR", fz_dir(), 1);	/* the client's scratch directories */
		unsetenv("LAVA_TOKEN_FILE");
		lw_lava_answer = answer;
		once = 1;
	}
	fz_split(data, size, NPARTS, part, plen);
	if (plen[8])
		fz_write("jobs.json", part[8], plen[8], jobs, sizeof(jobs));
	else
		fz_write("jobs.json", jobs_default, sizeof(jobs_default) - 1, jobs, sizeof(jobs));
	fz_write("job.yaml", job_yaml, sizeof(job_yaml) - 1, def, sizeof(def));
	snprintf(out, sizeof(out), "%s/submitted.json", fz_dir());
	{
		char kernel[600];

		snprintf(kernel, sizeof(kernel), "k=%s", def);
		run(9, (const char *[]){ "lab", "submit", "-r", "2", "--url", "http://fuzz.invalid/",
					 "-o", out, kernel, NULL });
	}
	run(8, (const char *[]){ "lab", "wait", "--results", "--interval", "1ms", "--timeout", "1ms",
				 jobs, NULL });
	fz_unlink("submitted.json");

	/* the console upload, as fetch decodes it */
	fz_write("log", part[6], plen[6], up, sizeof(up));
	log = fopen(up, "re");
	snprintf(up, sizeof(up), "%s/up.tar.gz", fz_dir());
	upf = fopen(up, "we");
	if (log && upf)
		(void)lw_lava_log_upload(log, "fuzz", upf, name, sizeof(name));
	if (log)
		fclose(log);
	if (upf)
		fclose(upf);
	fz_unlink("up.tar.gz");
	fz_unlink("log");
	return 0;
}

/* Shared helpers of the CLI tests: see cli_util.h. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "helpers.h"
#include "cli_util.h"

char t_cli_path[PATH_MAX];
char t_cli_dir[64];
char t_cli_out[1 << 16];
char t_cli_err[4096];

/* The CLI next to our tests/ directory is the one built with this test,
 * so it wins over $BUILD (which may name another build). */
static int
find_cli(void)
{
	char self[PATH_MAX];
	const char *env = getenv("SOFTOFFLOAD"), *build = getenv("BUILD");
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(t_cli_path, sizeof(t_cli_path), "%s", env);
		return access(t_cli_path, X_OK) == 0;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(t_cli_path, sizeof(t_cli_path), "%.*s/../softoffload",
				 PATH_MAX - 20, self);
			if (access(t_cli_path, X_OK) == 0)
				return 1;
		}
	}
	if (build && *build) {
		snprintf(t_cli_path, sizeof(t_cli_path), "%.*s/softoffload", PATH_MAX - 20, build);
		return access(t_cli_path, X_OK) == 0;
	}
	return 0;
}

int
t_cli_init(const char *tag)
{
	if (!find_cli()) {
		fprintf(stderr, "skip: CLI not built (%s); make cli or set SOFTOFFLOAD=path\n",
			t_cli_path);
		return T_SKIP;
	}
	snprintf(t_cli_dir, sizeof(t_cli_dir), "/tmp/sofl-%.40s-XXXXXX", tag);
	if (!mkdtemp(t_cli_dir)) {
		fprintf(stderr, "cannot create %s\n", t_cli_dir);
		return 1;
	}
	return 0;
}

int
t_cli_fini(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t_cli_dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "could not remove %s\n", t_cli_dir);
		return -1;
	}
	return 0;
}

char *
t_cli_file(char *buf, size_t cap, const char *name)
{
	if (name[0] == '/')
		snprintf(buf, cap, "%s", name);
	else
		snprintf(buf, cap, "%s/%s", t_cli_dir, name);
	return buf;
}

void
t_cli_write_file(const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f = fopen(t_cli_file(path, sizeof(path), name), "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

void
t_cli_slurp(const char *name, char *buf, size_t cap)
{
	char path[PATH_MAX];
	FILE *f = fopen(t_cli_file(path, sizeof(path), name), "rb");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
}

int
t_cli_run(const char *sub, const char *fmt, ...)
{
	char args[512], cmd[PATH_MAX + 1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s %s >stdout 2>stderr",
		 t_cli_dir, t_cli_path, sub, args);
	st = system(cmd);
	assert_true(st != -1 && WIFEXITED(st));
	t_cli_slurp("stdout", t_cli_out, sizeof(t_cli_out));
	t_cli_slurp("stderr", t_cli_err, sizeof(t_cli_err));
	return WEXITSTATUS(st);
}

long long
t_cli_num_after(const char *label)
{
	const char *s = strstr(t_cli_out, label);

	if (!s) {
		fprintf(stderr, "no '%s' in:\n%s", label, t_cli_out);
		fail();
	}
	return strtoll(s + strlen(label), NULL, 10);
}

/* ---- captures ---- */

#define SNAPLEN 262144

static void
le32(FILE *f, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	assert_int_equal(fwrite(b, 1, 4, f), 4);
}

/* pcapng, little endian: a section header block (version 1.0, length
 * unknown) and one interface description block (microsecond timestamps). */
static void
pcapng_head(FILE *f, uint32_t linktype)
{
	le32(f, 0x0a0d0d0a); le32(f, 28); le32(f, 0x1a2b3c4d); le32(f, 1);
	le32(f, 0xffffffff); le32(f, 0xffffffff); le32(f, 28);
	le32(f, 1); le32(f, 20); le32(f, linktype); le32(f, SNAPLEN); le32(f, 20);
}

/* One enhanced packet block on interface 0, data padded to 4 bytes. */
static void
pcapng_epb(FILE *f, const void *d, uint32_t caplen, uint32_t len, uint64_t ts_us)
{
	static const uint8_t zero[4];
	uint32_t pad = (4 - caplen % 4) % 4, tot = 32 + caplen + pad;

	le32(f, 6); le32(f, tot); le32(f, 0);
	le32(f, (uint32_t)(ts_us >> 32)); le32(f, (uint32_t)ts_us);
	le32(f, caplen); le32(f, len);
	assert_int_equal(fwrite(d, 1, caplen, f), caplen);
	assert_int_equal(fwrite(zero, 1, pad, f), pad);
	le32(f, tot);
}

void
t_capw_open(struct t_capw *w, const char *name, int link, enum t_cap_fmt fmt)
{
	char path[PATH_MAX];

	memset(w, 0, sizeof(*w));
	t_cli_file(path, sizeof(path), name);
	if (fmt == T_CAP_PCAPNG) {
		w->f = fopen(path, "wb");
		assert_non_null(w->f);
		pcapng_head(w->f, (uint32_t)link);
		return;
	}
	w->pcap = pcap_open_dead(link, SNAPLEN);
	assert_non_null(w->pcap);
	w->dump = pcap_dump_open(w->pcap, path);
	assert_non_null(w->dump);
}

void
t_capw_put(struct t_capw *w, const void *d, uint32_t caplen, uint32_t len, uint64_t ts_us)
{
	struct pcap_pkthdr h;

	if (w->f) {
		pcapng_epb(w->f, d, caplen, len, ts_us);
		return;
	}
	memset(&h, 0, sizeof(h));
	h.ts.tv_sec = (time_t)(ts_us / 1000000);
	h.ts.tv_usec = (suseconds_t)(ts_us % 1000000);
	h.caplen = caplen;
	h.len = len;
	pcap_dump((u_char *)w->dump, &h, d);
}

void
t_capw_close(struct t_capw *w)
{
	if (w->f) {
		assert_int_equal(fclose(w->f), 0);
	} else {
		assert_int_equal(pcap_dump_flush(w->dump), 0);
		pcap_dump_close(w->dump);
		pcap_close(w->pcap);
	}
	memset(w, 0, sizeof(*w));
}

pcap_t *
t_cli_open_pcap(const char *name)
{
	char path[PATH_MAX], eb[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(t_cli_file(path, sizeof(path), name), eb);

	if (!p)
		fprintf(stderr, "%s: %s\n", path, eb);
	assert_non_null(p);
	return p;
}

/* stderr of the last run is exactly @nlines lines; the first starts with @pfx
 * and contains @want (when not NULL).  Prints what it got when not. */
static int
err_form(const char *args, const char *pfx, const char *want, int nlines)
{
	const char *p = t_cli_err;
	int n = 0;

	for (; *p; p++)
		n += *p == '\n';
	if (n == nlines && p > t_cli_err && p[-1] == '\n' && !strncmp(t_cli_err, pfx, strlen(pfx)) &&
	    (!want || (strstr(t_cli_err, want) && strstr(t_cli_err, want) < strchr(t_cli_err, '\n'))))
		return 1;
	fprintf(stderr, "args '%s': want %d line(s) '%s...%s...'; stdout '%s' stderr '%s'\n", args,
		nlines, pfx, want ? want : "", t_cli_out, t_cli_err);
	return 0;
}

void
t_cli_usage_error(const char *sub, const char *want, const char *fmt, ...)
{
	char args[512], pfx[64], tr[96];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	rc = t_cli_run(sub, "%s", args);
	snprintf(pfx, sizeof(pfx), "softoffload %s: ", sub);
	snprintf(tr, sizeof(tr), "\nTry 'softoffload %s --help'\n", sub);
	if (rc != 2 || t_cli_out[0] || !err_form(args, pfx, want, 2) || !strstr(t_cli_err, tr)) {
		fprintf(stderr, "usage error expected: '%s %s' exit %d, stderr '%s'\n", sub, args,
			rc, t_cli_err);
		fail();
	}
}

void
t_cli_file_error(const char *sub, const char *want, const char *fmt, ...)
{
	char args[512];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	rc = t_cli_run(sub, "%s", args);
	if (rc != 2 || !err_form(args, "softoffload: ", want, 1)) {
		fprintf(stderr, "one-line error expected: '%s %s' exit %d\n", sub, args, rc);
		fail();
	}
}

long long
t_cli_counter(const char *section, const char *what)
{
	char head[128];
	const char *s, *l;
	size_t hl, wl = strlen(what);

	snprintf(head, sizeof(head), "%s:\n", section);
	hl = strlen(head);
	for (s = t_cli_out; s; s = strchr(s, '\n'), s = s ? s + 1 : NULL)
		if (!strncmp(s, head, hl))
			break;
	/* the section's lines: each "\t<n> <what>" */
	for (l = s ? s + hl : NULL; l && *l == '\t'; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		char *end;
		long long v = strtoll(l + 1, &end, 10);

		if (end > l + 1 && *end == ' ' && !strncmp(end + 1, what, wl) && end[1 + wl] == '\n')
			return v;
	}
	fprintf(stderr, "no '\\t<n> %s' in section '%s' of:\n%s", what, section, t_cli_out);
	fail();
	return -1;
}

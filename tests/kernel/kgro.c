/* kgro — the running kernel's GRO as a test oracle (docs/kernel-oracle.md).
 *
 * Replays an Ethernet capture into a TAP opened with IFF_NAPI|IFF_VNET_HDR in
 * the current (throw-away) network namespace and reads what GRO made of it
 * with an AF_PACKET socket (PACKET_VNET_HDR) bound to the TAP.
 *
 * Why batches are exact: the TAP is switched to threaded NAPI, its NAPI
 * kthread is pinned to our CPU and we run SCHED_FIFO there.  A write only
 * queues the frame and wakes the (SCHED_OTHER) kthread, which cannot run while
 * we hold the CPU; when we sleep after the batch it runs one poll that takes
 * the whole queue (batches stay below the NAPI budget of 64) and, with
 * gro_flush_timeout 0, completes everything held at the end of the poll.  We
 * then verify it: our thread must not have been switched out during the
 * writes (getrusage RUSAGE_THREAD), the kthread must not have gone to sleep
 * during them (it does after every poll) and must have gone to sleep
 * afterwards (its voluntary context switches in /proc).  A batch that fails
 * the check is replayed (GRO keeps no state across polls here).  A sentinel
 * frame written alone after each batch marks the end of its output.
 *
 * usage: kgro -r in.pcap -w out.pcap -m out.vnet -P polls.txt
 *             [-b max_batch] [-S seed | -B n1,n2,...] [-u] [-d dev] [-v]
 *   -b  batches are random sizes in [1, max_batch] (default 32, at most 63)
 *   -S  seed of the batch sizes (default 1)
 *   -B  explicit batch sizes (must add up to the number of frames), at most
 *       MAX_LISTED: a batch above the NAPI weight (64) is still one NAPI poll,
 *       of several ->poll() calls, flushed between them as __napi_poll() does
 *       (tests/cli_gro_napi_kernel.sh compares `softoffload gro --napi-weight`)
 *   -u  enable rx-udp-gro-forwarding on the TAP (UDP GRO without a socket)
 * Writes the batch sizes, comma-separated, to the -P file: the argument of
 * `softoffload gro --poll-sizes`; with -O, the number of outputs of each poll
 * (same format), so that kgrocmp can compare poll by poll and name the poll
 * (the crafted case) where outputs differ.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_tun.h>
#include "softoffload/pkt.h"
#include "kutil.h"

#define MAX_BATCH  63		/* below NAPI_POLL_WEIGHT: one poll takes a batch */
#define MAX_LISTED 1024		/* -B: up to 16 ->poll() calls of 64 */
#define BUF_SIZE   (256 * 1024)
#define TRIES      20

struct oracle {
	const char *dev;
	int tap, pkt;
	int cpu;
	int kpid;
	char kstatus[64];
	int verbose;
	uint8_t *wbuf, *rbuf;
	uint32_t tag;
	unsigned long retries;
};

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The NAPI kthread of our device: comm "napi/<dev>-<napi id>" (maybe cut to 15). */
static int
find_napi_thread(const char *dev)
{
	char pfx[32], path[300], comm[32];
	struct dirent *de;
	int pid = -1, n = 0;
	DIR *d;

	snprintf(pfx, sizeof(pfx), "napi/%s-", dev);
	d = opendir("/proc");
	if (!d)
		k_die("/proc: %s", strerror(errno));
	while ((de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, pfx, strlen(pfx))) {
			pid = atoi(de->d_name);
			n++;
		}
		fclose(f);
	}
	closedir(d);
	if (n > 1)
		k_die("%d NAPI threads match %s: expected one", n, pfx);
	return pid;
}

static int
pick_cpu(void)
{
	cpu_set_t set;
	int c, last = -1;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		k_die("sched_getaffinity: %s", strerror(errno));
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			last = c;
	return last;
}

static void
pin(int pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(pid, sizeof(set), &set) < 0)
		k_die("pin pid %d to CPU %d: %s", pid, cpu, strerror(errno));
}

static void
setup(struct oracle *o, int udp)
{
	char path[128];
	struct sched_param sp;
	int i, e;

	o->tap = k_tap_open(o->dev, IFF_NAPI);
	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", o->dev);
	(void)k_write_file(path, "1");	/* no IPv6 autoconf chatter */
	if (k_run("ethtool -K %s gro on rx-gro-list off%s >/dev/null 2>&1", o->dev,
		  udp ? " rx-udp-gro-forwarding on" : "") != 0)
		k_die("ethtool -K %s gro on%s failed (is ethtool installed?)", o->dev,
		      udp ? " rx-udp-gro-forwarding on" : "");
	snprintf(path, sizeof(path), "/sys/class/net/%s/gro_flush_timeout", o->dev);
	if ((e = k_write_file(path, "0")) < 0)
		k_die("%s: %s", path, strerror(-e));
	snprintf(path, sizeof(path), "/sys/class/net/%s/napi_defer_hard_irqs", o->dev);
	(void)k_write_file(path, "0");
	snprintf(path, sizeof(path), "/sys/class/net/%s/threaded", o->dev);
	if ((e = k_write_file(path, "1")) < 0)
		k_skip("threaded NAPI unavailable (%s: %s)", path, strerror(-e));
	k_link_up(o->dev);
	for (i = 0; i < 100 && (o->kpid = find_napi_thread(o->dev)) < 0; i++)
		usleep(10000);
	if (o->kpid < 0)
		k_die("no NAPI kthread napi/%s-* found after enabling threaded NAPI", o->dev);
	snprintf(o->kstatus, sizeof(o->kstatus), "/proc/%d/status", o->kpid);
	o->pkt = k_packet_open(o->dev, 1);
	o->cpu = pick_cpu();
	pin(0, o->cpu);
	pin(o->kpid, o->cpu);
	memset(&sp, 0, sizeof(sp));
	sp.sched_priority = 50;
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
		k_skip("SCHED_FIFO unavailable: %s", strerror(errno));
	if (o->verbose)
		fprintf(stderr, "kgro: dev %s, NAPI thread %d, CPU %d\n", o->dev, o->kpid, o->cpu);
}

static void
tap_write(struct oracle *o, const uint8_t *frame, uint32_t len)
{
	struct sofl_vnet_hdr vh;
	ssize_t n;

	if (len + 10 > BUF_SIZE)
		k_die("frame of %u bytes too large", len);
	/* flags 0: CHECKSUM_NONE, as from a NIC without rx checksum offload;
	 * GRO validates the TCP/UDP checksum itself. */
	memset(&vh, 0, sizeof(vh));
	k_vnet_encode(o->wbuf, &vh);
	memcpy(o->wbuf + 10, frame, len);
	n = write(o->tap, o->wbuf, len + 10);
	if (n != (ssize_t)len + 10)
		k_die("write to TAP (%u bytes): %s", len + 10, n < 0 ? strerror(errno) : "short");
}

static long
switches(const struct rusage *r)
{
	return r->ru_nvcsw + r->ru_nivcsw;
}

/* Read everything until our sentinel @tag; outputs go to *out. */
static void
drain_until_sentinel(struct oracle *o, uint32_t tag, struct kset *out)
{
	long long deadline = now_ns() + 3000000000LL;
	struct pollfd pfd = { .fd = o->pkt, .events = POLLIN };

	for (;;) {
		struct sofl_vnet_hdr vh;
		uint8_t *f;
		uint32_t t;
		long n;
		int ms = (int)((deadline - now_ns()) / 1000000);

		if (ms <= 0 || poll(&pfd, 1, ms) <= 0)
			k_die("kgro: sentinel %u not seen within 3 s (kernel dropped frames?)", tag);
		n = k_packet_recv(o->pkt, o->rbuf, BUF_SIZE, 0, &vh, &f);
		if (n < 0)
			continue;
		if (k_is_sentinel(f, (size_t)n, &t)) {
			if (t == tag)
				return;
			continue;	/* a stale one from a replayed batch */
		}
		kset_add(out, f, (uint32_t)n, &vh);
	}
}

/* Waits until the NAPI kthread went to sleep after we last looked: it has run
 * the poll that took our batch. */
static int
wait_kthread_sleep(struct oracle *o, long before)
{
	long long deadline = now_ns() + 2000000000LL;
	long v;

	do {
		usleep(20);
		v = k_proc_field(o->kstatus, "voluntary_ctxt_switches");
		if (v < 0)
			k_die("NAPI thread %d vanished", o->kpid);
		if (v > before)
			return 0;
	} while (now_ns() < deadline);
	return -1;
}

/* Replays frames [first, first+n) as one NAPI poll; appends the kernel's output. */
static void
run_batch(struct oracle *o, const struct kset *in, size_t first, size_t n, struct kset *out)
{
	int try;

	for (try = 0; try < TRIES; try++) {
		struct kset got = { 0 };
		struct rusage r0, r1;
		long v0, v1;
		size_t i;
		int ok;

		v0 = k_proc_field(o->kstatus, "voluntary_ctxt_switches");
		getrusage(RUSAGE_THREAD, &r0);
		for (i = 0; i < n; i++)
			tap_write(o, in->r[first + i].data, in->r[first + i].len);
		getrusage(RUSAGE_THREAD, &r1);
		v1 = k_proc_field(o->kstatus, "voluntary_ctxt_switches");
		/* We held the CPU throughout, and the kthread did not finish a
		 * poll meanwhile (it would have gone to sleep after it). */
		ok = switches(&r1) == switches(&r0) && v1 == v0;
		if (wait_kthread_sleep(o, v1) < 0)
			ok = 0;
		/* The sentinel goes alone, in a poll of its own. */
		o->tag++;
		tap_write(o, o->wbuf + BUF_SIZE / 2, (uint32_t)k_sentinel(o->wbuf + BUF_SIZE / 2, o->tag));
		drain_until_sentinel(o, o->tag, &got);
		if (ok) {
			for (i = 0; i < got.n; i++)
				kset_add(out, got.r[i].data, got.r[i].len, &got.r[i].vh);
			kset_free(&got);
			return;
		}
		o->retries++;
		if (o->verbose)
			fprintf(stderr, "kgro: batch at %zu (%zu frames) not in one poll, replaying\n",
				first, n);
		kset_free(&got);
	}
	k_die("kgro: batch at frame %zu could not be run as one NAPI poll in %d tries", first, TRIES);
}

/* Segments a kernel output stands for: ceil(payload / gso_size), or 1. */
static size_t
segs_of(const struct krec *r)
{
	struct sofl_pkt p;

	if (!r->vh.gso_size || sofl_pkt_parse(&p, r->data, r->len, SOFL_LINK_ETH) < 0 ||
	    !(p.layers & SOFL_LAYER_L4))
		return 1;
	return (p.pay_len + r->vh.gso_size - 1) / r->vh.gso_size;
}

static size_t
parse_batches(const char *s, size_t **out)
{
	size_t n = 0, cap = 0;
	char *end;

	*out = NULL;
	while (*s) {
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || v == 0 || v > MAX_LISTED)
			k_die("-B: batch sizes must be 1..%d", MAX_LISTED);
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			*out = realloc(*out, cap * sizeof(**out));
			if (!*out)
				k_die("out of memory");
		}
		(*out)[n++] = v;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			k_die("-B: bad list");
	}
	return n;
}

int
main(int argc, char **argv)
{
	const char *rpath = NULL, *wpath = NULL, *mpath = NULL, *ppath = NULL, *blist = NULL;
	const char *opath = NULL;
	size_t *nout = NULL;
	struct oracle o;
	struct kset in = { 0 }, out = { 0 };
	size_t *batches = NULL, nb = 0, i, pos, segs = 0, merged = 0;
	unsigned long maxb = 32, seed = 1;
	char devname[16];
	FILE *pf;
	int c, udp = 0;

	memset(&o, 0, sizeof(o));
	snprintf(devname, sizeof(devname), "og%04x", (unsigned)getpid() & 0xffff);
	o.dev = devname;
	while ((c = getopt(argc, argv, "r:w:m:P:b:S:B:ud:vO:")) != -1) {
		switch (c) {
		case 'r': rpath = optarg; break;
		case 'w': wpath = optarg; break;
		case 'm': mpath = optarg; break;
		case 'P': ppath = optarg; break;
		case 'b': maxb = strtoul(optarg, NULL, 10); break;
		case 'S': seed = strtoul(optarg, NULL, 10); break;
		case 'B': blist = optarg; break;
		case 'u': udp = 1; break;
		case 'd': o.dev = optarg; break;
		case 'v': o.verbose = 1; break;
		case 'O': opath = optarg; break;
		default:
			fprintf(stderr, "usage: kgro -r in.pcap -w out.pcap -m out.vnet -P polls.txt "
				"[-b max] [-S seed | -B n1,n2,...] [-u] [-d dev] [-v]\n");
			return 2;
		}
	}
	if (!rpath || !wpath || !mpath || !ppath)
		k_die("kgro: -r, -w, -m and -P are required");
	if (maxb < 1 || maxb > MAX_BATCH)
		k_die("kgro: -b must be 1..%d", MAX_BATCH);
	if (strlen(o.dev) > 8)
		k_die("kgro: device name at most 8 characters (the kthread name is cut at 15)");
	kset_read(&in, rpath, NULL);
	if (blist) {
		nb = parse_batches(blist, &batches);
		for (i = 0, pos = 0; i < nb; i++)
			pos += batches[i];
		if (pos != in.n)
			k_die("-B adds up to %zu, the capture has %zu frames", pos, in.n);
	} else {
		uint64_t st = seed * 0x9E3779B97F4A7C15ULL + 1;

		batches = calloc(in.n + 1, sizeof(*batches));
		if (!batches)
			k_die("out of memory");
		for (pos = 0; pos < in.n; pos += batches[nb++]) {
			st ^= st << 13; st ^= st >> 7; st ^= st << 17;
			batches[nb] = 1 + (size_t)(st % maxb);
			if (batches[nb] > in.n - pos)
				batches[nb] = in.n - pos;
		}
	}
	o.wbuf = malloc(BUF_SIZE);
	o.rbuf = malloc(BUF_SIZE);
	if (!o.wbuf || !o.rbuf)
		k_die("out of memory");
	setup(&o, udp);
	for (i = 0, pos = 0; i < nb; pos += batches[i++])
	{
		size_t before = out.n;

		run_batch(&o, &in, pos, batches[i], &out);
		if (!nout && !(nout = calloc(nb, sizeof(*nout))))
			k_die("out of memory");
		nout[i] = out.n - before;
	}
	kset_write(&out, wpath, mpath);
	pf = fopen(ppath, "w");
	if (!pf)
		k_die("%s: %s", ppath, strerror(errno));
	for (i = 0; i < nb; i++)
		fprintf(pf, "%s%zu", i ? "," : "", batches[i]);
	fputc('\n', pf);
	if (fclose(pf) != 0)
		k_die("%s: write failed", ppath);
	if (opath) {
		if (!(pf = fopen(opath, "w")))
			k_die("%s: %s", opath, strerror(errno));
		for (i = 0; i < nb; i++)
			fprintf(pf, "%s%zu", i ? "," : "", nout[i]);
		fputc('\n', pf);
		if (fclose(pf) != 0)
			k_die("%s: write failed", opath);
	}
	free(nout);
	for (i = 0; i < out.n; i++) {
		size_t k = segs_of(&out.r[i]);

		segs += k;
		merged += k > 1 || out.r[i].vh.gso_size;
	}
	printf("kgro: %zu frames in %zu polls -> %zu frames out (%zu super-packets, %zu segments "
	       "accounted), %lu polls replayed\n", in.n, nb, out.n, merged, segs, o.retries);
	if (segs != in.n)
		fprintf(stderr, "kgro: warning: outputs account for %zu segments, %zu went in\n",
			segs, in.n);
	close(o.pkt);
	close(o.tap);
	kset_free(&in);
	kset_free(&out);
	free(batches);
	free(o.wbuf);
	free(o.rbuf);
	return 0;
}

/* softoffload tunnel: the counters, summed over the workers, as text or
 * one JSON object per line. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "softoffload/gro.h"
#include "tunnel.h"

struct totals {
	struct sofl_port_stats tun, udp;
	struct sofl_gro_stats gro;
	uint64_t drop[TN_DROP__MAX], steered, flooded, macs, kernel_drops;
	unsigned tun_off, udp_off;
};

/* The kernel's count of packets the TUN dropped because its queue to us
 * was full (tun_net_xmit), or 0 when unknown. */
static uint64_t
tun_kernel_drops(const char *name)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/tx_dropped", name);
	return cli_read_u64(path);	/* no FILE: called at every report */
}

static void
add_port(struct sofl_port_stats *d, const struct sofl_port_stats *s)
{
	int r;

	d->rx_calls += s->rx_calls;
	d->rx_pkts += s->rx_pkts;
	d->rx_bytes += s->rx_bytes;
	d->rx_super += s->rx_super;
	d->rx_segs += s->rx_segs;
	d->tx_calls += s->tx_calls;
	d->tx_pkts += s->tx_pkts;
	d->tx_bytes += s->tx_bytes;
	d->tx_super += s->tx_super;
	d->tx_segs += s->tx_segs;
	d->csum_sw += s->csum_sw;
	d->csum_sw_verify += s->csum_sw_verify;
	d->fallbacks += s->fallbacks;
	for (r = 0; r < SOFL_PORT_DROP__MAX; r++) {
		d->rx_drop[r] += s->rx_drop[r];
		d->tx_drop[r] += s->tx_drop[r];
	}
}

static void
add_gro(struct sofl_gro_stats *d, const struct sofl_gro_stats *s)
{
	int i;

	d->pkts_in += s->pkts_in;
	d->pkts_out += s->pkts_out;
	d->super_pkts += s->super_pkts;
	d->segs_merged += s->segs_merged;
	d->bytes_in += s->bytes_in;
	for (i = 0; i < SOFL_GRO_HIST_BINS; i++)
		d->hist[i] += s->hist[i];
	for (i = 0; i < SOFL_GRO_FLUSH_SLOTS; i++)
		d->flush[i] += s->flush[i];
	for (i = 0; i < SOFL_GRO_BYPASS_SLOTS; i++)
		d->bypass[i] += s->bypass[i];
	d->csum_sw_ip += s->csum_sw_ip;
	d->csum_sw_l4 += s->csum_sw_l4;
	d->csum_partial_ok += s->csum_partial_ok;
}

static void
gather(struct tn_worker *ws, unsigned n, struct totals *t)
{
	struct sofl_port_stats s;
	struct sofl_gro_stats g;
	unsigned i, k;

	memset(t, 0, sizeof(*t));
	t->kernel_drops = tun_kernel_drops(ws[0].o->tun);
	for (i = 0; i < n; i++) {
		sofl_port_get_stats(ws[i].tun, &s, sizeof(s));
		add_port(&t->tun, &s);
		sofl_port_get_stats(ws[i].udp, &s, sizeof(s));
		add_port(&t->udp, &s);
		t->udp_off |= sofl_port_offloads(ws[i].udp);
		/* the send sockets of the Ethernet encaps: their sends and send
		 * drops (they receive nothing) */
		for (k = 0; k < ws[i].ntx; k++) {
			sofl_port_get_stats(ws[i].tx[k], &s, sizeof(s));
			add_port(&t->udp, &s);
			t->udp_off |= sofl_port_offloads(ws[i].tx[k]);
		}
		if (sofl_port_get_gro_stats(ws[i].tun, &g, sizeof(g)) == 0)
			add_gro(&t->gro, &g);
		for (k = 0; k < TN_DROP__MAX; k++)
			t->drop[k] += __atomic_load_n(&ws[i].drop[k], __ATOMIC_RELAXED);
		t->steered += __atomic_load_n(&ws[i].steered, __ATOMIC_RELAXED);
		t->flooded += __atomic_load_n(&ws[i].flooded, __ATOMIC_RELAXED);
		t->macs += __atomic_load_n(&ws[i].macs_learned, __ATOMIC_RELAXED);
		t->tun_off |= sofl_port_offloads(ws[i].tun);
	}
}

static void
print_text(FILE *f, const struct tn_opts *o, const struct totals *t, double secs, int final)
{
	const char *dev = o->encap != TN_ENCAP_IP && o->inner_eth ? "tap" : "tun";
	int i;

	fprintf(f, "tunnel %s: %u queue%s, encap %s, offload %s, %.1f s%s\n", o->tun, o->queues,
		o->queues > 1 ? "s" : "", tn_encap_names[o->encap], tn_mode_names[o->mode], secs,
		final ? " (exit)" : "");
	fprintf(f, "%s (", dev);
	cli_port_offloads(f, t->tun_off);
	fprintf(f, "):\n");
	cli_line(f, t->tun.rx_calls, "packets read from the kernel");
	cli_line(f, t->tun.rx_super, "super-packets read");
	cli_line(f, t->tun.rx_segs, "segments cut from them");
	cli_line(f, t->tun.csum_sw, "checksums completed in software");
	cli_line(f, t->tun.rx_pkts, "packets sent towards the peer");
	cli_line(f, t->tun.tx_pkts, "packets written to the kernel");
	cli_line(f, t->tun.tx_calls, "write calls");
	cli_line(f, t->tun.tx_super, "super-packets written");
	cli_line(f, t->tun.tx_segs, "packets coalesced into them");
	cli_line(f, t->tun.csum_sw_verify, "checksums verified in software");
	cli_line(f, t->tun.fallbacks, "fallbacks");
	cli_port_drops(f, &t->tun, "packets dropped on receive", "packets dropped on send");
	cli_line(f, t->kernel_drops, "packets the kernel dropped: queue full (tx_dropped)");
	fprintf(f, "udp (");
	cli_port_offloads(f, t->udp_off);
	fprintf(f, "):\n");
	cli_line(f, t->udp.tx_pkts, "datagrams sent");
	cli_line(f, t->udp.tx_calls, "send calls");
	cli_line(f, t->udp.tx_super, "UDP_SEGMENT sends");
	cli_line(f, t->udp.tx_segs, "datagrams in them");
	cli_line(f, t->udp.rx_pkts, "datagrams received");
	cli_line(f, t->udp.rx_calls, "receive calls");
	cli_line(f, t->udp.rx_super, "coalesced receives (UDP_GRO)");
	cli_line(f, t->udp.rx_segs, "datagrams split from them");
	cli_line(f, t->udp.fallbacks, "fallbacks");
	cli_port_drops(f, &t->udp, "datagrams dropped on receive", "datagrams dropped on send");
	fprintf(f, "gro:\n");
	cli_gro_lines(f, &t->gro, "");
	for (i = 0; i < SOFL_GRO_BYPASS__MAX; i++)
		if (t->gro.bypass[i]) {
			char b[64];

			snprintf(b, sizeof(b), "passed through: %s", sofl_gro_bypass_name(i));
			cli_line(f, t->gro.bypass[i], b);
		}
	fprintf(f, "%s:\n", o->encap == TN_ENCAP_IP ? "inner" : "encap");
	for (i = 0; i < TN_DROP__MAX; i++) {
		char b[96];

		if (o->encap == TN_ENCAP_IP && i < TN_DROP_IP_SHORT)
			continue;
		if (o->encap != TN_ENCAP_IP && !t->drop[i] && i != TN_DROP_REMOTE)
			continue;
		snprintf(b, sizeof(b), "datagrams from the underlay dropped: %s", tn_drop_text[i]);
		cli_line(f, t->drop[i], b);
	}
	if (o->encap != TN_ENCAP_IP) {
		cli_line(f, t->flooded, "packets flooded to every remote");
		if (o->nremotes > 1)
			cli_line(f, t->macs, "inner MACs learned");
	}
	if (o->queues > 1)
		cli_line(f, t->steered, "packets steered to another queue's peer port");
	fflush(f);
}

static void
json_port(struct cli_json *j, const char *name, const struct sofl_port_stats *s, unsigned off)
{
	cli_json_obj(j, name);
	cli_port_offloads_json(j, "offloads", off);
	cli_port_counters_json(j, s);
	cli_json_end(j);
}

/* @return 0, or 2 having printed the write error */
static int
print_json(FILE *f, const struct tn_opts *o, const struct totals *t, double secs, int final)
{
	struct cli_json j;
	int i;

	cli_json_begin(&j, f);
	cli_json_str(&j, "tunnel", o->tun);
	cli_json_u64(&j, "queues", o->queues);
	cli_json_str(&j, "encap", tn_encap_names[o->encap]);
	cli_json_str(&j, "offload", tn_mode_names[o->mode]);
	cli_json_dbl(&j, "time", secs, 3);
	cli_json_bool(&j, "final", final);
	json_port(&j, "tun", &t->tun, t->tun_off);
	json_port(&j, "udp", &t->udp, t->udp_off);
	cli_gro_json(&j, &t->gro, 1);
	/* inner IP checks (every encap carrying IP) and the tunnel's own */
	cli_json_obj(&j, "inner_drop");
	for (i = TN_DROP_IP_SHORT; i < TN_DROP__MAX; i++)
		cli_json_u64(&j, tn_drop_key[i], t->drop[i]);
	cli_json_end(&j);
	cli_json_obj(&j, "encap_drop");
	for (i = 0; i < TN_DROP_IP_SHORT; i++)
		cli_json_u64(&j, tn_drop_key[i], t->drop[i]);
	cli_json_end(&j);
	cli_json_u64(&j, "flooded", t->flooded);
	cli_json_u64(&j, "macs_learned", t->macs);
	cli_json_u64(&j, "steered", t->steered);
	cli_json_u64(&j, "kernel_tun_tx_dropped", t->kernel_drops);
	return cli_json_finish(&j, "stdout");
}

int
tn_report(struct tn_worker *ws, const struct tn_opts *o, double secs, int final)
{
	struct totals t;

	gather(ws, o->queues, &t);
	if (o->json)
		return print_json(stdout, o, &t, secs, final);
	print_text(stdout, o, &t, secs, final);
	if (fflush(stdout) != 0 || ferror(stdout))
		return cli_error("stdout: write error");
	return 0;
}

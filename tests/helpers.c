/* Shared packet builders for the tests (see helpers.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "helpers.h"

const uint8_t t_opt_ts[12] = { 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2 };

void
t_opt_ts_set(uint8_t opt[12], uint32_t tsval, uint32_t tsecr)
{
	memcpy(opt, t_opt_ts, 12);
	sofl_put32(opt + 4, tsval);
	sofl_put32(opt + 8, tsecr);
}

void
t_spec_init(struct t_spec *s, int ipv, int proto)
{
	static const uint8_t v4s[4] = { 198, 18, 0, 1 }, v4d[4] = { 198, 18, 0, 2 };
	static const uint8_t v6s[16] = { 0x20, 0x01, 0, 2, [15] = 1 };
	static const uint8_t v6d[16] = { 0x20, 0x01, 0, 2, [15] = 2 };
	static const uint8_t md[6] = { 0x02, 0, 0, 0, 0, 0x02 }, ms[6] = { 0x02, 0, 0, 0, 0, 0x01 };

	memset(s, 0, sizeof(*s));
	s->link = SOFL_LINK_ETH;
	s->ipv = ipv;
	s->proto = proto;
	memcpy(s->src, ipv == 4 ? v4s : v6s, ipv == 4 ? 4 : 16);
	memcpy(s->dst, ipv == 4 ? v4d : v6d, ipv == 4 ? 4 : 16);
	memcpy(s->mac_dst, md, 6);
	memcpy(s->mac_src, ms, 6);
	s->vlan_tpid[0] = s->vlan_tpid[1] = 0x8100;
	s->ttl = 64;
	s->df = 1;
	s->sport = 40000;
	s->dport = 5201;
	s->seq = 1000;
	s->ack = 2000;
	s->flags = SOFL_TCP_ACK;
	s->win = 65535;
}

static void
need(size_t have, size_t want)
{
	if (want > have) {
		fprintf(stderr, "t_build: buffer too small (%zu > %zu)\n", want, have);
		abort();
	}
}

size_t
t_build(uint8_t *buf, size_t cap, const struct t_spec *s)
{
	size_t o = 0, l3, l4, l4len, iplen, i;
	uint8_t nh;

	if (s->link == SOFL_LINK_ETH) {
		need(cap, 14 + 4 * (size_t)s->nvlan);
		memcpy(buf, s->mac_dst, 6);
		memcpy(buf + 6, s->mac_src, 6);
		o = 12;
		for (i = 0; i < (size_t)s->nvlan; i++) {
			sofl_put16(buf + o, s->vlan_tpid[i]);
			sofl_put16(buf + o + 2, s->vlan_tci[i]);
			o += 4;
		}
		sofl_put16(buf + o, s->ipv == 4 ? 0x0800 : 0x86DD);
		o += 2;
	}
	l3 = o;
	if (s->ipv == 4) {
		size_t hl = 20 + s->ip_opts_len;
		need(cap, o + hl);
		memset(buf + o, 0, 20);
		buf[o] = (uint8_t)(0x40 | (hl / 4));
		buf[o + 1] = s->tos;
		sofl_put16(buf + o + 4, s->ip_id);
		sofl_put16(buf + o + 6, (uint16_t)((s->df ? 0x4000 : 0) | s->frag));
		buf[o + 8] = s->ttl;
		buf[o + 9] = (uint8_t)s->proto;
		memcpy(buf + o + 12, s->src, 4);
		memcpy(buf + o + 16, s->dst, 4);
		if (s->ip_opts_len)
			memcpy(buf + o + 20, s->ip_opts, s->ip_opts_len);
		o += hl;
	} else {
		need(cap, o + 40);
		sofl_put32(buf + o, 0x60000000u | (uint32_t)s->tos << 20 | (s->flow_label & 0xfffff));
		buf[o + 7] = s->ttl;
		memcpy(buf + o + 8, s->src, 16);
		memcpy(buf + o + 24, s->dst, 16);
		o += 40;
		nh = (uint8_t)(s->n_ext ? s->ext[0].type : s->proto);
		buf[l3 + 6] = nh;
		for (i = 0; i < (size_t)s->n_ext; i++) {
			const struct t_ext *e = &s->ext[i];
			uint8_t next = (uint8_t)(i + 1 < (size_t)s->n_ext ? s->ext[i + 1].type : s->proto);
			size_t len = e->type == 44 ? 8 : e->len;
			need(cap, o + len);
			memset(buf + o, 0, len);
			buf[o] = next;
			if (e->type == 44) {
				sofl_put16(buf + o + 2, (uint16_t)(e->frag_off << 3 | (e->frag_mf ? 1 : 0)));
				sofl_put32(buf + o + 4, 0x12345678);
			} else {
				buf[o + 1] = (uint8_t)(len / 8 - 1);
				buf[o + 2] = 1;		/* PadN */
				buf[o + 3] = (uint8_t)(len - 4);
				memset(buf + o + 4, e->fill, len - 4);
			}
			o += len;
		}
	}
	l4 = o;
	if (s->proto == 6) {
		size_t hl = 20 + s->tcp_opts_len;
		need(cap, o + hl);
		memset(buf + o, 0, 20);
		sofl_put16(buf + o, s->sport);
		sofl_put16(buf + o + 2, s->dport);
		sofl_put32(buf + o + 4, s->seq);
		sofl_put32(buf + o + 8, s->ack);
		buf[o + 12] = (uint8_t)((hl / 4) << 4);
		buf[o + 13] = s->flags;
		sofl_put16(buf + o + 14, s->win);
		sofl_put16(buf + o + 18, s->urg);
		if (s->tcp_opts_len)
			memcpy(buf + o + 20, s->tcp_opts, s->tcp_opts_len);
		o += hl;
	} else if (s->proto == 17) {
		need(cap, o + 8);
		memset(buf + o, 0, 8);
		sofl_put16(buf + o, s->sport);
		sofl_put16(buf + o + 2, s->dport);
		sofl_put16(buf + o + 4, (uint16_t)(8 + s->pay_len));
		o += 8;
	}
	need(cap, o + s->pay_len + s->eth_pad);
	for (i = 0; i < s->pay_len; i++)
		buf[o + i] = (uint8_t)(s->pay_seed + s->pay_off + i);
	o += s->pay_len;
	iplen = o - l3;
	l4len = o - l4;
	if (s->ipv == 4)
		sofl_put16(buf + l3 + 2, (uint16_t)(iplen + s->l3_len_delta));
	else
		sofl_put16(buf + l3 + 4, (uint16_t)(iplen - 40 + s->l3_len_delta));

	if (s->proto == 6 || s->proto == 17) {
		unsigned co = s->proto == 6 ? 16 : 6;
		uint32_t ps = s->ipv == 4 ?
			sofl_csum_pseudo_v4(s->src, s->dst, (uint8_t)s->proto, (uint32_t)l4len) :
			sofl_csum_pseudo_v6(s->src, s->dst, (uint8_t)s->proto, (uint32_t)l4len);
		uint16_t c = 0;
		int frag = s->ipv == 4 && (s->frag & 0x3fff);
		for (i = 0; i < (size_t)s->n_ext; i++)
			if (s->ext[i].type == 44)
				frag = 1;
		if (s->csum == T_CSUM_FULL && !frag) {
			c = (uint16_t)~sofl_csum_fold(sofl_csum_add(ps, buf + l4, l4len));
			if (s->proto == 17 && c == 0)
				c = 0xffff;
		} else if (s->csum == T_CSUM_PARTIAL) {
			c = sofl_csum_fold(ps);
		}
		if (s->proto == 17 && s->udp_zero_csum)
			c = 0;
		sofl_put16(buf + l4 + co, c);
	}
	if (s->ipv == 4)
		sofl_put16(buf + l3 + 10, sofl_csum_ipv4_hdr(buf + l3, 20 + s->ip_opts_len));
	memset(buf + o, 0, s->eth_pad);
	return o + s->eth_pad;
}

uint64_t
t_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void
t_hexdump(const char *what, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	size_t i;

	fprintf(stderr, "%s (%zu bytes):", what, len);
	for (i = 0; i < len; i++)
		fprintf(stderr, "%s%02x", i % 16 ? " " : "\n  ", b[i]);
	fprintf(stderr, "\n");
}

size_t
t_build_arp(uint8_t *buf, size_t cap, const struct t_spec *s)
{
	size_t o = 12, i;

	need(cap, 42 + 4 * (size_t)s->nvlan);
	memset(buf, 0xff, 6);
	memcpy(buf + 6, s->mac_src, 6);
	for (i = 0; i < (size_t)s->nvlan; i++) {
		sofl_put16(buf + o, s->vlan_tpid[i]);
		sofl_put16(buf + o + 2, s->vlan_tci[i]);
		o += 4;
	}
	sofl_put16(buf + o, 0x0806);
	o += 2;
	sofl_put16(buf + o, 1);		/* hardware: Ethernet */
	sofl_put16(buf + o + 2, 0x0800);
	buf[o + 4] = 6;
	buf[o + 5] = 4;
	sofl_put16(buf + o + 6, 1);	/* request */
	memcpy(buf + o + 8, s->mac_src, 6);
	memcpy(buf + o + 14, s->src, 4);
	memset(buf + o + 18, 0, 6);
	memcpy(buf + o + 24, s->dst, 4);
	return o + 28;
}

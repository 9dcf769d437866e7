/*
 * The UDP port's runt sink (struct sofl_udp_config .min_len_kernel): short
 * datagrams dropped in the kernel, before they take room in the port's
 * receive buffer, a wakeup of its thread or a slot of a recvmmsg().
 *
 * The port's socket and a second one, the sink, bound to the same address
 * and port with SO_REUSEPORT, form one reuseport group.  A BPF program
 * attached to the group returns the index of the socket that gets each
 * datagram: the sink (1) when its UDP payload is shorter than min_len, the
 * port's socket (0) otherwise.  Linux runs it from the UDP socket lookup
 * with the UDP header pulled, so the program's packet length is the
 * payload's (net/core/sock_reuseport.c, run_bpf_filter(); net/ipv4/udp.c,
 * udp4_lib_lookup2()).  The sink has a socket filter that drops everything
 * (SO_ATTACH_FILTER, return 0): nothing is ever queued on it, it is never
 * read, and it needs no SO_RXQ_OVFL (that option with a filter's drops made
 * 6.18 fail its hardened usercopy check in recvmsg(): docs/tunnel.md).
 *
 * Runts rarely arrive alone: a flood comes in bursts, and the UDP GRO of
 * the receiving device coalesces a burst of equal datagrams into one
 * message (udp_gro_receive_segment(), net/ipv4/udp_offload.c), as the
 * socket asked for UDP_GRO.  Such a message is long and its segments
 * short, so the program tests the segment size: skb_shinfo()->gso_size,
 * which GRO sets to the first datagram's payload (0 for a lone datagram),
 * which only an eBPF program can read (struct __sk_buff gso_size, Linux
 * 5.8+).  It also counts what it steers, gso_segs datagrams per message,
 * in an array map, which is the RUNT count: exact, where the sink's own
 * drop counter counts a coalesced message once.  Loading them needs
 * CAP_BPF (or kernel.unprivileged_bpf_disabled 0); without it the port
 * falls back to a classic BPF program (SO_ATTACH_REUSEPORT_CBPF) that tests
 * the length only, and counts the sink's drops (SO_MEMINFO): coalesced
 * runts then reach the port, which drops a message of them at once
 * (port_udp.c, split()), and a message of runts shorter than min_len
 * altogether counts as one.
 *
 * Why the sink has UDP_GRO too: where no packet is at hand, the reuseport
 * group picks a socket by the flow's hash, and the UDP GRO layer does that
 * (udp4_gro_lookup_skb(), udp_gro_receive()) to decide whether a flow is
 * coalesced by the UDP_GRO of the socket it finds: without it on the sink,
 * about half the flows would lose UDP GRO.  (A connected socket is skipped
 * by that hash, but connecting takes a socket out of its group since Linux
 * 6.13, udp_lib_hash4().)
 */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "port_impl.h"

#ifndef SO_ATTACH_REUSEPORT_CBPF
#define SO_ATTACH_REUSEPORT_CBPF 51
#endif
#ifndef SO_ATTACH_REUSEPORT_EBPF
#define SO_ATTACH_REUSEPORT_EBPF 52
#endif
#ifndef SO_MEMINFO
#define SO_MEMINFO 55
#endif

static long
sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(__NR_bpf, cmd, a, sizeof(*a));
}

/* An array map of one 64-bit counter.  @return its descriptor, or -1. */
static int
map_create(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = sizeof(uint32_t);
	a.value_size = sizeof(uint64_t);
	a.max_entries = 1;
	return (int)sys_bpf(BPF_MAP_CREATE, &a);
}

#define INSN(c, d, s, o, i) { .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) }

/* Loads the eBPF program: a datagram (or a coalesced message) whose
 * segment size (gso_size; for a lone datagram its length) is below
 * @min_len adds its datagrams (gso_segs, at least 1) to @map's counter and
 * goes to the sink.  @return its descriptor, or -1. */
static int
ebpf_load(uint32_t min_len, int map)
{
	struct bpf_insn p[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_1, 0, 0),
		/* r0 = gso_size ? gso_size : len */
		INSN(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_0, BPF_REG_6,
		     offsetof(struct __sk_buff, gso_size), 0),
		INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 1, 0),
		INSN(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_0, BPF_REG_6,
		     offsetof(struct __sk_buff, len), 0),
		INSN(BPF_JMP | BPF_JGE | BPF_K, BPF_REG_0, 0, 13, (int32_t)min_len),	/* -> 18 */
		/* r7 = gso_segs ? gso_segs : 1 */
		INSN(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_7, BPF_REG_6,
		     offsetof(struct __sk_buff, gso_segs), 0),
		INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_7, 0, 1, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_7, 0, 0, 1),
		/* the counter at key 0 += r7 */
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0),
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 1, 0),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_7, 0, BPF_ADD),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1),	/* the sink */
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),	/* 18: the port's socket */
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (uint64_t)(uintptr_t)p;
	a.insn_cnt = sizeof(p) / sizeof(p[0]);
	a.license = (uint64_t)(uintptr_t)"";	/* (no GPL-only helper is called) */
	return (int)sys_bpf(BPF_PROG_LOAD, &a);
}
#undef INSN

/* Attaches the program to @fd's group: eBPF with its counter map where
 * they load (s->map set), else classic BPF.  @return 0 or -1 (errno). */
static int
attach(int fd, uint32_t min_len, struct udp_sink *s)
{
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, min_len, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0),	/* the port's socket */
		BPF_STMT(BPF_RET | BPF_K, 1),	/* the sink */
	};
	struct sock_fprog fp = { .len = sizeof(prog) / sizeof(prog[0]), .filter = prog };
	int pf = -1, r = -1;

	if ((s->map = map_create()) >= 0 && (pf = ebpf_load(min_len, s->map)) >= 0)
		r = setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_EBPF, &pf, sizeof(pf));
	if (pf >= 0)
		close(pf);	/* (the group holds the program, the program the map) */
	if (r == 0)
		return 0;
	if (s->map >= 0)
		close(s->map);
	s->map = -1;
	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &fp, sizeof(fp));
}

int
udp_sink_open(struct udp_sink *s, int fd, uint32_t min_len)
{
	struct sock_filter drop = BPF_STMT(BPF_RET | BPF_K, 0);
	struct sock_fprog none = { .len = 1, .filter = &drop };
	struct sockaddr_storage a;
	socklen_t al = sizeof(a);
	int one = 1, e;

	s->fd = s->map = -1;
	if (getsockname(fd, (struct sockaddr *)&a, &al) < 0)
		return -1;
	if ((s->fd = socket(a.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			    IPPROTO_UDP)) < 0)
		return -1;
	/* joined second: index 1 in the group (the port's socket is 0) */
	if (setsockopt(s->fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0 ||
	    setsockopt(s->fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) < 0 ||
	    setsockopt(s->fd, SOL_SOCKET, SO_ATTACH_FILTER, &none, sizeof(none)) < 0 ||
	    bind(s->fd, (struct sockaddr *)&a, al) < 0 ||
	    attach(fd, min_len, s) < 0)
		goto fail;
	return 0;
fail:
	e = errno;
	udp_sink_close(s);
	errno = e;
	return -1;
}

uint64_t
udp_sink_count(const struct udp_sink *s)
{
	uint32_t mi[SK_MEMINFO_VARS], key = 0;
	socklen_t ml = sizeof(mi);
	uint64_t v = 0;
	union bpf_attr a;

	if (s->map >= 0) {
		memset(&a, 0, sizeof(a));
		a.map_fd = (uint32_t)s->map;
		a.key = (uint64_t)(uintptr_t)&key;
		a.value = (uint64_t)(uintptr_t)&v;
		return sys_bpf(BPF_MAP_LOOKUP_ELEM, &a) == 0 ? v : 0;
	}
	memset(mi, 0, sizeof(mi));
	if (s->fd < 0 || getsockopt(s->fd, SOL_SOCKET, SO_MEMINFO, mi, &ml) < 0 ||
	    ml <= SK_MEMINFO_DROPS * sizeof(uint32_t))
		return 0;
	return mi[SK_MEMINFO_DROPS];
}

void
udp_sink_close(struct udp_sink *s)
{
	if (s->map >= 0)
		close(s->map);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = s->map = -1;
}

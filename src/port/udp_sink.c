/*
 * The UDP port's runt sink (struct sofl_udp_config .min_len_kernel): short
 * datagrams dropped in the kernel, before they take room in the port's
 * receive buffer, a wakeup or a slot of a recvmmsg().
 *
 * The port's socket and a second one, the sink, bound to the same address
 * and port with SO_REUSEPORT, form one reuseport group; a BPF program
 * attached to the group returns the index of the socket that gets each
 * datagram: the sink (1) when its UDP payload is shorter than min_len, the
 * port's socket (0) otherwise.  Linux runs it from the UDP socket lookup
 * with the UDP header pulled, so the program's packet length is the
 * payload's (net/core/sock_reuseport.c, run_bpf_filter(); net/ipv4/udp.c,
 * udp4_lib_lookup2()).
 *
 * Runts rarely arrive alone: a flood comes in bursts, and the UDP GRO of
 * the receiving device coalesces a burst of equal datagrams into one
 * message (udp_gro_receive_segment(), net/ipv4/udp_offload.c) as long as
 * the socket asked for UDP_GRO, as the port does.  Such a message is long,
 * its segments short: the program tests the segment size
 * (skb_shinfo()->gso_size, set by GRO to the first datagram's payload; 0
 * for a lone one), which only an eBPF program can read (struct __sk_buff
 * gso_size, Linux 5.8+).  Loading one needs CAP_BPF (or
 * kernel.unprivileged_bpf_disabled 0); without it the port falls back to a
 * classic BPF program (SO_ATTACH_REUSEPORT_CBPF) that tests the length
 * only, and coalesced runts reach the port, which drops a message of them
 * at once (port_udp.c, split()).
 *
 * The sink is connect()ed to its own address.  A connected socket in a
 * reuseport group is never chosen by the group's hash, which is what
 * selects a socket where no packet is at hand: the UDP GRO layer's lookup
 * (udp4_gro_lookup_skb(), udp_gro_receive()), which decides whether a flow
 * is coalesced by the UDP_GRO of the socket it finds.  So every flow still
 * finds the port's socket there, as without a sink.  And because the group
 * then "has connections", the lookup scores the program's choice: the sink
 * scores -1 for any source but itself and is kept, as nothing scores lower
 * (reuseport_has_conns(); Linux commit "udp: correct reuseport selection
 * with connected sockets").
 *
 * The sink has no UDP_GRO (a coalesced message of runts reaching it is cut
 * back into datagrams by the kernel, udp_queue_rcv_skb(): one queue entry,
 * or one drop, per datagram) and no SO_RXQ_OVFL; it keeps a small buffer.
 * What it received is counted by draining it, what it dropped from
 * SO_MEMINFO's drop count: together, every datagram the program sent it,
 * as RUNT drops.
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
#ifndef UDP_GRO
#define UDP_GRO 104
#endif
#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef SO_MEMINFO
#define SO_MEMINFO 55
#endif


/* Loads the eBPF program: the segment size (gso_size), or the length of a
 * lone datagram, below @min_len -> 1.  @return its descriptor, or -1. */
static int
ebpf_load(uint32_t min_len)
{
#define INSN(c, d, s, o, i) { .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) }
	const struct bpf_insn prog[] = {
		/* r0 = skb->gso_size; if (r0 == 0) r0 = skb->len */
		INSN(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_0, BPF_REG_1, 0, 0),
		INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 1, 0),
		INSN(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_0, BPF_REG_1, 0, 0),
		/* return r0 < min_len ? 1 : 0 */
		INSN(BPF_JMP | BPF_JLT | BPF_K, BPF_REG_0, 0, 2, (int32_t)min_len),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
#undef INSN
	struct bpf_insn p[sizeof(prog) / sizeof(prog[0])];
	union bpf_attr a;

	memcpy(p, prog, sizeof(p));
	p[0].off = (int16_t)offsetof(struct __sk_buff, gso_size);
	p[2].off = (int16_t)offsetof(struct __sk_buff, len);
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (uint64_t)(uintptr_t)p;
	a.insn_cnt = sizeof(p) / sizeof(p[0]);
	a.license = (uint64_t)(uintptr_t)"";	/* (no helper is called) */
	return (int)syscall(__NR_bpf, BPF_PROG_LOAD, &a, sizeof(a));
}

/* Attaches the program to @fd's group: eBPF where it loads, else classic
 * BPF (the length only).  @return 0 or -1 (errno set). */
static int
attach(int fd, uint32_t min_len, int *ebpf)
{
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, min_len, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0),	/* the port's socket */
		BPF_STMT(BPF_RET | BPF_K, 1),	/* the sink */
	};
	struct sock_fprog fp = { .len = sizeof(prog) / sizeof(prog[0]), .filter = prog };
	int pf = ebpf_load(min_len), r;

	*ebpf = 0;
	if (pf >= 0) {
		r = setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_EBPF, &pf, sizeof(pf));
		close(pf);	/* (the group holds the program) */
		if (r == 0)
			return *ebpf = 1, 0;
	}
	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &fp, sizeof(fp));
}

/* Opens the sink for @fd (bound to a specific address, unconnected) and
 * attaches the program; *@ebpf: 1 if it tests the segment size.  @return
 * the sink's descriptor, or -1 with errno set (nothing left open). */
int
udp_sink_open(int fd, uint32_t min_len, int *ebpf)
{
	struct sockaddr_storage a;
	socklen_t al = sizeof(a);
	struct sock_filter drop = BPF_STMT(BPF_RET | BPF_K, 0);
	struct sock_fprog none = { .len = 1, .filter = &drop };
	int s, one = 1, e;

	if (getsockname(fd, (struct sockaddr *)&a, &al) < 0)
		return -1;
	if ((s = socket(a.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_UDP)) < 0)
		return -1;
	/* joined second: index 1 in the group (the port's socket is 0) */
	if (setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0 ||
	    bind(s, (struct sockaddr *)&a, al) < 0 ||
	    setsockopt(s, SOL_UDP, UDP_GRO, &one, sizeof(one)) < 0 ||
	    attach(fd, min_len, ebpf) < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, &none, sizeof(none)) < 0)
		goto fail;
	return s;
fail:
	e = errno;
	close(s);
	errno = e;
	return -1;
}

/* The datagrams the sink has taken (and dropped) since it was opened,
 * modulo 2^32: its kernel drop count (SO_MEMINFO).  Any thread. */
uint32_t
udp_sink_count(int sink)
{
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t ml = sizeof(mi);

	memset(mi, 0, sizeof(mi));
	if (getsockopt(sink, SOL_SOCKET, SO_MEMINFO, mi, &ml) < 0 ||
	    ml <= SK_MEMINFO_DROPS * sizeof(uint32_t))
		return 0;
	return mi[SK_MEMINFO_DROPS];
}

/*
 * TUN/TAP interface helpers (port.h): the interface's MTU, transmit queue
 * length and up state, set through an AF_INET datagram socket's ioctls as
 * ip-link(8) does (SIOCSIFMTU, SIOCSIFTXQLEN, SIOCGIFFLAGS/SIOCSIFFLAGS;
 * Linux net/core/dev_ioctl.c), and the inner MTU of an encapsulation.
 * Setup calls: a socket each, never per packet.
 */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "softoffload/port.h"

/* One interface ioctl @req on @port's interface; @set fills the request,
 * @get (optional) reads the answer.  @return 0, SOFL_E_INVAL,
 * SOFL_E_PORT_KIND, SOFL_E_SYS (errno). */
static int
if_ioctl(const struct sofl_port *port, unsigned long req, struct ifreq *ifr)
{
	const char *name;
	int fd, err, e;

	if ((err = sofl_tun_name(port, &name)) < 0)
		return err;
	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", name);
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return SOFL_E_SYS;
	err = ioctl(fd, req, ifr) < 0 ? SOFL_E_SYS : 0;
	e = errno;
	close(fd);
	errno = e;
	return err;
}

SOFL_API int
sofl_tun_set_mtu(const struct sofl_port *port, uint32_t mtu)
{
	struct ifreq ifr;

	if (mtu == 0 || mtu > 65535)
		return SOFL_E_INVAL;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_mtu = (int)mtu;
	return if_ioctl(port, SIOCSIFMTU, &ifr);
}

SOFL_API int
sofl_tun_set_txqueuelen(const struct sofl_port *port, uint32_t qlen)
{
	struct ifreq ifr;

	if (qlen > INT32_MAX)
		return SOFL_E_INVAL;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_qlen = (int)qlen;
	return if_ioctl(port, SIOCSIFTXQLEN, &ifr);
}

SOFL_API int
sofl_tun_set_up(const struct sofl_port *port, int up)
{
	struct ifreq ifr;
	int err;

	memset(&ifr, 0, sizeof(ifr));
	if ((err = if_ioctl(port, SIOCGIFFLAGS, &ifr)) < 0)
		return err;
	if (up)
		ifr.ifr_flags |= IFF_UP;
	else
		ifr.ifr_flags &= ~IFF_UP;
	return if_ioctl(port, SIOCSIFFLAGS, &ifr);
}

SOFL_API int
sofl_tun_inner_mtu(uint32_t underlay_mtu, int family, enum sofl_tun_encap encap,
		   uint32_t headroom, uint32_t tailroom, uint32_t *inner)
{
	uint32_t over;

	if (inner)
		*inner = 0;
	if (!inner || underlay_mtu > 65535 || headroom > 65535 || tailroom > 65535)
		return SOFL_E_INVAL;
	if (family == AF_INET)
		over = 20;		/* IPv4 header, no options */
	else if (family == AF_INET6)
		over = 40;		/* IPv6 header, no extension headers */
	else
		return SOFL_E_INVAL;
	over += 8;			/* UDP */
	switch (encap) {
	case SOFL_TUN_ENCAP_UDP:
		break;
	case SOFL_TUN_ENCAP_VXLAN:	/* RFC 7348: 8-byte header, inner Ethernet */
	case SOFL_TUN_ENCAP_GENEVE:	/* RFC 8926: 8-byte base header, no options */
		over += 8 + 14;
		break;
	default:
		return SOFL_E_INVAL;
	}
	over += headroom + tailroom;
	if (underlay_mtu < over + 68)	/* RFC 791: every IPv4 link carries 68 */
		return SOFL_E_TUN_MTU;
	*inner = underlay_mtu - over;
	return 0;
}

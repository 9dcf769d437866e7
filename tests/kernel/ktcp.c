/* ktcp — move a file over one TCP connection, byte for byte (tests/relay.sh).
 *
 *   ktcp recv ADDR PORT OUT   listen on ADDR:PORT (IPv4 or IPv6), print
 *                             "ready" once listening, accept one connection,
 *                             write everything it sends to OUT until EOF
 *   ktcp send ADDR PORT IN    connect, send IN, shut down the write side and
 *                             wait for the peer to close (so every byte was read)
 * Exit 0 on success, 1 on any error (message on stderr).  Bounded by the
 * caller (timeout). */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

static int
die(const char *what)
{
	fprintf(stderr, "ktcp: %s: %s\n", what, strerror(errno));
	return 1;
}

static int
addr(const char *host, const char *port, struct addrinfo **ai)
{
	struct addrinfo hints;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	if (getaddrinfo(host, port, &hints, ai) != 0) {
		fprintf(stderr, "ktcp: bad address %s port %s\n", host, port);
		return -1;
	}
	return 0;
}

static int
do_recv(struct addrinfo *ai, const char *out)
{
	static char buf[1 << 16];
	int s, c, one = 1;
	FILE *f;
	ssize_t n;

	s = socket(ai->ai_family, SOCK_STREAM, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(s, ai->ai_addr, ai->ai_addrlen) < 0 || listen(s, 1) < 0)
		return die("listen");
	printf("ready\n");
	fflush(stdout);
	c = accept(s, NULL, NULL);
	if (c < 0)
		return die("accept");
	f = fopen(out, "wb");
	if (!f)
		return die(out);
	while ((n = read(c, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, (size_t)n, f) != (size_t)n)
			return die("write");
	if (n < 0)
		return die("read");
	if (fclose(f) != 0)
		return die("close");
	close(c);
	close(s);
	return 0;
}

static int
do_send(struct addrinfo *ai, const char *in)
{
	static char buf[1 << 16];
	size_t n, off;
	ssize_t w;
	FILE *f;
	int s;

	f = fopen(in, "rb");
	if (!f)
		return die(in);
	s = socket(ai->ai_family, SOCK_STREAM, 0);
	if (s < 0 || connect(s, ai->ai_addr, ai->ai_addrlen) < 0)
		return die("connect");
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		for (off = 0; off < n; off += (size_t)w)
			if ((w = write(s, buf + off, n - off)) < 0)
				return die("send");
	if (ferror(f))
		return die("read");
	fclose(f);
	if (shutdown(s, SHUT_WR) < 0)
		return die("shutdown");
	while (read(s, buf, sizeof(buf)) > 0)	/* until the receiver closes */
		;
	close(s);
	return 0;
}

int
main(int argc, char **argv)
{
	struct addrinfo *ai;
	int r;

	if (argc != 5 || (strcmp(argv[1], "recv") && strcmp(argv[1], "send"))) {
		fprintf(stderr, "usage: ktcp recv|send ADDR PORT FILE\n");
		return 2;
	}
	if (addr(argv[2], argv[3], &ai) < 0)
		return 1;
	r = !strcmp(argv[1], "recv") ? do_recv(ai, argv[4]) : do_send(ai, argv[4]);
	freeaddrinfo(ai);
	return r;
}

/* Random SipHash keys (siphash.h) */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include "softoffload/error.h"
#include "siphash.h"

/* Fills @buf with @len bytes from @fd (-1: getrandom()); @return the count */
static size_t
fill(int fd, uint8_t *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;

	while (got < len) {
		r = fd < 0 ? getrandom(buf + got, len - got, 0) : read(fd, buf + got, len - got);
		if (r > 0)
			got += (size_t)r;
		else if (r == 0 || errno != EINTR)
			break;
	}
	return got;
}

int
sofl_sip_key(uint64_t key[2], const uint8_t given[16])
{
	static const uint8_t zero[16];
	int fd;
	size_t got;

	if (given && memcmp(given, zero, 16) != 0) {
		memcpy(key, given, 16);
		return 0;
	}
	if (fill(-1, (uint8_t *)key, 16) == 16)
		return 0;
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return SOFL_ENOTSUP;
	got = fill(fd, (uint8_t *)key, 16);
	close(fd);
	return got == 16 ? 0 : SOFL_ENOTSUP;
}

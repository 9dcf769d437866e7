/* The log callback (error.h): set by the program, or none. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include "base/log.h"

/* fn and arg change together under a spin lock held for two stores or two
 * loads; the callback itself runs outside it. */
static atomic_flag log_lock = ATOMIC_FLAG_INIT;
static sofl_log_fn log_fn;
static void *log_arg;
static atomic_int log_set;	/* fn != NULL: lets sofl_log() skip everything */

static void
lock(void)
{
	while (atomic_flag_test_and_set_explicit(&log_lock, memory_order_acquire))
		;
}

static void
unlock(void)
{
	atomic_flag_clear_explicit(&log_lock, memory_order_release);
}

SOFL_API void
sofl_set_log(sofl_log_fn fn, void *arg)
{
	lock();
	log_fn = fn;
	log_arg = fn ? arg : NULL;
	atomic_store_explicit(&log_set, fn != NULL, memory_order_relaxed);
	unlock();
}

void
sofl_log(enum sofl_log_level level, const char *fmt, ...)
{
	char msg[256];
	sofl_log_fn fn;
	void *arg;
	va_list ap;

	if (!atomic_load_explicit(&log_set, memory_order_relaxed))
		return;
	lock();
	fn = log_fn;
	arg = log_arg;
	unlock();
	if (!fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fn(arg, level, msg);
}

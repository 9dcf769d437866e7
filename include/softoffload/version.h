/*
 * softoffload — library version.
 *
 * The macros give the version of the headers a program was compiled with;
 * sofl_version() and sofl_version_string() give the version of the library
 * it runs against.  A program that needs what a given release added can
 * compare the two at start-up, e.g.
 *
 *	if (sofl_version() < SOFL_VERSION)
 *		errx(1, "libsoftoffload %s is older than the headers (%s)",
 *		     sofl_version_string(), SOFL_VERSION_STRING);
 *
 * Versioning: MAJOR.MINOR.PATCH.  The shared library's SONAME
 * (libsoftoffload.so.N) changes whenever the ABI changes (a struct's size or
 * layout, an enum value, a removed or changed call); MINOR grows with new
 * calls, PATCH with fixes only.
 *
 * Thread-safety: both calls are pure; call from any thread.
 */
#ifndef SOFTOFFLOAD_VERSION_H
#define SOFTOFFLOAD_VERSION_H

#include "softoffload/error.h"	/* SOFL_API */

#ifdef __cplusplus
extern "C" {
#endif

#define SOFL_VERSION_MAJOR 0
#define SOFL_VERSION_MINOR 4
#define SOFL_VERSION_PATCH 0

/* One integer that orders releases: MAJOR * 10000 + MINOR * 100 + PATCH
 * (0.4.0 is 400).  MINOR and PATCH stay below 100. */
#define SOFL_VERSION (SOFL_VERSION_MAJOR * 10000 + SOFL_VERSION_MINOR * 100 + \
		      SOFL_VERSION_PATCH)

#define SOFL_VERSION_STR_(x) #x
#define SOFL_VERSION_STR(x) SOFL_VERSION_STR_(x)
/* "MAJOR.MINOR.PATCH", e.g. "0.4.0" */
#define SOFL_VERSION_STRING SOFL_VERSION_STR(SOFL_VERSION_MAJOR) "." \
	SOFL_VERSION_STR(SOFL_VERSION_MINOR) "." SOFL_VERSION_STR(SOFL_VERSION_PATCH)

/* sofl_version() : the version of the library linked at run time, in the
 * form of SOFL_VERSION.  Never fails. */
SOFL_API unsigned sofl_version(void);

/* sofl_version_string() : the same as "MAJOR.MINOR.PATCH", a static string
 * (never NULL, never freed by the caller). */
SOFL_API const char *sofl_version_string(void);

#ifdef __cplusplus
}
#endif

#endif

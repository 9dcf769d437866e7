/* The library's own version (version.h): the header's macros as compiled
 * into the library, so a program can compare them with its headers. */
#include "softoffload/version.h"

SOFL_API unsigned
sofl_version(void)
{
	return SOFL_VERSION;
}

SOFL_API const char *
sofl_version_string(void)
{
	return SOFL_VERSION_STRING;
}

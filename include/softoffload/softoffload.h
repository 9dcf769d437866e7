/* softoffload — umbrella header: software network offloads.
 * Link with -lsoftoffload (pkg-config softoffload). */
#ifndef SOFTOFFLOAD_H
#define SOFTOFFLOAD_H
#include "softoffload/version.h"
#include "softoffload/error.h"
#include "softoffload/csum.h"
#include "softoffload/pkt.h"
#include "softoffload/rss.h"
#include "softoffload/gro.h"
#include "softoffload/gso.h"
#include "softoffload/vnet.h"
#include "softoffload/port.h"
#endif

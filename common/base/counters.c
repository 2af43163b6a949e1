/* The counter block (see counters.h). In .bss: zero at start, costs nothing on disk. */
#include "common/base/counters.h"

struct counters apollod_counters;

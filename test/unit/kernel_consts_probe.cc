// apollod's side of the kernel facts (kernel_facts.h): only common/ headers in this file,
// so nothing from the host libc can stand in for a missing or wrong definition.
#include "test/unit/kernel_facts.h"

#include "common/base/kernel_consts.h"

const struct kernel_fact apollod_kernel_facts[] = {
#define APOLLOD_FACT(ours, libc) {#libc, (long)(ours)},
	FOR_EACH_KERNEL_FACT(APOLLOD_FACT)
#undef APOLLOD_FACT
};
const size_t apollod_kernel_fact_count =
	sizeof(apollod_kernel_facts) / sizeof(apollod_kernel_facts[0]);

/* aarch64 block copy and fill: none. The generic word loops of common/base/mem_words.h
 * (8-byte loads and stores, unaligned ones allowed on normal memory) serve; aarch64 has
 * no microcoded string instruction before FEAT_MOPS (Armv8.8), which the tree's
 * -march=armv8.1-a does not assume. The file exists so that every cpu has the same
 * files (common/arch/arch.h). */
#ifndef APOLLOD_COMMON_ARCH_AARCH64_MEM_ARCH_H
#define APOLLOD_COMMON_ARCH_AARCH64_MEM_ARCH_H

#endif /* APOLLOD_COMMON_ARCH_AARCH64_MEM_ARCH_H */

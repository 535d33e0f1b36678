/* The instruction set of the fast paths, chosen at run time: the build needs no -march flag. x86-64 always has
 * SSE2; AVX2 is taken when cpuid reports it and the operating system saves the ymm registers (xgetbv), AVX-512
 * when cpuid reports F and DQ and the operating system also saves the opmask and zmm registers. A WebAssembly
 * module compiled with -msimd128 has SIMD128 (the engine validated it before it ran: no run-time test is left);
 * other CPUs and WebAssembly without it run the scalar reference. */
#include "sf_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define SFI_X86 1
#endif

static int g_cap = -1; /* sfi_simd_force: the tests' cap, -1 = none */

void sfi_simd_force(int level) { g_cap = level; }

#ifdef SFI_X86
static int detect(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return SFI_SIMD_SSE2;
    const unsigned osxsave = 1u << 27, avx = 1u << 28;
    if ((c & (osxsave | avx)) != (osxsave | avx)) return SFI_SIMD_SSE2;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    if ((lo & 6u) != 6u) return SFI_SIMD_SSE2; /* xmm and ymm state saved by the OS */
    if (__get_cpuid_max(0, NULL) < 7) return SFI_SIMD_SSE2;
    __cpuid_count(7, 0, a, b, c, d);
    if (!(b & (1u << 5))) return SFI_SIMD_SSE2;
    const unsigned avx512f = 1u << 16, avx512dq = 1u << 17;
    const unsigned zmm_state = 0xe0u; /* opmask, upper halves of zmm0-15, zmm16-31 */
    if ((b & (avx512f | avx512dq)) == (avx512f | avx512dq) && (lo & zmm_state) == zmm_state) return SFI_SIMD_AVX512;
    return SFI_SIMD_AVX2;
}
#endif

int sfi_simd_detect(void)
{
#ifdef SFI_X86
    return detect();
#elif defined(__wasm_simd128__)
    return SFI_SIMD_WASM128;
#else
    return SFI_SIMD_SCALAR;
#endif
}

int sfi_simd_level(const sf_topology* topo)
{
    int l = topo->simd_level;
    return g_cap >= 0 && g_cap < l ? g_cap : l;
}

int sfi_simd_level_cpu(void)
{
    int l = sfi_simd_detect();
    return g_cap >= 0 && g_cap < l ? g_cap : l;
}

// Stage timers for the GPU backend's clip batches and MikkTSpace rounds, on only with SF_CUDA_PROFILE=1 in the
// environment: each stage's wall seconds and calls are summed over the process and printed to stderr at exit, so
// one run shows where a clip's time goes (the eval layer prints the clip's own stages, device_clip.c). Off, a
// stage costs one load of a flag. Stages timed inside parallel parts add their threads' seconds.
#include "cuda_internal.h"

#include <atomic>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

namespace {
// in sfc_profile_stage's order
const char* const stage_names[SFC_PROFILE_STAGES] = {
    "batch: poses validated",
    "batch: instances' scratch and statistics ready",
    "batch: poses uploaded",
    "batch: methods queued (MikkTSpace rounds within)",
    "batch: wait for the device's queued work",
    "mikk: rounds in all (the stages below and more)",
    "mikk: staging pinned, part 0's host workspace",
    "mikk: wait for the device's earlier work",
    "mikk: positions, dets, normals read back",
    "mikk: staging, orders, device groups set",
    "mikk: host parts (wall)",
    "mikk: uploads and sums queued",
    "mikk: wait for uploads, device sums, tangents back",
    "mikk part: host workspaces made (thread s)",
    "mikk part: moves between orders (thread s)",
    "mikk part: graph and numbering checks (thread s)",
    "mikk part: groups compared with the device's (thread s)",
    "mikk part: host sums of frames the device cannot take (thread s)",
    "read: a series' counts and sums back (waits for queued work)",
    "read: a series' bins back",
    "read: a series' bins added on the host",
};

std::atomic<int> state{0}; // 0 unread, 1 off, 2 on
std::atomic<uint64_t> stage_ns[SFC_PROFILE_STAGES];
std::atomic<uint64_t> stage_calls[SFC_PROFILE_STAGES];

void print_profile(void)
{
    fprintf(stderr, "SF_CUDA_PROFILE: stage seconds (calls)\n");
    for (int k = 0; k < SFC_PROFILE_STAGES; ++k)
        if (stage_calls[k].load())
            fprintf(stderr, "  %-66s %9.4f s (%llu)\n", stage_names[k], 1e-9 * (double)stage_ns[k].load(),
                    (unsigned long long)stage_calls[k].load());
}

bool profile_on(void)
{
    int s = state.load();
    if (s == 0) {
        const char* v = getenv("SF_CUDA_PROFILE");
        int want = v && v[0] && strcmp(v, "0") != 0 ? 2 : 1;
        int expected = 0;
        if (state.compare_exchange_strong(expected, want) && want == 2) atexit(print_profile);
        s = state.load();
    }
    return s == 2;
}
} // namespace

uint64_t sfc_profile_start(void)
{
    if (!profile_on()) return 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void sfc_profile_stop(sfc_profile_stage stage, uint64_t start)
{
    if (!start || stage < 0 || stage >= SFC_PROFILE_STAGES) return;
    stage_ns[stage] += sfc_profile_start() - start;
    stage_calls[stage] += 1;
}

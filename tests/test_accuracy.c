// LABELS: cli
/* jacobian-fan on real assets, run as a program ($SF_CLI): on every staged glTF asset (tests/assets/gltf) and
 * every clip, its mean normal and mean tangent error are no worse than `skinned`'s, against the rebuilt and
 * against the authored reference; on CesiumMan it is at least twice as good as `skinned` against the authored
 * reference. One case is bounded differently, for a measured reason (docs/methods.md, "What a per-vertex
 * method can reach"): MorphStressTest against the rebuilt (area-weighted) reference, where the authored rest
 * normals already differ from the rebuilt ones by 5 degrees; any method that carries the authored frame
 * starts from that offset, and `skinned` gains 0.04 degrees on it only through the file's normal deltas. */
#define _POSIX_C_SOURCE 200809L
#include "sf_test.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Float noise allowance: a rigid or resting vertex can differ from `skinned` in the last bits. */
#define NOISE_DEG 1e-4

static double stat_mean(const cJSON* method, const char* key, int* present)
{
    const cJSON* s = cJSON_GetObjectItem(method, key);
    const cJSON* m = cJSON_GetObjectItem(s, "mean");
    *present = cJSON_IsNumber(m);
    return *present ? m->valuedouble : 0.0;
}

static const cJSON* find_method(const cJSON* animation, const char* name)
{
    const cJSON* m = NULL;
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(animation, "methods"))
    {
        const cJSON* n = cJSON_GetObjectItem(m, "method");
        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0) return m;
    }
    return NULL;
}

typedef struct seen {
    int cesium, fox_survey, fox_walk, fox_run, simple_skin, morph_stress, clips;
} seen;

static void check_reference(const char* assets, const char* reference, seen* got)
{
    char args[1200];
    snprintf(args, sizeof args, "eval '%s/gltf' --animation all --json --method skinned,jacobian-fan --reference %s",
             assets, reference);
    sft_cli_out r = sft_run_cli(args);
    CHECK(r.status == 0);
    int authored = strcmp(reference, "authored") == 0;
    char* line = r.out;
    while (line && *line) {
        char* next = strchr(line, '\n');
        if (next) *next++ = '\0';
        cJSON* asset = cJSON_Parse(line);
        CHECK(asset != NULL);
        const cJSON* file = cJSON_GetObjectItem(asset, "file");
        const char* path = cJSON_IsString(file) ? file->valuestring : "?";
        int cesium = strstr(path, "CesiumMan") != NULL, morph_stress = strstr(path, "MorphStressTest") != NULL;
        got->simple_skin += strstr(path, "SimpleSkin") != NULL;
        const cJSON* a = NULL;
        cJSON_ArrayForEach(a, cJSON_GetObjectItem(asset, "animations"))
        {
            const cJSON* name = cJSON_GetObjectItem(a, "name");
            const char* clip = cJSON_IsString(name) ? name->valuestring : "?";
            const cJSON* sk = find_method(a, "skinned");
            const cJSON* jac = find_method(a, "jacobian-fan");
            CHECK(sk && jac);
            if (!sk || !jac) continue;
            got->clips++;
            got->cesium += cesium;
            got->morph_stress += morph_stress;
            if (strstr(path, "Fox")) {
                got->fox_survey += strcmp(clip, "Survey") == 0;
                got->fox_walk += strcmp(clip, "Walk") == 0;
                got->fox_run += strcmp(clip, "Run") == 0;
            }
            int sn, jn, st, jt, rn, rt;
            double sk_n = stat_mean(sk, "normal", &sn), jac_n = stat_mean(jac, "normal", &jn);
            double sk_t = stat_mean(sk, "tangent", &st), jac_t = stat_mean(jac, "tangent", &jt);
            double rest_n = stat_mean(jac, "rest_normal", &rn), rest_t = stat_mean(jac, "rest_tangent", &rt);
            CHECK(sn && jn && st == jt);
            printf("  %-9s %-70s %-24s normal skinned %.4f jacobian-fan %.4f", reference, path, clip, sk_n, jac_n);
            if (st) printf(", tangent skinned %.4f jacobian-fan %.4f", sk_t, jac_t);
            printf("\n");
            if (morph_stress && !authored) {
                /* the authored-vs-rebuilt rest offset dominates: within 1% of it of skinned */
                CHECK(rn && rest_n > 4.0);
                CHECK(jac_n <= sk_n + 0.01 * rest_n);
                CHECK(!st || (rt && jac_t <= sk_t + 0.01 * rest_t));
                continue;
            }
            if (jac_n > sk_n + NOISE_DEG || (st && jac_t > sk_t + NOISE_DEG))
                fprintf(stderr, "  worse than skinned: %s %s (%s reference)\n", path, clip, reference);
            CHECK(jac_n <= sk_n + NOISE_DEG);
            CHECK(!st || jac_t <= sk_t + NOISE_DEG);
            if (cesium && authored) {
                CHECK(2.0 * jac_n <= sk_n);
                CHECK(st && 2.0 * jac_t <= sk_t);
            }
        }
        cJSON_Delete(asset);
        line = next;
    }
    sft_cli_out_free(&r);
}

static void test_never_worse_than_skinned(void)
{
    const char* assets = getenv("SF_ASSETS");
    CHECK(assets != NULL);
    if (!assets) return;
    for (int k = 0; k < 2; ++k) {
        seen got;
        memset(&got, 0, sizeof got);
        check_reference(assets, k == 0 ? "rebuilt" : "authored", &got);
        /* the characters are all there: the checks above cannot pass on an empty run */
        CHECK(got.cesium == 1 && got.fox_survey == 1 && got.fox_walk == 1 && got.fox_run == 1);
        CHECK(got.simple_skin == 1 && got.morph_stress == 3);
        CHECK(got.clips >= 20);
    }
}

int main(int argc, char** argv)
{
    if (!getenv("SF_CLI") || !getenv("SF_ASSETS")) {
        fprintf(stderr, "SF_CLI or SF_ASSETS not set: skipped\n");
        return 77;
    }
    static const sft_case cases[] = {
        {"never_worse_than_skinned", test_never_worse_than_skinned},
    };
    return SFT_RUN(cases, argc, argv);
}
